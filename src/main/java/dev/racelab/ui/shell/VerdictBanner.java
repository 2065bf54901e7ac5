package dev.racelab.ui.shell;

import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.ui.timeline.TimelineView;
import javafx.css.PseudoClass;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The verdict in words, red for a race and green when safe, with buttons that walk the timeline
 * from one ✕ mark to the next, named as the lab names them ("11 overwriting writes"). While a run goes it says how far it got.
 */
public final class VerdictBanner extends HBox {

    public static final String STYLE = "verdict-banner";
    private static final PseudoClass SAFE = PseudoClass.getPseudoClass("safe");
    private static final PseudoClass RACE = PseudoClass.getPseudoClass("race");
    private static final PseudoClass ERROR = PseudoClass.getPseudoClass("error");

    private final Label headline = new Label();
    private final Label explanation = new Label();
    private final Label position = new Label();
    private final Button previous = new Button("◀");
    private final Button next = new Button("▶");
    /** On the idle banner, the way into the lab's walkthrough: one click from the first screen. */
    private final Button guide = new Button("▶ Guided walkthrough");
    private final TimelineView timeline;
    private Outcome outcome;
    private int current = -1;

    public VerdictBanner(TimelineView timeline) {
        this.timeline = timeline;
        getStyleClass().add(STYLE);
        headline.getStyleClass().add("verdict-headline");
        headline.setId("verdict");
        headline.setWrapText(true);
        headline.setMinHeight(Region.USE_PREF_SIZE);
        explanation.getStyleClass().add("verdict-explanation");
        explanation.setWrapText(true);
        explanation.setMinHeight(Region.USE_PREF_SIZE);
        VBox words = new VBox(2, headline, explanation);
        HBox.setHgrow(words, Priority.ALWAYS);
        previous.setTooltip(new Tooltip("Previous ✕ mark on the timeline (F7)"));
        next.setTooltip(new Tooltip("Next ✕ mark on the timeline (F8)"));
        previous.setOnAction(e -> step(-1));
        next.setOnAction(e -> step(1));
        position.getStyleClass().add("verdict-position");
        position.setMinWidth(Region.USE_PREF_SIZE);
        HBox walk = new HBox(6, previous, position, next);
        walk.setAlignment(Pos.CENTER_RIGHT);
        walk.setMinWidth(Region.USE_PREF_SIZE);
        walk.visibleProperty().bind(next.disableProperty().not().or(previous.disableProperty().not()));
        walk.managedProperty().bind(walk.visibleProperty());
        guide.setId("walkthrough-button");
        guide.getStyleClass().add("guide-button");
        guide.setMinWidth(Region.USE_PREF_SIZE);
        guide.setTooltip(new Tooltip("A short lesson on this lab: provoke the race, see it, fix it, check the fix (F2)"));
        guide.managedProperty().bind(guide.visibleProperty());
        setAlignment(Pos.CENTER_LEFT);
        getChildren().addAll(words, guide, walk);
        showIdle("Choose a lab, set a delay at a gate, and press Run (F5).");
    }

    /** The headline as shown: "RACE — 37 increments lost". */
    public String headlineText() {
        return headline.getText();
    }

    /** What the idle banner's walkthrough button does. */
    public void onGuide(Runnable action) {
        guide.setOnAction(e -> action.run());
    }

    public void showIdle(String text) {
        outcome = null;
        setState(null);
        guide.setVisible(true);
        headline.setText("Ready");
        explanation.setText(text);
        enableWalk();
    }

    /**
     * The servers a run still preparing waits for ("PostgreSQL"), and what they are doing, as the
     * status bar says ("Starting embedded PostgreSQL…").
     */
    public record Awaited(String servers, String status) {
    }

    /** How far the run got, as its record says; {@code waitingFor} is null unless a server is still coming up. */
    public void showProgress(RunTracker run, Awaited waitingFor) {
        guide.setVisible(false);
        if (outcome != null) {
            outcome = null;
            setState(null);
        }
        long planned = run.opsPlanned();
        String done = run.opsDone() + " of " + planned + " operations done.";
        boolean waiting = run.phase() == RunPhase.PREPARING && waitingFor != null;
        set(headline, switch (run.phase()) {
            case PREPARING -> waiting ? "Waiting for " + waitingFor.servers() + "…" : "Preparing…";
            case PAUSED -> "Paused — step mode";
            case STOPPING -> "Stopping…";
            default -> "Running…";
        });
        set(explanation, run.phase() == RunPhase.PAUSED
                ? "Workers halt at every gate. Select a worker and press Step (F10), or Run (F5) to go on. " + done
                : waiting ? "The run starts as soon as " + waitingFor.servers() + " is ready: "
                        + waitingFor.status() + " " + done
                : done);
        if (!previous.isDisabled()) {
            enableWalk();
        }
    }

    /** Sets a label's text only when it changes: called every frame while a run goes. */
    private static void set(Label label, String text) {
        if (!text.equals(label.getText())) {
            label.setText(text);
        }
    }

    public void showOutcome(Outcome result) {
        guide.setVisible(false);
        outcome = result;
        current = -1;
        setState(result.verdict());
        headline.setText(result.banner());
        explanation.setText(result.explanation());
        enableWalk();
    }

    /** Walks to the previous (-1) or next (+1) ✕ mark. */
    public void step(int direction) {
        int count = timeline.model() == null ? 0 : timeline.model().violations();
        if (outcome == null || count == 0) {
            return;
        }
        current = Math.floorMod(current + direction, count);
        timeline.showViolation(current);
        enableWalk();
    }

    private void enableWalk() {
        int count = outcome == null || timeline.model() == null ? 0 : timeline.model().violations();
        previous.setDisable(count == 0);
        next.setDisable(count == 0);
        String marks = count == 0 ? null : timeline.model().violationSubject();
        position.setText(count == 0 ? "" : current < 0 ? count + " " + (count == 1 ? one(marks) : many(marks))
                : one(marks) + " " + (current + 1) + " of " + count);
        String meaning = count == 0 ? null : meaning(count, marks);
        if (meaning == null) {
            position.setTooltip(null);
        } else if (position.getTooltip() == null) {
            position.setTooltip(new Tooltip(meaning));
        } else if (!meaning.equals(position.getTooltip().getText())) {
            position.getTooltip().setText(meaning);
        }
    }

    /**
     * What the ✕ marks are beside the verdict's figure: the lab names them (the VIOLATION events'
     * subject); where the oracle counts the same thing the numbers agree, and where it counts
     * something else (one overwriting write can lose several increments) the tooltip says so.
     */
    private String meaning(int count, String marks) {
        String these = count + " " + (count == 1 ? one(marks) : many(marks));
        Long counted = marks == null ? null : outcome.violations().get(marks);
        if (counted != null && counted == count) {
            return "Each ✕ on the timeline is one of the " + these + " the verdict counts. F7 / F8 walk them.";
        }
        return "Each ✕ on the timeline marks one of the " + these + ". The verdict counts something else: "
                + outcome.headline() + " (the explanation says how they relate). F7 / F8 walk the marks.";
    }

    /** The marks' name: "overwriting writes", or "marks" when the lab gave them different names. */
    private static String many(String subject) {
        return subject == null ? "✕ marks" : subject;
    }

    /** One mark's name: "overwriting write" (the first plural word made singular). */
    static String one(String subject) {
        if (subject == null) {
            return "✕ mark";
        }
        String[] words = subject.split(" ");
        for (int i = 0; i < words.length; i++) {
            if (words[i].length() > 2 && words[i].endsWith("s") && !words[i].endsWith("ss")) {
                words[i] = words[i].substring(0, words[i].length() - 1);
                return String.join(" ", words);
            }
        }
        return subject;
    }

    private void setState(Verdict verdict) {
        pseudoClassStateChanged(SAFE, verdict == Verdict.SAFE);
        pseudoClassStateChanged(RACE, verdict == Verdict.RACE || verdict == Verdict.DEADLOCK
                || verdict == Verdict.STUCK);
        pseudoClassStateChanged(ERROR, verdict == Verdict.ERROR);
    }
}
