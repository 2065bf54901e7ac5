package dev.racelab.isolation.run;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A result's rows as libpq's {@code PQprint} prints them with the options isolationtester gives
 * it (a header, aligned columns, {@code |} between them):
 *
 * <pre>
 * id|data
 * --+----
 *  2|x
 * (1 row)
 * </pre>
 *
 * A column is as wide as its name or its longest value, counted in bytes of UTF-8 as libpq
 * counts; a column whose every non-empty value looks like a number (digits, {@code . E e -}
 * and spaces, not starting with an E, ending with a digit) is right-aligned, others left-aligned,
 * names too. NULL and the empty string print as nothing. A blank line follows the row count.
 */
public final class ResultTable {

    private ResultTable() {
    }

    /** The table; nothing for a result without columns ({@code SELECT;}), as libpq prints nothing. */
    public static String print(List<String> columns, List<List<String>> rows) {
        int n = columns.size();
        if (n == 0) {
            return "";
        }
        int[] width = new int[n];
        boolean[] text = new boolean[n];
        for (int j = 0; j < n; j++) {
            width[j] = bytes(columns.get(j));
        }
        for (List<String> row : rows) {
            for (int j = 0; j < n; j++) {
                String value = row.get(j);
                if (value == null || value.isEmpty()) {
                    continue;
                }
                if (!text[j] && !looksNumeric(value)) {
                    text[j] = true;
                }
                width[j] = Math.max(width[j], bytes(value));
            }
        }
        StringBuilder out = new StringBuilder();
        for (int j = 0; j < n; j++) {
            pad(out, columns.get(j), width[j], text[j]);
            if (j + 1 < n) {
                out.append('|');
            }
        }
        out.append('\n');
        for (int j = 0; j < n; j++) {
            out.append("-".repeat(width[j]));
            if (j + 1 < n) {
                out.append('+');
            }
        }
        out.append('\n');
        for (List<String> row : rows) {
            for (int j = 0; j < n; j++) {
                String value = row.get(j);
                pad(out, value == null ? "" : value, width[j], text[j]);
                if (j + 1 < n) {
                    out.append('|');
                }
            }
            out.append('\n');
        }
        out.append('(').append(rows.size()).append(rows.size() == 1 ? " row" : " rows").append(")\n\n");
        return out.toString();
    }

    /** libpq's test: every character one of {@code 0-9 . E e space -}, no leading E, a digit last. */
    static boolean looksNumeric(String value) {
        char last = '0';
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!((c >= '0' && c <= '9') || c == '.' || c == 'E' || c == 'e' || c == ' ' || c == '-')) {
                return false;
            }
            last = c;
        }
        char first = value.charAt(0);
        return first != 'E' && first != 'e' && last >= '0' && last <= '9';
    }

    private static void pad(StringBuilder out, String value, int width, boolean leftAligned) {
        String spaces = " ".repeat(Math.max(0, width - bytes(value)));
        if (leftAligned) {
            out.append(value).append(spaces);
        } else {
            out.append(spaces).append(value);
        }
    }

    private static int bytes(String text) {
        int ascii = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                return text.getBytes(StandardCharsets.UTF_8).length;
            }
            ascii++;
        }
        return ascii;
    }
}
