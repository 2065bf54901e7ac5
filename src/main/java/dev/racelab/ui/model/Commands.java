package dev.racelab.ui.model;

import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunPhase;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.binding.StringBinding;
import javafx.beans.value.ObservableBooleanValue;
import javafx.beans.value.ObservableObjectValue;

import java.util.EnumSet;
import java.util.Set;

/**
 * What the user can do now, derived from the session's phase, whether an opened recording is
 * shown and whether the shown run has an outcome: the controls bind to these instead of setting
 * their states by hand. An opened recording is not live, so it has no run to pause, step or stop.
 * Plain observable values (no toolkit needed), read on the FX thread.
 */
public final class Commands {

    private static final Set<RunPhase> RUNNABLE = EnumSet.of(RunPhase.READY, RunPhase.PAUSED, RunPhase.ENDED);
    private static final Set<RunPhase> STEPPABLE = EnumSet.of(RunPhase.READY, RunPhase.PAUSED, RunPhase.RUNNING);
    private static final Set<RunPhase> STOPPABLE = EnumSet.of(RunPhase.PREPARING, RunPhase.RUNNING, RunPhase.PAUSED);

    private final BooleanBinding run;
    private final StringBinding runWords;
    private final BooleanBinding pause;
    private final BooleanBinding step;
    private final BooleanBinding stop;
    private final BooleanBinding reset;
    private final BooleanBinding changeSettings;
    private final BooleanBinding save;
    private final BooleanBinding runAgain;

    /**
     * @param scheduled whether the live run follows a schedule: then only Stop and Reset apply
     * @param hosting   whether the window hosts a class: Run starts the class's run, and nothing runs
     *                  a run of the window's own again
     */
    Commands(ObservableObjectValue<RunPhase> phase, ObservableBooleanValue replaying,
            ObservableObjectValue<Outcome> outcome, ObservableBooleanValue scheduled, ObservableBooleanValue hosting) {
        run = live(phase, replaying, RUNNABLE).and(Bindings.createBooleanBinding(
                () -> !(scheduled.get() && phase.get() == RunPhase.PAUSED), scheduled, phase));
        runWords = Bindings.createStringBinding(() -> phase.get() == RunPhase.PAUSED ? "Resume"
                : phase.get() == RunPhase.ENDED && !replaying.get() ? "Run again" : "Run", phase, replaying);
        pause = live(phase, replaying, EnumSet.of(RunPhase.RUNNING)).and(Bindings.not(scheduled));
        step = live(phase, replaying, STEPPABLE).and(Bindings.not(scheduled));
        stop = live(phase, replaying, STOPPABLE);
        reset = Bindings.createBooleanBinding(() -> phase.get() != null && phase.get() != RunPhase.STOPPING, phase);
        changeSettings = Bindings.createBooleanBinding(() -> phase.get() == null || phase.get() == RunPhase.READY
                || phase.get() == RunPhase.ENDED, phase);
        save = Bindings.createBooleanBinding(() -> outcome.get() != null, outcome);
        runAgain = save.and(Bindings.not(hosting));
    }

    /** True in {@code phases}, and never while an opened recording is shown. */
    private static BooleanBinding live(ObservableObjectValue<RunPhase> phase, ObservableBooleanValue replaying,
            Set<RunPhase> phases) {
        return Bindings.createBooleanBinding(() -> !replaying.get() && phase.get() != null
                && phases.contains(phase.get()), phase, replaying);
    }

    /** Run: start the prepared run, resume a paused one, or run again after one that ended. */
    public BooleanBinding canRun() {
        return run;
    }

    /** What Run does now: "Run", "Resume" or "Run again". */
    public StringBinding runWords() {
        return runWords;
    }

    public BooleanBinding canPause() {
        return pause;
    }

    public BooleanBinding canStep() {
        return step;
    }

    public BooleanBinding canStop() {
        return stop;
    }

    /** Reset: a fresh run with the settings shown (not while a stopped run's workers are leaving). */
    public BooleanBinding canReset() {
        return reset;
    }

    /** Strategy, workers, operations, switches and batches: while nothing runs. */
    public BooleanBinding canChangeSettings() {
        return changeSettings;
    }

    /** Save the shown run: once it has an outcome. */
    public BooleanBinding canSave() {
        return save;
    }

    /** Run the shown run's settings again, live: once it has an outcome, and not while hosting a class. */
    public BooleanBinding canRunAgain() {
        return runAgain;
    }
}
