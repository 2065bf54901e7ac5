package dev.racelab.engine;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A lab's own setting beyond workers and operations (a pool size, a lease length, try versus
 * blocking), declared once in the lab's {@link LabProfile} with a type, a default and a range. The
 * command line sets it with {@code --set NAME=VALUE}, the window shows it as a control, a
 * recording stores it, and the lab reads it from its run's {@link SwitchValues} by this object, so
 * a lab never looks a setting up by a string of its own.
 *
 * @param <T> {@code Integer}, {@code Boolean} or an enum implementing {@link Choice}
 */
public final class Switch<T> {

    /** What kind of value a switch takes. */
    public enum Type { INTEGER, FLAG, CHOICE }

    /** One value of a choice switch. */
    public interface Choice {
        /** What the command line writes: lower-case words joined by '-'. */
        String id();

        /** What the window shows. */
        String title();
    }

    /** One of the words a lab file's own switch offers ({@link #words}): a choice that is no enum's. */
    public record Word(String id) implements Choice {
        @Override
        public String title() {
            return id.replace('_', ' ');
        }
    }

    private final String name;
    private final String title;
    private final String description;
    private final Type type;
    private final T defaultValue;
    private final long min;
    private final long max;
    private final String unit;
    private final List<T> choices;
    private final Class<T> valueType;

    private Switch(String name, String title, String description, Type type, Class<T> valueType, T defaultValue,
                   long min, long max, String unit, List<T> choices) {
        if (!name.matches("[a-z][a-z0-9_-]*")) {
            throw new IllegalArgumentException("switch names are lower-case words joined by '-' or '_': " + name);
        }
        this.name = name;
        this.title = title;
        this.description = description;
        this.type = type;
        this.valueType = valueType;
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.unit = unit;
        this.choices = List.copyOf(choices);
        check(defaultValue);
    }

    /** A whole number from {@code min} to {@code max}, in {@code unit} (ms, connections; may be empty). */
    public static Switch<Integer> integer(String name, String title, String description, String unit,
                                          int defaultValue, int min, int max) {
        if (min > max) {
            throw new IllegalArgumentException(name + ": empty range " + min + "-" + max);
        }
        return new Switch<>(name, title, description, Type.INTEGER, Integer.class, defaultValue, min, max, unit,
                List.of());
    }

    /** On or off. */
    public static Switch<Boolean> flag(String name, String title, String description, boolean defaultValue) {
        return new Switch<>(name, title, description, Type.FLAG, Boolean.class, defaultValue, 0, 1, "", List.of());
    }

    /** One of an enum's constants. */
    public static <E extends Enum<E> & Choice> Switch<E> choice(String name, String title, String description,
                                                                E defaultValue) {
        Class<E> type = defaultValue.getDeclaringClass();
        return new Switch<>(name, title, description, Type.CHOICE, type, defaultValue, 0, 0, "",
                Arrays.asList(type.getEnumConstants()));
    }

    /** One of {@code words}, the first by default: a switch a lab file declares. */
    public static Switch<Word> words(String name, String title, String description, List<String> words) {
        List<Word> choices = words.stream().map(Word::new).toList();
        return new Switch<>(name, title, description, Type.CHOICE, Word.class, choices.get(0), 0, 0, "", choices);
    }

    public String name() {
        return name;
    }

    public String title() {
        return title;
    }

    public String description() {
        return description;
    }

    public Type type() {
        return type;
    }

    public T defaultValue() {
        return defaultValue;
    }

    /** The smallest value of an integer switch. */
    public long min() {
        return min;
    }

    /** The largest value of an integer switch. */
    public long max() {
        return max;
    }

    public String unit() {
        return unit;
    }

    /** The values of a choice switch, in declaration order; empty for the others. */
    public List<T> choices() {
        return choices;
    }

    /**
     * Reads a value as the command line and recordings write it: {@code 250}, {@code true} /
     * {@code false} (also on/off, yes/no), or a choice's id.
     *
     * @throws IllegalArgumentException naming the switch, the text and what it accepts
     */
    public T parse(String text) {
        String value = text.strip();
        return switch (type) {
            case INTEGER -> {
                long number;
                try {
                    if (!value.matches("-?[0-9]{1,18}")) {
                        throw new NumberFormatException();
                    }
                    number = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(name + " takes a whole number " + range() + ", not '" + text + "'");
                }
                if (number < min || number > max) {
                    throw new IllegalArgumentException(name + " must be " + range() + ", not " + number);
                }
                yield valueType.cast((int) number);
            }
            case FLAG -> valueType.cast(switch (value.toLowerCase(Locale.ROOT)) {
                case "true", "on", "yes" -> true;
                case "false", "off", "no" -> false;
                default -> throw new IllegalArgumentException(name + " is true or false, not '" + text + "'");
            });
            case CHOICE -> choices.stream().filter(c -> ((Choice) c).id().equals(value)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(name + " is one of " + accepted() + ", not '"
                            + text + "'"));
        };
    }

    /** The value as {@link #parse} reads it back. */
    public String format(T value) {
        return type == Type.CHOICE ? ((Choice) value).id() : String.valueOf(value);
    }

    /** The default as {@link #parse} reads it. */
    public String defaultText() {
        return format(defaultValue);
    }

    /** What the switch accepts, for messages and help: "1 to 64 ms", "true or false", "a, b or c". */
    public String accepted() {
        return switch (type) {
            case INTEGER -> range();
            case FLAG -> "true or false";
            case CHOICE -> String.join(", ", choices.stream().map(c -> ((Choice) c).id()).toList());
        };
    }

    private String range() {
        return "from " + min + " to " + max + (unit.isEmpty() ? "" : " " + unit);
    }

    /**
     * This switch's value out of an untyped holder, checked.
     *
     * @throws IllegalArgumentException if {@code value} is not one this switch takes
     */
    T check(Object value) {
        if (!valueType.isInstance(value)) {
            throw new IllegalArgumentException(name + " takes " + accepted() + ", not " + value);
        }
        T typed = valueType.cast(value);
        if (type == Type.CHOICE && !choices.contains(typed)) {
            throw new IllegalArgumentException(name + " is one of " + accepted() + ", not " + format(typed));
        }
        if (type == Type.INTEGER && ((Integer) typed < min || (Integer) typed > max)) {
            throw new IllegalArgumentException(name + " must be " + range() + ", not " + typed);
        }
        return typed;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Switch<?> s && s.name.equals(name) && s.type == type
                && Objects.equals(s.defaultValue, defaultValue);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
