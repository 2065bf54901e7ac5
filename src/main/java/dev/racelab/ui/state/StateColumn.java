package dev.racelab.ui.state;

import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.ui.look.FxSketch;
import dev.racelab.ui.look.Palette;
import javafx.geometry.HPos;
import javafx.geometry.Insets;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.shape.Circle;
import javafx.scene.text.Font;

import java.util.List;

/**
 * The right-hand column: the lab's picture on top, its panels below, redrawn from the lab's
 * {@link LabView} when its version changes — at most {@link #MAX_REFRESH_PER_SECOND} times a
 * second, since rebuilding nodes every frame would cost more than it shows.
 */
public final class StateColumn extends VBox {

    public static final String STYLE = "state-column";
    private static final int MAX_REFRESH_PER_SECOND = 12;
    private static final int MAX_TABLE_ROWS = 24;

    private final Canvas picture = new Canvas();
    private final Region pictureBox = new Region() {
        {
            getChildren().add(picture);
        }

        @Override
        protected double computePrefWidth(double height) {
            return 0;
        }

        @Override
        protected void layoutChildren() {
            picture.setWidth(getWidth() - snappedLeftInset() - snappedRightInset());
            picture.setHeight(getHeight() - snappedTopInset() - snappedBottomInset());
            picture.relocate(snappedLeftInset(), snappedTopInset());
        }
    };
    private final VBox panels = new VBox();
    private LabView view;
    private List<Panel> shownPanels = List.of();
    private long drawnVersion = -1;
    private long lastRefresh;
    private double drawnWidth;
    private double drawnHeight;
    private double em = Font.getDefault().getSize();
    /** The title of the panel a walkthrough points at, or null. */
    private String pointed;

    public StateColumn() {
        getStyleClass().add(STYLE);
        pictureBox.getStyleClass().add("picture");
        pictureBox.setMinHeight(0);
        panels.getStyleClass().add("panels");
        ScrollPane scroller = new ScrollPane(panels);
        scroller.setFitToWidth(true);
        scroller.getStyleClass().add("panels-scroll");
        VBox.setVgrow(scroller, Priority.ALWAYS);
        getChildren().addAll(pictureBox, scroller);
    }

    /** Shows another view (another run). */
    public void setView(LabView next) {
        view = next;
        drawnVersion = -1;
        boolean hasPicture = next != null && next.hasPicture();
        pictureBox.setVisible(hasPicture);
        pictureBox.setManaged(hasPicture);
        refresh(0);
    }

    /** Redraws if the view changed; {@code nowNanos} throttles the refresh rate. */
    public void refresh(long nowNanos) {
        if (view == null) {
            shownPanels = List.of();
            panels.getChildren().clear();
            return;
        }
        boolean resized = picture.getWidth() != drawnWidth || picture.getHeight() != drawnHeight;
        boolean changed = view.version() != drawnVersion;
        if (!changed && !resized) {
            return;
        }
        if (!resized && drawnVersion >= 0 && nowNanos - lastRefresh < 1_000_000_000L / MAX_REFRESH_PER_SECOND) {
            return;
        }
        lastRefresh = nowNanos;
        drawnVersion = view.version();
        if (view.hasPicture() && picture.getWidth() > 0 && picture.getHeight() > 0) {
            drawnWidth = picture.getWidth();
            drawnHeight = picture.getHeight();
            picture.getGraphicsContext2D().clearRect(0, 0, drawnWidth, drawnHeight);
            view.draw(new FxSketch(picture, em));
        }
        shownPanels = view.panels();
        panels.getChildren().setAll(shownPanels.stream().map(panel -> {
            Region node = node(panel);
            if (pointed != null && panel.title().toLowerCase().contains(pointed.toLowerCase())) {
                node.getStyleClass().add("pointed");
            }
            return node;
        }).toList());
    }

    /** The panels as last drawn. */
    public List<Panel> shownPanels() {
        return shownPanels;
    }

    /** Redraws now, whatever the rate: the run ended, and the picture must agree with the verdict at once. */
    public void refreshNow() {
        drawnVersion = -1;
        refresh(System.nanoTime());
    }

    /**
     * Points at the panel whose title holds {@code title} (a walkthrough's "look here"), or at
     * none for null; it stays pointed at as the panels are redrawn.
     */
    public void point(String title) {
        pointed = title;
        refreshNow();
    }

    /** The base font size in pixels, for the picture. */
    public void setEm(double size) {
        em = size;
        drawnVersion = -1;
    }

    /** The picture's height, as a share of the column, for labs with a picture. */
    public Region pictureBox() {
        return pictureBox;
    }

    private static Region node(Panel panel) {
        VBox box = new VBox();
        box.getStyleClass().add("panel");
        Label title = new Label(panel.title());
        title.getStyleClass().add("panel-title");
        box.getChildren().add(title);
        if (panel instanceof Panel.Values values) {
            box.getChildren().add(values(values.rows()));
        } else if (panel instanceof Panel.Items items) {
            if (items.items().isEmpty()) {
                Label empty = new Label(items.whenEmpty());
                empty.getStyleClass().add("panel-empty");
                box.getChildren().add(empty);
            }
            for (Panel.Item item : items.items()) {
                Label label = new Label(item.text(), dot(Palette.of(item.ink())));
                label.setWrapText(true);
                box.getChildren().add(label);
            }
        } else if (panel instanceof Panel.Table table) {
            box.getChildren().add(table(table));
        }
        return box;
    }

    private static GridPane values(List<Panel.Value> rows) {
        GridPane grid = grid();
        for (int r = 0; r < rows.size(); r++) {
            Panel.Value row = rows.get(r);
            Label label = new Label(row.label(), dot(Palette.of(row.ink())));
            Label value = new Label(row.value());
            value.getStyleClass().add("panel-value");
            grid.addRow(r, label, value);
            GridPane.setHalignment(value, HPos.RIGHT);
        }
        return grid;
    }

    private static GridPane table(Panel.Table table) {
        GridPane grid = grid();
        for (int c = 0; c < table.columns().size(); c++) {
            Label head = new Label(table.columns().get(c));
            head.getStyleClass().add("panel-head");
            grid.add(head, c, 0);
        }
        int shown = Math.min(MAX_TABLE_ROWS, table.rows().size());
        for (int r = 0; r < shown; r++) {
            List<String> row = table.rows().get(r);
            for (int c = 0; c < row.size(); c++) {
                grid.add(new Label(row.get(c)), c, r + 1);
            }
        }
        if (table.rows().size() > shown) {
            Label more = new Label("… and " + (table.rows().size() - shown) + " more");
            more.getStyleClass().add("panel-empty");
            grid.add(more, 0, shown + 1, table.columns().size(), 1);
        }
        if (table.rows().isEmpty()) {
            Label empty = new Label("nothing yet");
            empty.getStyleClass().add("panel-empty");
            grid.add(empty, 0, 1, table.columns().size(), 1);
        }
        return grid;
    }

    private static GridPane grid() {
        GridPane grid = new GridPane();
        grid.getStyleClass().add("panel-grid");
        ColumnConstraints grow = new ColumnConstraints();
        grow.setHgrow(Priority.ALWAYS);
        grid.getColumnConstraints().add(grow);
        grid.setPadding(new Insets(2, 0, 0, 0));
        return grid;
    }

    private static Circle dot(Color color) {
        Circle dot = new Circle(Font.getDefault().getSize() * 0.3, color);
        dot.setStroke(color.darker());
        return dot;
    }
}
