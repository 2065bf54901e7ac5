package dev.racelab.ui.shell;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.ui.look.Palette;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.shape.Rectangle;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What the colours and marks on the timeline mean, under it: the states this run has shown so far.
 * Wraps onto a second line where the window is narrow (presenter mode): nothing in it is cut.
 * Touched on the FX thread only.
 */
final class TimelineLegend extends FlowPane {

    private static final Set<ActorState> DEFAULT_LEGEND = EnumSet.of(ActorState.RUNNING, ActorState.WAITING,
            ActorState.HOLDING, ActorState.DELAYED, ActorState.AT_GATE);
    private static final Set<EventKind> DEFAULT_MARKS = EnumSet.of(EventKind.VIOLATION);

    /** The timeline model shown, or null: it names the ✕ marks. */
    private final Supplier<TimelineModel> shown;
    private Set<ActorState> legendStates = EnumSet.noneOf(ActorState.class);
    private Set<EventKind> legendMarks = EnumSet.noneOf(EventKind.class);
    /** What the legend calls the ✕ marks: the lab's name for them ("overwriting writes"), or null. */
    private String legendViolations;

    TimelineLegend(Supplier<TimelineModel> shown) {
        super(12, 2);
        this.shown = shown;
        getStyleClass().add("legend");
        setAlignment(Pos.CENTER_LEFT);
        setMinWidth(0);
        // Whole: when a long verdict below takes room, the timeline's lanes give it up.
        setMinHeight(Region.USE_PREF_SIZE);
        showDefaults();
    }

    /** The chips a run starts with. */
    void showDefaults() {
        showLegend(DEFAULT_LEGEND, DEFAULT_MARKS);
    }

    /** The same chips again, in the colours of the theme now chosen. */
    void redraw() {
        showLegend(legendStates, legendMarks);
    }

    /** Adds the states and marks {@code model} has shown that the legend does not name yet. */
    void widen(TimelineModel model) {
        if (!legendStates.containsAll(model.statesSeen()) || !legendMarks.containsAll(model.marksSeen())
                || !Objects.equals(legendViolations, model.violationSubject())) {
            EnumSet<ActorState> states = EnumSet.copyOf(legendStates);
            states.addAll(model.statesSeen());
            EnumSet<EventKind> marks = EnumSet.copyOf(legendMarks);
            marks.addAll(model.marksSeen());
            showLegend(states, marks);
        }
    }

    /**
     * Shows a chip for each state and each kind of mark, in the words of the vocabulary
     * ({@link ActorState#legend()}, {@link EventKind#legend()}).
     */
    private void showLegend(Set<ActorState> states, Set<EventKind> marks) {
        legendStates = EnumSet.copyOf(states);
        legendMarks = EnumSet.copyOf(marks);
        getChildren().clear();
        // States drawn in one colour (a hungry philosopher is a waiting one) share a chip.
        Map<Color, String> chips = new LinkedHashMap<>();
        for (ActorState state : legendStates) {
            if (state.legend() != null) {
                chips.merge(Palette.of(state.ink()), state.legend(), (a, b) -> a + " / " + b);
            }
        }
        chips.forEach((color, text) -> getChildren().add(chip(text, color)));
        TimelineModel model = shown.get();
        legendViolations = model == null ? null : model.violationSubject();
        for (EventKind kind : legendMarks) {
            if (kind == EventKind.VIOLATION && legendViolations != null) {
                getChildren().add(mark("✕ " + legendViolations, kind.ink()));
            } else if (kind.legend() != null) {
                getChildren().add(mark(kind.legend(), kind.ink()));
            }
        }
        Label stripe = new Label("thin stripe under a worker: what the server says (orange waits, blue holds)");
        stripe.getStyleClass().add("hint");
        stripe.setMinWidth(0);
        getChildren().add(stripe);
    }

    private static Label mark(String text, Ink ink) {
        Label label = new Label(text);
        label.getStyleClass().add("legend-chip");
        label.setTextFill(Palette.of(ink));
        label.setMinWidth(Region.USE_PREF_SIZE);
        return label;
    }

    private static Label chip(String text, Color color) {
        Rectangle swatch = new Rectangle(12, 12, color);
        swatch.setStroke(color.darker());
        Label label = new Label(text, swatch);
        label.getStyleClass().add("legend-chip");
        label.setMinWidth(Region.USE_PREF_SIZE);
        return label;
    }
}
