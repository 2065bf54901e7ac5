package dev.racelab.ui;

import dev.racelab.engine.Clock;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.view.LabView;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;

import java.util.List;

/**
 * What the window is working on: the chosen lab, the settings of the next run, and the run
 * itself, with the commands a user gives (run, pause, step, stop, reset).
 *
 * <p>Settings are plain properties the controls bind to. The run, its state, its view and its
 * outcome are read-only: they change only through the commands and {@link #tick}, which the
 * window calls once per frame to pick up what the run's threads did. Owned by the FX thread.
 * Nothing here blocks: starting a run hands the servers to the run's own supervisor thread.
 */
public final class Session {

    private final Clock clock;
    private final ReadOnlyObjectWrapper<Lab> lab = new ReadOnlyObjectWrapper<>(this, "lab");
    private final ObjectProperty<Strategy> strategy = new SimpleObjectProperty<>(this, "strategy");
    private final IntegerProperty workers = new SimpleIntegerProperty(this, "workers");
    private final IntegerProperty ops = new SimpleIntegerProperty(this, "ops");
    private final ObjectProperty<GatePlan> gates = new SimpleObjectProperty<>(this, "gates", GatePlan.NONE);
    private final BooleanProperty stepMode = new SimpleBooleanProperty(this, "stepMode");
    private final DoubleProperty delayScale = new SimpleDoubleProperty(this, "delayScale", 1);
    private final ReadOnlyObjectWrapper<Run> run = new ReadOnlyObjectWrapper<>(this, "run");
    private final ReadOnlyObjectWrapper<Run.State> state = new ReadOnlyObjectWrapper<>(this, "state");
    private final ReadOnlyObjectWrapper<Outcome> outcome = new ReadOnlyObjectWrapper<>(this, "outcome");
    private LabView view;
    private boolean rebuilding;

    public Session(Clock clock) {
        this.clock = clock;
        strategy.addListener((o, a, b) -> freshRunIfIdle());
        workers.addListener((o, a, b) -> freshRunIfIdle());
        ops.addListener((o, a, b) -> freshRunIfIdle());
        stepMode.addListener((o, a, b) -> freshRunIfIdle());
        gates.addListener((o, a, b) -> {
            Run current = run.get();
            if (current != null && current.state() != Run.State.ENDED && b != null) {
                current.gates().setPlan(b);
            }
        });
        delayScale.addListener((o, a, b) -> {
            Run current = run.get();
            if (current != null) {
                current.gates().setDelayScale(b.doubleValue());
            }
        });
    }

    public Clock clock() {
        return clock;
    }

    /** Chooses a lab: stops any run, takes the lab's defaults, and prepares a fresh run. */
    public void select(Lab next) {
        stopRun();
        rebuilding = true;
        try {
            lab.set(next);
            strategy.set(next.defaultStrategy());
            workers.set(next.defaultWorkers());
            ops.set(next.defaultOps());
            gates.set(GatePlan.NONE);
        } finally {
            rebuilding = false;
        }
        freshRun();
    }

    /** Starts the prepared run, resumes a paused one, or starts afresh after one that ended. */
    public void start() {
        Run current = run.get();
        if (current == null) {
            return;
        }
        switch (current.state()) {
            case PAUSED -> {
                current.resume();
                stepMode.set(false);
            }
            case ENDED -> {
                freshRun();
                run.get().start();
            }
            case READY -> current.start();
            default -> {
            }
        }
        tick();
    }

    /** Halts every worker at its next gate. */
    public void pause() {
        Run current = run.get();
        if (current != null) {
            stepMode.set(true);
            current.pause();
            tick();
        }
    }

    /**
     * Releases worker {@code index} to its next gate; with {@code index} -1, the first halted one.
     *
     * @return whether a worker was released
     */
    public boolean step(int index) {
        Run current = run.get();
        if (current == null) {
            return false;
        }
        if (current.state() == Run.State.READY) {
            stepMode.set(true);
            freshRun();
            run.get().start();
            return true;
        }
        if (index >= 0) {
            return current.step(index);
        }
        List<Integer> halted = current.gates().halted();
        return !halted.isEmpty() && current.step(halted.get(0));
    }

    /** Stops the run; its outcome follows when its workers are gone. */
    public void stop() {
        stopRun();
        tick();
    }

    /** Stops any run and prepares a fresh one with the current settings. */
    public void reset() {
        stopRun();
        freshRun();
    }

    /** Picks up what the run did since the last frame. */
    public void tick() {
        Run current = run.get();
        if (current == null) {
            return;
        }
        state.set(current.state());
        if (outcome.get() == null && current.outcome().isDone()) {
            outcome.set(current.outcome().getNow(null));
        }
    }

    private void stopRun() {
        Run current = run.get();
        if (current != null && current.state() != Run.State.ENDED) {
            current.stop();
        }
    }

    private void freshRunIfIdle() {
        Run current = run.get();
        if (!rebuilding && lab.get() != null && (current == null || current.state() == Run.State.READY
                || current.state() == Run.State.ENDED)) {
            freshRun();
        }
    }

    private void freshRun() {
        Lab current = lab.get();
        RunSpec spec = RunSpec.defaults(current)
                .withStrategy(strategy.get().id())
                .withWorkers(Math.max(current.minWorkers(), Math.min(current.maxWorkers(), workers.get())))
                .withOps(Math.max(1, ops.get()))
                .withGates(gates.get())
                .withStepMode(stepMode.get())
                .withObserve(true);
        Run fresh = new Run(current, spec, clock);
        fresh.gates().setDelayScale(delayScale.get());
        view = current.view(fresh);
        outcome.set(null);
        run.set(fresh);
        state.set(fresh.state());
    }

    public ReadOnlyObjectProperty<Lab> labProperty() {
        return lab.getReadOnlyProperty();
    }

    public Lab lab() {
        return lab.get();
    }

    public ObjectProperty<Strategy> strategyProperty() {
        return strategy;
    }

    public IntegerProperty workersProperty() {
        return workers;
    }

    public IntegerProperty opsProperty() {
        return ops;
    }

    public ObjectProperty<GatePlan> gatesProperty() {
        return gates;
    }

    /** Start runs with every worker halting at every gate. */
    public BooleanProperty stepModeProperty() {
        return stepMode;
    }

    /** Multiplies every delay: 2 is slow motion. */
    public DoubleProperty delayScaleProperty() {
        return delayScale;
    }

    public ReadOnlyObjectProperty<Run> runProperty() {
        return run.getReadOnlyProperty();
    }

    public Run run() {
        return run.get();
    }

    public ReadOnlyObjectProperty<Run.State> stateProperty() {
        return state.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Outcome> outcomeProperty() {
        return outcome.getReadOnlyProperty();
    }

    /** The lab's view of the current run. */
    public LabView view() {
        return view;
    }
}
