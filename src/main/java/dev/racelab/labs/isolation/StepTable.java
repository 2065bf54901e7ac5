package dev.racelab.labs.isolation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A step's result table as it travels in an event's subject: the step's name on the first line,
 * then the columns and the rows, fields separated by the ASCII unit separator and rows by the
 * record separator (characters no result of a spec prints), so the lab's view rebuilds the table
 * from a recording exactly.
 */
record StepTable(String step, List<String> columns, List<List<String>> rows) {

    private static final char FIELD = '\u001f';
    private static final char ROW = '\u001e';
    private static final String NULL = "\u0000";

    String encode() {
        StringBuilder text = new StringBuilder(step).append('\n');
        text.append(String.join(String.valueOf(FIELD), columns));
        for (List<String> row : rows) {
            text.append(ROW);
            text.append(String.join(String.valueOf(FIELD), row.stream().map(v -> v == null ? NULL : v).toList()));
        }
        return text.toString();
    }

    static StepTable decode(String given) {
        String subject = given == null ? "" : given;
        int newline = subject.indexOf('\n');
        String step = newline < 0 ? subject : subject.substring(0, newline);
        List<String> records = newline < 0 ? List.of() : Arrays.asList(subject.substring(newline + 1)
                .split(String.valueOf(ROW), -1));
        List<String> columns = records.isEmpty() ? List.of() : split(records.get(0));
        List<List<String>> rows = new ArrayList<>();
        for (int i = 1; i < records.size(); i++) {
            rows.add(split(records.get(i)).stream().map(v -> NULL.equals(v) ? null : v).toList());
        }
        return new StepTable(step, columns, rows);
    }

    private static List<String> split(String record) {
        return new ArrayList<>(Arrays.asList(record.split(String.valueOf(FIELD), -1)));
    }
}
