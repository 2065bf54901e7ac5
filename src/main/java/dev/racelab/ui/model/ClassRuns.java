package dev.racelab.ui.model;

import dev.racelab.engine.Run;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.RunSpec;

import java.util.function.Supplier;

/**
 * The session's part in a class: the class it hosts, whose commands go to its participants, and the
 * run shown that is the class's (the host's run, or a participant's copy of it, whose order is the
 * host's alone). Owned by the FX thread, as the session is.
 */
final class ClassRuns {

    /** Where the commands go while the window hosts a class; null otherwise. */
    private ClassControls hosting;
    /** Whether it hosts one, for the commands' bindings. */
    private final javafx.beans.property.ReadOnlyBooleanWrapper hostingShown =
            new javafx.beans.property.ReadOnlyBooleanWrapper(this, "hosting");
    /** The class's run as its host runs it, shown: the one run the commands send to the class. */
    private Run hosted;
    /** A participant's copy of a class's run, shown. */
    private Run joined;
    /** Step with no worker chosen, in a class's run: the next lane in turn. */
    private int nextStepped;

    void host(ClassControls controls) {
        hosting = controls;
        hostingShown.set(controls != null);
    }

    void ended(ClassControls controls) {
        if (hosting == controls) {
            host(null);
        }
    }

    javafx.beans.value.ObservableBooleanValue hostingProperty() {
        return hostingShown.getReadOnlyProperty();
    }

    boolean hosting() {
        return hosting != null;
    }

    void watch(Run started, boolean participant) {
        joined = participant ? started : null;
        hosted = participant ? null : started;
    }

    /** Whether {@code shown} is a participant's copy of a class's run: the window neither pauses nor steps it. */
    boolean joined(Run shown) {
        return shown != null && shown == joined;
    }

    /** Whether {@code shown} is the hosted class's run, going on. */
    private boolean hostedLive(Run shown) {
        return hosting != null && shown != null && shown == hosted && shown.phase().live();
    }

    /** Run, while hosting: resumes the class's paused run, or starts its next with {@code settings}. */
    void start(Run shown, Supplier<RunSpec> settings) {
        if (hostedLive(shown) && shown.phase() == RunPhase.PAUSED) {
            hosting.resume();
        } else if (shown == null || !shown.phase().live()) {
            hosting.start(settings.get());
        }
    }

    void pause(Run shown) {
        if (hostedLive(shown)) {
            hosting.pause();
        }
    }

    /** Steps lane {@code index} (-1: the next in turn) of the class's run; false when none goes on. */
    boolean step(Run shown, int index) {
        if (!hostedLive(shown)) {
            return false;
        }
        // The participants' gates are on their machines: a worker not halted ignores it.
        hosting.step(index >= 0 ? index : nextStepped++ % Math.max(1, shown.record().header().spec().workers()));
        return true;
    }

    /** {@code shown} is being stopped: if it is the class's run, every participant is told. */
    void stopping(Run shown) {
        if (hostedLive(shown)) {
            hosting.stop();
        }
    }
}
