package dev.racelab.classroom;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A class's code: six letters and digits a student can type off a projector (none that look alike:
 * no {@code 0}/{@code o}, {@code 1}/{@code l}/{@code i}). Everything of the class is named by it:
 * its PostgreSQL role and database {@code racelab_class_<code>}, its Redis user {@code
 * racelab-class-<code>} and its keys {@code racelab:class:<code>:…}, so two classes on one server
 * never meet.
 */
public record ClassCode(String value) {

    private static final String LETTERS = "abcdefghjkmnpqrstuvwxyz23456789";
    private static final Pattern FORM = Pattern.compile("[" + LETTERS + "]{6}");
    private static final SecureRandom RANDOM = new SecureRandom();

    public ClassCode {
        if (value == null || !FORM.matcher(value).matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a class code: six of " + LETTERS);
        }
    }

    /** A new code, random. */
    public static ClassCode random() {
        StringBuilder code = new StringBuilder(6);
        for (int i = 0; i < 6; i++) {
            code.append(LETTERS.charAt(RANDOM.nextInt(LETTERS.length())));
        }
        return new ClassCode(code.toString());
    }

    /** The code as a student typed it: case and spaces do not matter. */
    public static ClassCode typed(String text) {
        return new ClassCode(text == null ? null : text.strip().replace(" ", "").toLowerCase(Locale.ROOT));
    }

    /** The class's PostgreSQL role and database. */
    public String pgName() {
        return "racelab_class_" + value;
    }

    /** The class's Redis ACL user. */
    public String redisUser() {
        return "racelab-class-" + value;
    }

    /** What every key and channel of the class begins with. */
    public String keyPrefix() {
        return "racelab:class:" + value + ":";
    }

    /** The key {@code name} of the class. */
    public String key(String name) {
        return keyPrefix() + name;
    }

    @Override
    public String toString() {
        return value;
    }
}
