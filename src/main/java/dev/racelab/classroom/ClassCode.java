package dev.racelab.classroom;

import dev.racelab.backend.wire.Passwords;

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

    private static final Pattern FORM = Pattern.compile("[" + Passwords.TYPABLE + "]{6}");

    public ClassCode {
        if (value == null || !FORM.matcher(value).matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a class code: six of " + Passwords.TYPABLE);
        }
    }

    /** A new code, random. */
    public static ClassCode random() {
        return new ClassCode(Passwords.typable(6));
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
