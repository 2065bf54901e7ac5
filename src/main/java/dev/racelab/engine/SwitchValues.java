package dev.racelab.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values a run gives its lab's switches; a switch without one has its default. Immutable;
 * {@link #with} returns a new set.
 */
public final class SwitchValues {

    /** Every switch at its default. */
    public static final SwitchValues DEFAULTS = new SwitchValues(Map.of());

    /** Values by switch name, each checked by its switch. */
    private final Map<String, Object> values;

    private SwitchValues(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The value of {@code sw} in this run. */
    public <T> T get(Switch<T> sw) {
        Object value = values.get(sw.name());
        return value == null ? sw.defaultValue() : sw.check(value);
    }

    /** A copy with {@code sw} set to {@code value}; setting the default removes the entry. */
    public <T> SwitchValues with(Switch<T> sw, T value) {
        T checked = sw.check(value);
        Map<String, Object> next = new LinkedHashMap<>(values);
        if (checked.equals(sw.defaultValue())) {
            next.remove(sw.name());
        } else {
            next.put(sw.name(), checked);
        }
        return new SwitchValues(next);
    }

    /** Sets {@code sw} from text as the command line and recordings write it. */
    public <T> SwitchValues parse(Switch<T> sw, String text) {
        return with(sw, sw.parse(text));
    }

    /** Whether every switch is at its default. */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * The values that differ from their defaults, as {@code name=value} pairs in the order of
     * {@code switches} (the lab's declaration), for summaries and recordings.
     */
    public Map<String, String> describe(List<Switch<?>> switches) {
        Map<String, String> text = new LinkedHashMap<>();
        for (Switch<?> sw : switches) {
            if (values.containsKey(sw.name())) {
                text.put(sw.name(), format(sw));
            }
        }
        return text;
    }

    private <T> String format(Switch<T> sw) {
        return sw.format(get(sw));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SwitchValues s && s.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
