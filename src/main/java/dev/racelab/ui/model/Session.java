package dev.racelab.ui.model;

import dev.racelab.engine.Clock;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.view.LabView;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;


import javafx.collections.ObservableList;

import java.util.function.Function;

/**
 * What the window is working on: the chosen lab, the settings of the next run, and the record
 * shown — a live run's, or one opened from a file — with the commands a user gives (run, pause,
 * step, stop, reset, open, run again).
 *
 * <p>Settings are plain properties the controls bind to. A setting changed while nothing runs only
 * marks the settings changed; {@link #apply} turns the changes into one fresh run, however many
 * there were (Run and Step apply first, and so does {@link #tick} each frame; the other
 * commands make a fresh run or stop one). The record, the phase and
 * the outcome are read-only: they change only through the commands and {@link #tick}, which the
 * window calls once per frame to pick up what the run's threads did. What can be done now (run,
 * pause, step, …) is derived in {@link Commands}. Everything that shows a run reads its
 * {@link RunRecord}; only the commands touch the live {@link Run}. Owned by the FX thread. Nothing
 * here blocks: starting a run hands the servers to the run's own supervisor thread.
 */
public final class Session {

    private final Clock clock;
    private final Function<String, Lab> labs;
    private final ReadOnlyObjectWrapper<Lab> lab = new ReadOnlyObjectWrapper<>(this, "lab");
    private final ObjectProperty<Strategy> strategy = new SimpleObjectProperty<>(this, "strategy");
    private final IntegerProperty workers = new SimpleIntegerProperty(this, "workers");
    private final IntegerProperty ops = new SimpleIntegerProperty(this, "ops");
    private final ObjectProperty<GatePlan> gates = new SimpleObjectProperty<>(this, "gates", GatePlan.NONE);
    private final ObjectProperty<SwitchValues> switches =
            new SimpleObjectProperty<>(this, "switches", SwitchValues.DEFAULTS);
    private final BooleanProperty stepMode = new SimpleBooleanProperty(this, "stepMode");
    private final DoubleProperty delayScale = new SimpleDoubleProperty(this, "delayScale", 1);
    private final ReadOnlyObjectWrapper<Run> run = new ReadOnlyObjectWrapper<>(this, "run");
    private final ReadOnlyObjectWrapper<RunRecord> record = new ReadOnlyObjectWrapper<>(this, "record");
    private final ReadOnlyObjectWrapper<RunPhase> state = new ReadOnlyObjectWrapper<>(this, "state");
    private final ReadOnlyObjectWrapper<Outcome> outcome = new ReadOnlyObjectWrapper<>(this, "outcome");
    private final ReadOnlyBooleanWrapper replaying = new ReadOnlyBooleanWrapper(this, "replaying");
    private final LastRunRecords lastRuns = new LastRunRecords();
    private LabView view;
    private final ClassRuns classes = new ClassRuns();
    /** A setting changed while nothing ran, not applied yet: {@link #apply} prepares a fresh run with it. */
    private boolean settingsChanged;
    private final Commands commands;

    /**
     * @param labs the lab with an id, or null: to open recordings of any lab
     */
    public Session(Clock clock, Function<String, Lab> labs) {
        this.clock = clock;
        this.labs = labs;
        lab.addListener((o, a, b) -> lastRuns.show(b));
        strategy.addListener((o, a, b) -> settingChanged());
        workers.addListener((o, a, b) -> settingChanged());
        ops.addListener((o, a, b) -> settingChanged());
        stepMode.addListener((o, a, b) -> settingChanged());
        switches.addListener((o, a, b) -> settingChanged());
        gates.addListener((o, a, b) -> {
            Run current = run.get();
            if (current != null && b != null && !idle()) {
                current.setPlan(b);
            } else {
                settingChanged();
            }
        });
        delayScale.addListener((o, a, b) -> {
            Run current = run.get();
            if (current != null) {
                current.setDelayScale(b.doubleValue());
            }
        });
        // A scheduled run's order is its schedule's: nobody pauses, steps or resumes it by hand.
        commands = new Commands(state, replaying, outcome, javafx.beans.binding.Bindings.createBooleanBinding(
                this::scheduled, run, state), classes.hostingProperty());
    }

    /**
     * From now on the run commands go to a class's host ({@code controls}): a run of the window's
     * own that is going on is stopped first.
     */
    public void host(ClassControls controls) {
        stopRun();
        classes.host(controls);
    }

    /** The class {@code controls} drove has ended: the commands go to the window's own runs again. */
    public void hostEnded(ClassControls controls) {
        classes.ended(controls);
    }

    /** Whether the window hosts a class: Run starts the class's run. */
    public boolean hosting() {
        return classes.hosting();
    }

    /**
     * Shows {@code started}, a run of the chosen lab begun elsewhere: a class's run as its host runs
     * it, or ({@code participant}) this machine's share of one, whose order is the host's alone.
     */
    public void watch(Run started, boolean participant) {
        stopRun();
        Lab ran = labs.apply(started.record().header().lab());
        if (ran != null && ran != lab.get()) {
            lab.set(ran);
        }
        // The controls show the run shown: the class's lab, workers, operations and delays.
        take(lab.get(), started.record().header().spec());
        settingsChanged = false;
        classes.watch(started, participant);
        view = lab.get().view(started.record().header());
        replaying.set(false);
        outcome.set(null);
        run.set(started);
        record.set(started.record());
        state.set(started.phase());
    }

    /** What the user can do now: the controls bind to it. */
    public Commands commands() {
        return commands;
    }

    public Clock clock() {
        return clock;
    }

    /** Chooses a lab: stops any run, takes the lab's defaults, and prepares a fresh run. */
    public void select(Lab next) {
        stopRun();
        lab.set(next);
        strategy.set(next.defaultStrategy());
        workers.set(next.defaultWorkers());
        ops.set(next.defaultOps());
        gates.set(next.presetGates());
        switches.set(SwitchValues.DEFAULTS);
        freshRun();
    }

    /**
     * Shows a recorded run: its lab, its settings in the controls, its timeline, panels and verdict
     * as they were, with nothing live and no server needed.
     *
     * @throws IllegalArgumentException if RaceLab has no lab the recording names
     */
    public void open(RunRecord recorded) {
        open(recorded, null);
    }

    /**
     * Shows a recorded run of {@code lab}, as the recording gave it (a lab file's from the text the
     * recording carries); null: the lab its id names.
     */
    public void open(RunRecord recorded, Lab given) {
        Lab recordedLab = given != null ? given : labs.apply(recorded.header().lab());
        if (recordedLab == null) {
            throw new IllegalArgumentException("this RaceLab has no lab '" + recorded.header().lab() + "'");
        }
        stopRun();
        run.set(null);
        lab.set(recordedLab);
        take(recordedLab, recorded.header().spec());
        // The settings taken are the recording's own: it, not a fresh run, is what they describe.
        settingsChanged = false;
        view = recordedLab.view(recorded.header());
        replaying.set(true);
        // Cleared first: the same outcome opened again (a file saved and opened) is still news.
        outcome.set(null);
        record.set(recorded);
        state.set(RunPhase.ENDED);
        outcome.set(recorded.outcome());
    }

    /** Runs the shown record's settings again, live, against the servers: one action from a recording. */
    public void runAgain() {
        RunRecord shown = record.get();
        if (shown == null || classes.hosting()) {
            return;
        }
        stopRun();
        take(lab.get(), shown.header().spec());
        freshRun();
        run.get().start();
        tick();
    }

    /**
     * Runs {@code spec} of lab {@code of} now, live: a schedule an exploration found, played passage
     * for passage on the timeline. The lab and settings shown become its own.
     */
    public void play(Lab of, RunSpec spec) {
        if (classes.hosting()) {
            return;
        }
        if (lab.get() != of) {
            select(of);
        }
        stopRun();
        take(of, spec);
        freshRun(spec.withObserve(true));
        run.get().start();
        tick();
    }

    private void take(Lab chosen, RunSpec spec) {
        strategy.set(chosen.strategy(spec.strategy()).orElse(chosen.defaultStrategy()));
        workers.set(spec.workers());
        ops.set(spec.ops());
        gates.set(spec.gates());
        switches.set(spec.switches());
        stepMode.set(spec.stepMode());
    }

    /** Starts the prepared run, resumes a paused one, or starts afresh after one that ended. */
    public void start() {
        if (classes.hosting()) {
            classes.start(run.get(), this::settings);
            tick();
            return;
        }
        apply();
        Run current = run.get();
        if (current == null) {
            if (replaying.get()) {
                runAgain();
            }
            return;
        }
        switch (current.phase()) {
            case PAUSED -> {
                if (scheduled()) {
                    return;
                }
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
        if (classes.hosting()) {
            classes.pause(current);
            tick();
        } else if (current != null && !scheduled()) {
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
        if (classes.hosting()) {
            return classes.step(current, index);
        }
        apply();
        if (current == null) {
            return false;
        }
        if (current.phase() == RunPhase.READY) {
            stepMode.set(true);
            freshRun();
            run.get().start();
            return true;
        }
        if (scheduled()) {
            return false;
        }
        if (index >= 0) {
            return current.step(index);
        }
        var halted = current.gates().halted();
        return !halted.isEmpty() && current.step(halted.get(0));
    }

    /** Whether the live run follows a schedule ({@link #play}): its order is the schedule's alone. */
    private boolean scheduled() {
        Run current = run.get();
        return current != null && (current.steering() != null || classes.joined(current)) && current.phase() != RunPhase.ENDED;
    }

    /** Stops the run; its outcome follows when its workers are gone. */
    public void stop() {
        stopRun();
        tick();
    }

    /** Puts the gates back to the lab's presets, the plan a lab starts with. */
    public void usePresetGates() {
        if (lab.get() != null) {
            gates.set(lab.get().presetGates());
        }
    }

    /** Stops any run, leaves a recording, and prepares a fresh run with the current settings. */
    public void reset() {
        stopRun();
        freshRun();
    }

    /**
     * Picks up what the run did since the last frame, then applies changed settings: a run that
     * ended meanwhile has its outcome shown and kept before a fresh run could replace it.
     */
    public void tick() {
        Run current = run.get();
        if (current != null) {
            state.set(current.phase());
            if (outcome.get() == null && current.record().ended()) {
                outcome.set(current.record().outcome());
                lastRuns.keep(current.record());
            }
        }
        apply();
    }

    /**
     * The last live run of each of the chosen lab's strategies that ended, in the lab's order of
     * strategies (broken first): what a teacher compares, each shown again by {@link #open}.
     */
    public ObservableList<RunRecord> lastRuns() {
        return lastRuns.list();
    }

    private void stopRun() {
        Run current = run.get();
        if (current != null && current.phase() != RunPhase.ENDED) {
            // A class's run: every participant is told, and the run is judged on what was done.
            classes.stopping(current);
            current.stop();
        }
    }

    /**
     * A setting changed. While nothing runs (a run prepared or ended, a recording shown) the next
     * {@link #apply} shows a fresh run with it; during a run it is simply the next run's setting,
     * and the run's picture stays when it ends.
     */
    private void settingChanged() {
        if (lab.get() != null && idle()) {
            settingsChanged = true;
        }
    }

    /**
     * Whether nothing runs, as the window shows it: its phase as of the last {@link #tick} (a run
     * that ended since is still shown running until the next, which shows its outcome first).
     */
    private boolean idle() {
        RunPhase shown = state.get();
        return replaying.get() || run.get() == null || shown == null || shown == RunPhase.READY
                || shown == RunPhase.ENDED;
    }

    /** The one step that applies changed settings: a fresh run with all of them, once. */
    public void apply() {
        if (settingsChanged) {
            freshRun();
        }
    }

    /** The settings shown now (strategy, workers, operations, gates, switches, step mode), as a run's spec. */
    public RunSpec settings() {
        Lab current = lab.get();
        return current.defaults()
                .withStrategy(strategy.get().id())
                .withWorkers(Math.max(current.minWorkers(), Math.min(current.maxWorkers(), workers.get())))
                .withOps(Math.max(1, ops.get()))
                .withGates(gates.get())
                .withSwitches(switches.get())
                .withStepMode(stepMode.get())
                .withObserve(true);
    }

    private void freshRun() {
        freshRun(settings());
    }

    private void freshRun(RunSpec spec) {
        settingsChanged = false;
        Lab current = lab.get();
        Run fresh = new Run(current, spec, clock);
        fresh.setDelayScale(delayScale.get());
        view = current.view(fresh.record().header());
        replaying.set(false);
        outcome.set(null);
        run.set(fresh);
        record.set(fresh.record());
        state.set(fresh.phase());
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

    /** The lab's own settings for the next run. */
    public ObjectProperty<SwitchValues> switchesProperty() {
        return switches;
    }

    /** Start runs with every worker halting at every gate. */
    public BooleanProperty stepModeProperty() {
        return stepMode;
    }

    /** Multiplies every delay: 2 is slow motion. */
    public DoubleProperty delayScaleProperty() {
        return delayScale;
    }

    /** The live run, or null while a recording is shown. */
    public ReadOnlyObjectProperty<Run> runProperty() {
        return run.getReadOnlyProperty();
    }

    public Run run() {
        return run.get();
    }

    /** The record shown: the live run's, or an opened recording. */
    public ReadOnlyObjectProperty<RunRecord> recordProperty() {
        return record.getReadOnlyProperty();
    }

    public RunRecord record() {
        return record.get();
    }

    /** Whether an opened recording is shown: nothing is live and the run controls are off. */
    public ReadOnlyBooleanProperty replayingProperty() {
        return replaying.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<RunPhase> stateProperty() {
        return state.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Outcome> outcomeProperty() {
        return outcome.getReadOnlyProperty();
    }

    /** The lab's view of the shown record. */
    public LabView view() {
        return view;
    }
}
