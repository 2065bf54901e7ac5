package dev.racelab.cli;

import dev.racelab.engine.Verdict;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How option values are read. A refused value says what is wrong after the option's name, in
 * words ({@link Usage} puts the name in front): "--workers" + " must be a whole number, not '３'".
 */
final class Values {

    private Values() {
    }

    /**
     * A whole number in ASCII digits, with an optional sign. {@link Long#parseLong} also reads
     * other scripts' digits ("３" as 3, "١٢" as 12); a command line takes only what it shows.
     */
    static final class WholeNumber implements ITypeConverter<Long> {

        private static final Pattern DIGITS = Pattern.compile("[+-]?[0-9]+");

        @Override
        public Long convert(String text) {
            String stripped = text.strip();
            if (!DIGITS.matcher(stripped).matches()) {
                throw new TypeConversionException("must be a whole number, not '" + text + "'");
            }
            try {
                return Long.parseLong(stripped);
            } catch (NumberFormatException tooLong) {
                throw new TypeConversionException("must be a whole number from " + Long.MIN_VALUE + " to "
                        + Long.MAX_VALUE + ", not " + text);
            }
        }
    }

    /** A verdict, in any case: {@code race}, {@code RACE}. */
    static final class VerdictName implements ITypeConverter<Verdict> {

        @Override
        public Verdict convert(String text) {
            for (Verdict verdict : Verdict.values()) {
                if (verdict.name().equals(text.strip().toUpperCase(Locale.ROOT))) {
                    return verdict;
                }
            }
            throw new TypeConversionException(text + ": a verdict is one of " + Arrays.stream(Verdict.values())
                    .map(Verdict::name).collect(Collectors.joining(", ")));
        }
    }
}
