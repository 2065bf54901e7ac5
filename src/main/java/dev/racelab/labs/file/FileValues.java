package dev.racelab.labs.file;

import dev.racelab.labfile.LabFile.Test;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * A lab file's values at run time: expressions ({@code $n + 1}, {@code workers * 5}) and tests
 * ({@code = OK}, {@code != "40001"}, {@code not null}). A value is text (or null); numbers compare
 * as numbers, anything else as text.
 */
final class FileValues {

    private FileValues() {
    }

    /**
     * The value of {@code expression}: a number when every term is one, else the text of a single
     * term; null when a value it uses is not there. {@code names} gives the words ({@code workers},
     * {@code operations}).
     */
    static String eval(List<String> expression, Map<String, String> values, Map<String, Long> names) {
        if (expression.size() == 1) {
            return term(expression.get(0), values, names);
        }
        // Products first, then sums and differences, left to right: $op + $worker * 1000 as written.
        BigDecimal total = BigDecimal.ZERO;
        BigDecimal product = null;
        String sign = "+";
        for (int i = 0; i < expression.size(); i += 2) {
            BigDecimal n = number(term(expression.get(i), values, names));
            if (n == null) {
                return null;
            }
            product = product == null ? n : product.multiply(n);
            String next = i + 1 < expression.size() ? expression.get(i + 1) : "+";
            if (!next.equals("*")) {
                total = sign.equals("-") ? total.subtract(product) : total.add(product);
                product = null;
                sign = next;
            }
        }
        return total.stripTrailingZeros().toPlainString();
    }

    private static String term(String term, Map<String, String> values, Map<String, Long> names) {
        if (term.startsWith("$")) {
            return values.get(term.substring(1));
        }
        Long named = names.get(term);
        return named != null ? named.toString() : term;
    }

    /** Whether {@code value} meets {@code test}. */
    static boolean meets(String value, Test test, Map<String, String> values, Map<String, Long> names) {
        switch (test.sign()) {
            case "null" -> {
                return value == null;
            }
            case "not null" -> {
                return value != null;
            }
            default -> {
                String expected = eval(test.expression(), values, names);
                if (value == null || expected == null) {
                    // Null equals only null; it is unlike anything else, and in no order.
                    boolean same = value == null && expected == null;
                    return test.sign().equals("=") ? same : test.sign().equals("!=") && !same;
                }
                BigDecimal a = number(value);
                BigDecimal b = number(expected);
                int order = a != null && b != null ? a.compareTo(b) : value.compareTo(expected);
                boolean numbers = a != null && b != null;
                return switch (test.sign()) {
                    case "=" -> order == 0;
                    case "!=" -> order != 0;
                    case "<" -> numbers && order < 0;
                    case "<=" -> numbers && order <= 0;
                    case ">" -> numbers && order > 0;
                    default -> numbers && order >= 0;
                };
            }
        }
    }

    static BigDecimal number(String text) {
        if (text == null) {
            return null;
        }
        try {
            return new BigDecimal(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
