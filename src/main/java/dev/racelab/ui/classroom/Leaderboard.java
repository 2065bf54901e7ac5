package dev.racelab.ui.classroom;

import dev.racelab.classroom.ClassHost;
import dev.racelab.classroom.Ledger;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Who joined the class, in the order they joined, with their clock as they estimated it against
 * the server's, and in the run going on (or the last one) what each did: operations, increments of
 * theirs that were lost, others' increments they overwrote, operations left unfinished.
 */
public final class Leaderboard extends TableView<Leaderboard.Row> {

    /** One participant's line. */
    public record Row(String name, int workers, String clock, long ops, long lost, long overwrote, String unfinished) {
    }

    Leaderboard() {
        setId("class-leaderboard");
        setColumnResizePolicy(CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        setPlaceholder(new javafx.scene.control.Label("Nobody has joined yet"));
        getColumns().add(column("Name", Row::name, 120));
        getColumns().add(column("Workers", Row::workers, 80));
        getColumns().add(column("Clock", Row::clock, 90));
        getColumns().add(column("Operations", Row::ops, 100));
        getColumns().add(column("Theirs lost", Row::lost, 105));
        getColumns().add(column("Others' wiped out", Row::overwrote, 150));
        getColumns().add(column("Unfinished", Row::unfinished, 120));
    }

    private static <T> TableColumn<Row, T> column(String title, Function<Row, T> value, double width) {
        TableColumn<Row, T> column = new TableColumn<>(title);
        column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
        column.setPrefWidth(width);
        column.setSortable(false);
        return column;
    }

    /** Shows {@code joined}, each with its part in {@code parts} (matched by name) where it has one. */
    void show(List<ClassHost.Participant> joined, List<Ledger.Part> parts) {
        Map<String, Ledger.Part> byName = parts.stream().collect(Collectors.toMap(Ledger.Part::name, p -> p, (a, b) -> a));
        List<Row> rows = new ArrayList<>();
        for (ClassHost.Participant p : joined) {
            Ledger.Part part = byName.get(p.name());
            // Its clock against the server's, as the participant estimated it ("+0.0", never "-0.0").
            double ms = Math.round(-p.skewNanos() / 1e5) / 10.0 + 0.0;
            rows.add(new Row(p.name(), p.workers(), String.format("%+.1f ms", ms),
                    part == null ? 0 : part.ops(), part == null ? 0 : part.lost(), part == null ? 0 : part.overwrote(),
                    part == null ? "" : part.neverBegan() != null ? "could not begin"
                            : part.unfinished().isEmpty() ? "" : "left during op " + part.unfinished().get(0)));
        }
        if (!Objects.equals(rows, getItems())) {
            getItems().setAll(rows);
        }
    }
}
