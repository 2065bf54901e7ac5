package dev.racelab.ui.gates;

import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.ui.model.Session;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.geometry.Pos;
import javafx.scene.control.CheckBox;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The gates table: one row for all workers and one per worker, one column per gate. A cell takes
 * a delay ({@code 5} or a range {@code 2-20}, in milliseconds) and a breakpoint (its box). A
 * worker's own row overrides the all-workers row; left empty, it shows the inherited rule greyed.
 *
 * <p>The gate columns share the table's width (no horizontal scrolling: a lab has at most a
 * handful of gates, and the worker column must stay in view), their headers wrap; what a cell's
 * field and box mean is said once, by the {@link GatesHeader} above the table, not in every cell.
 *
 * <p>In step mode the rows of workers halted at a gate are highlighted, the cell of the gate
 * where each stands marked, and the selected row is the worker Step releases. A fault gate's column
 * is marked (⚡, its own colour): a rule there arms the fault rather than delaying. Rows are
 * virtualized, so a thousand workers cost no more than twenty.
 */
public final class GatesTable extends TableView<GatesTable.Row> {

    /** The style class of a fault gate's column and header. */
    public static final String FAULT = "fault-gate";
    private static final String ARMING = "Any delay or break set here arms the fault for that worker (in the all-workers "
            + "row: for every worker), who suffers it here after sitting out the delay. Left empty, the gate does "
            + "nothing, and step mode does not halt here.";

    /** A row: {@code index} -1 is all workers. */
    public record Row(int index, String name) {
    }

    /** Rows kept in view (all workers and two workers) whatever the banner above needs. */
    private static final int MIN_ROWS_IN_VIEW = 3;
    /** Every row's height: a delay field and a box, no more, so a lab's default workers all fit in view. */
    private static final double ROW_EM = 2.2;
    private static final double HEADER_EM = 4.2;
    /** The most worker rows the window makes room for (advisory-lock's eight): more scroll. */
    public static final int ROOM_FOR_WORKERS = 8;

    private final Session session;
    private Gate[] haltedAt = new Gate[0];

    public GatesTable(Session session) {
        this.session = session;
        getStyleClass().add("gates-table");
        setColumnResizePolicy(TableView.UNCONSTRAINED_RESIZE_POLICY);
        setFixedCellSize(Math.ceil(ROW_EM * em()));
        // However tall the verdict above grows, the header and a few rows stay in view.
        setMinHeight(heightFor(MIN_ROWS_IN_VIEW));
        setPlaceholder(new javafx.scene.control.Label("Choose a lab"));
        setRowFactory(table -> new javafx.scene.control.TableRow<>() {
            @Override
            protected void updateItem(Row row, boolean empty) {
                super.updateItem(row, empty);
                boolean halted = !empty && row != null && row.index() >= 0 && row.index() < haltedAt.length
                        && haltedAt[row.index()] != null;
                pseudoClassStateChanged(javafx.css.PseudoClass.getPseudoClass("halted"), halted);
            }
        });
        session.labProperty().addListener((o, a, lab) -> rebuild());
        session.workersProperty().addListener((o, a, b) -> rebuild());
        session.gatesProperty().addListener((o, a, b) -> refresh());
    }

    /**
     * The height that shows the header and {@code rows} rows whole: the header as laid out (as the
     * theme makes it, before the first layout), every row its fixed height.
     */
    public double heightFor(int rows) {
        javafx.scene.Node header = lookup(".column-header-background");
        double headerHeight = header instanceof Region laidOut && laidOut.getHeight() > 0 ? laidOut.getHeight()
                : HEADER_EM * em();
        return headerHeight + rows * getFixedCellSize() + snappedTopInset() + snappedBottomInset() + 2;
    }

    /** The selected worker's index, or -1 when none (or the all-workers row) is selected. */
    public int selectedWorker() {
        Row row = getSelectionModel().getSelectedItem();
        return row == null ? -1 : row.index();
    }

    private static double em() {
        return javafx.scene.text.Font.getDefault().getSize();
    }

    /** Selects worker {@code index}'s row. */
    public void selectWorker(int index) {
        if (index + 1 < getItems().size()) {
            getSelectionModel().select(index + 1);
            scrollTo(Math.max(0, index - 2));
        }
    }

    /** Picks up which workers are halted where, as the shown record says; redraws only when that changed. */
    public void update(RunTracker run) {
        Lab lab = session.lab();
        Gate[] now = new Gate[run == null || lab == null ? 0 : run.workerActors().size()];
        for (int w = 0; w < now.length; w++) {
            String gate = run.workerByIndex(w).haltedAt();
            now[w] = gate == null ? null : lab.gate(gate).orElse(null);
        }
        if (!Arrays.equals(now, haltedAt)) {
            haltedAt = now;
            refresh();
        }
    }

    private void rebuild() {
        Lab lab = session.lab();
        getColumns().clear();
        if (lab == null) {
            getItems().clear();
            return;
        }
        TableColumn<Row, String> worker = new TableColumn<>("Worker");
        worker.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(cell.getValue().name()));
        worker.setCellFactory(column -> new TableCell<>() {
            @Override
            protected void updateItem(String name, boolean empty) {
                super.updateItem(name, empty);
                Row row = empty ? null : getTableRow().getItem();
                if (row == null) {
                    setText(null);
                    return;
                }
                Gate gate = row.index() >= 0 && row.index() < haltedAt.length ? haltedAt[row.index()] : null;
                // Where it halted is the outlined cell; the name only says that it did.
                setText(gate == null ? name : name + " ‖");
                setTooltip(gate == null ? null : new Tooltip(name + " is halted at " + gate.id()));
            }
        });
        worker.setSortable(false);
        worker.setMinWidth(7 * em());
        worker.setPrefWidth(8.5 * em());
        worker.setMaxWidth(8.5 * em());
        getColumns().add(worker);
        for (Gate gate : lab.gates()) {
            TableColumn<Row, Row> column = new TableColumn<>(gate.id());
            column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(cell.getValue()));
            column.setCellFactory(c -> new RuleCell(gate));
            column.setSortable(false);
            column.setReorderable(false);
            column.setMinWidth(5 * em());
            // The gates share equally what the worker column and the vertical scroll bar leave.
            column.prefWidthProperty().bind(widthProperty().subtract(worker.widthProperty()).subtract(2 * em())
                    .divide(lab.gates().size()));
            Tooltip tip = new Tooltip(gate.isFault() ? gate.id() + " — a fault: " + gate.description() + ".\n" + ARMING
                    : gate.id() + ": " + gate.description());
            tip.setWrapText(true);
            tip.setMaxWidth(440);
            javafx.scene.control.Label header = new javafx.scene.control.Label(gate.id());
            header.setTooltip(tip);
            // A long id breaks at a hyphen onto a second line rather than being cut.
            // Always room for two lines, so the header row need not grow when a column narrows.
            header.setTextAlignment(javafx.scene.text.TextAlignment.CENTER);
            header.setMinHeight(2.6 * em());
            // A fault's ⚡ stands above the id, so both lines of a long id have the column's width.
            header.setContentDisplay(javafx.scene.control.ContentDisplay.TOP);
            column.widthProperty().addListener((o, a, width) -> header.setText(headerText(gate.id(), header,
                    width.doubleValue())));
            header.setText(headerText(gate.id(), header, column.getPrefWidth()));
            if (gate.isFault()) {
                // The glyph is a graphic, so the header's text stays the gate's id.
                javafx.scene.control.Label bolt = new javafx.scene.control.Label("⚡");
                bolt.getStyleClass().add("fault-glyph");
                header.setGraphic(bolt);
                header.getStyleClass().add(FAULT);
                column.getStyleClass().add(FAULT);
            }
            column.setText(null);
            column.setGraphic(header);
            getColumns().add(column);
        }
        List<Row> rows = new ArrayList<>();
        rows.add(new Row(-1, "all workers"));
        for (int w = 0; w < session.workersProperty().get(); w++) {
            rows.add(new Row(w, lab.workerName(w)));
        }
        ObservableList<Row> items = FXCollections.observableList(rows);
        setItems(items);
        haltedAt = new Gate[0];
    }

    /** The gate's id on one line if it fits the column, else broken at its middle hyphen. */
    private static String headerText(String id, javafx.scene.control.Label header, double width) {
        javafx.scene.text.Text probe = new javafx.scene.text.Text(id);
        // Headers are bold (the theme's column headers), whether or not the CSS reached this one yet.
        probe.setFont(javafx.scene.text.Font.font(header.getFont().getFamily(), javafx.scene.text.FontWeight.BOLD,
                header.getFont().getSize()));
        int middle = id.length() / 2;
        int cut = -1;
        for (int i = 0; i < id.length(); i++) {
            if (id.charAt(i) == '-' && (cut < 0 || Math.abs(i - middle) < Math.abs(cut - middle))) {
                cut = i;
            }
        }
        // Beside the text, the column header's padding and its label's: two em in all, with room to spare.
        boolean fits = probe.getLayoutBounds().getWidth() + 2 * em() <= width;
        return fits || cut < 0 ? id : id.substring(0, cut + 1) + "\n" + id.substring(cut + 1);
    }

    /** One gate for one row: a delay field and a breakpoint box. */
    private final class RuleCell extends TableCell<Row, Row> {

        private final Gate gate;
        private final TextField delay = new TextField();
        private final CheckBox breakpoint = new CheckBox();
        private final HBox box = new HBox(4, delay, breakpoint);
        private boolean updating;

        RuleCell(Gate gate) {
            this.gate = gate;
            box.setAlignment(Pos.CENTER_LEFT);
            HBox.setHgrow(delay, Priority.ALWAYS);
            delay.setPrefColumnCount(3);
            delay.setMinWidth(2.5 * em());
            delay.getStyleClass().add("delay-field");
            delay.setOnAction(e -> commit());
            delay.focusedProperty().addListener((o, was, is) -> {
                if (!is) {
                    commit();
                }
            });
            breakpoint.selectedProperty().addListener((o, a, b) -> {
                if (!updating) {
                    commit();
                }
            });
            breakpoint.getStyleClass().add("breakpoint-box");
            breakpoint.setMinWidth(Region.USE_PREF_SIZE);
            breakpoint.setTooltip(new Tooltip(gate.isFault() ? "Breakpoint: arm the fault, and halt at "
                    + gate.id() + " until stepped" : "Breakpoint: halt at " + gate.id() + " until stepped"));
        }

        @Override
        protected void updateItem(Row row, boolean empty) {
            super.updateItem(row, empty);
            if (empty || row == null) {
                setGraphic(null);
                return;
            }
            updating = true;
            GatePlan plan = session.gatesProperty().get();
            boolean own = row.index() < 0 || plan.hasOwnRule(gate.id(), row.index());
            GateRule rule = row.index() < 0 ? plan.ruleForAll(gate.id()) : plan.rule(gate.id(), row.index());
            delay.setText(own ? rule.delayText() : "");
            delay.setPromptText(own ? "ms" : plan.ruleForAll(gate.id()).delayText().isEmpty()
                    ? "ms" : plan.ruleForAll(gate.id()).delayText());
            breakpoint.setSelected(rule.breakpoint());
            delay.getStyleClass().remove("invalid");
            delay.setTooltip(new Tooltip((gate.isFault() ? "Arms the fault " + gate.id() + " after a delay in ms: 0, 5, "
                    + "or a range like 2-20" : "Delay in ms at " + gate.id() + ": 5, or a range like 2-20")
                    + (row.index() >= 0 ? "; empty follows the all-workers row" : "")));
            boolean haltedHere = row.index() >= 0 && row.index() < haltedAt.length && haltedAt[row.index()] == gate;
            pseudoClassStateChanged(javafx.css.PseudoClass.getPseudoClass("halted-here"), haltedHere);
            updating = false;
            setGraphic(box);
        }

        private void commit() {
            Row row = getItem();
            if (row == null || updating) {
                return;
            }
            String text = delay.getText().strip();
            GateRule rule;
            try {
                rule = text.isEmpty() ? GateRule.PASS : GateRule.parseDelay(text);
            } catch (IllegalArgumentException e) {
                if (!delay.getStyleClass().contains("invalid")) {
                    delay.getStyleClass().add("invalid");
                }
                delay.setTooltip(new Tooltip(e.getMessage()));
                return;
            }
            delay.getStyleClass().remove("invalid");
            rule = rule.withBreakpoint(breakpoint.isSelected());
            GatePlan plan = session.gatesProperty().get();
            if (row.index() < 0) {
                plan = plan.with(gate.id(), rule);
            } else if (text.isEmpty() && !breakpoint.isSelected()) {
                plan = plan.withoutOwnRule(gate.id(), row.index());
            } else {
                plan = plan.with(gate.id(), row.index(), rule);
            }
            if (!plan.equals(session.gatesProperty().get())) {
                session.gatesProperty().set(plan);
            }
        }
    }
}
