package dev.racelab.ui.walkthrough;

import dev.racelab.walkthrough.Walkthrough;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

import java.util.function.Consumer;

/**
 * A walkthrough as the class sees it: a strip under the controls with the step's heading and
 * words, where it stands ("step 2 of 5"), and Back, Next and Close. Showing a step is the window's
 * business ({@code onStep}: set the lab up, run, point); this strip only says it and moves
 * through the steps. Clickers send Page Down and Page Up, which move it too (see the window's keys).
 * Owned by the FX thread.
 */
public final class WalkthroughBar extends VBox {

    public static final String STYLE = "walkthrough-bar";

    private final Label where = new Label();
    private final Label heading = new Label();
    private final Label words = new Label();
    private final Button back = new Button("◀ Back");
    private final Button next = new Button("Next ▶");
    private final Button close = new Button("✕");
    private final ReadOnlyObjectWrapper<Walkthrough> shown = new ReadOnlyObjectWrapper<>(this, "walkthrough");
    private final ReadOnlyIntegerWrapper step = new ReadOnlyIntegerWrapper(this, "step", -1);
    private final Consumer<Walkthrough.Step> onStep;

    /** @param onStep sets the window up for a step and runs what it asks; called on the FX thread */
    public WalkthroughBar(Consumer<Walkthrough.Step> onStep) {
        this.onStep = onStep;
        getStyleClass().add(STYLE);
        where.getStyleClass().add("walkthrough-where");
        heading.getStyleClass().add("walkthrough-heading");
        heading.setWrapText(true);
        words.getStyleClass().add("walkthrough-words");
        words.setWrapText(true);
        words.setMinHeight(Region.USE_PREF_SIZE);
        back.setId("walkthrough-back");
        next.setId("walkthrough-next");
        close.setId("walkthrough-close");
        back.setTooltip(new Tooltip("The step before (Page Up, ←)"));
        next.setTooltip(new Tooltip("The next step (Page Down, →)"));
        close.setTooltip(new Tooltip("Close the walkthrough (Esc)"));
        back.setOnAction(e -> move(-1));
        next.setOnAction(e -> move(1));
        close.setOnAction(e -> close());
        next.getStyleClass().add("walkthrough-next");
        Region spring = new Region();
        HBox.setHgrow(spring, Priority.ALWAYS);
        HBox top = new HBox(10, where, heading, spring, back, next, close);
        top.setAlignment(Pos.CENTER_LEFT);
        HBox.setHgrow(heading, Priority.SOMETIMES);
        getChildren().addAll(top, words);
        setVisible(false);
        setManaged(false);
    }

    /** Opens {@code walkthrough} at its first step. */
    public void open(Walkthrough walkthrough) {
        shown.set(walkthrough);
        setVisible(true);
        setManaged(true);
        go(0);
    }

    /** Closes the walkthrough; the window stays as the last step left it. */
    public void close() {
        shown.set(null);
        step.set(-1);
        setVisible(false);
        setManaged(false);
    }

    /** Moves {@code by} steps (a clicker's Page Down is +1); nothing past either end. */
    public void move(int by) {
        Walkthrough walkthrough = shown.get();
        if (walkthrough == null) {
            return;
        }
        int to = step.get() + by;
        if (to >= 0 && to < walkthrough.steps().size()) {
            go(to);
        }
    }

    public boolean isOpen() {
        return shown.get() != null;
    }

    public ReadOnlyObjectProperty<Walkthrough> walkthroughProperty() {
        return shown.getReadOnlyProperty();
    }

    /** The step shown, from 0; -1 when closed. */
    public ReadOnlyIntegerProperty stepProperty() {
        return step.getReadOnlyProperty();
    }

    private void go(int index) {
        Walkthrough walkthrough = shown.get();
        Walkthrough.Step current = walkthrough.steps().get(index);
        step.set(index);
        where.setText(walkthrough.title() + " · " + (index + 1) + " of " + walkthrough.steps().size());
        heading.setText(current.title());
        words.setText(current.text());
        back.setDisable(index == 0);
        next.setDisable(index == walkthrough.steps().size() - 1);
        onStep.accept(current);
    }
}
