package dev.racelab.classroom;

import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.lab.Lab;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A class's run as its host runs it: the lab's own scenario makes the rows and judges, but every
 * worker lane stands for a participant's worker ({@link ProxyWorker}), named {@code name · client-1}.
 * Opening the run prepares the participants' runs and lets them all go at one instant.
 */
final class HostedExperiment extends SeatedExperiment {

    /**
     * How long the participants have to connect their workers once told to prepare: forty machines
     * logging in to one host's servers at once, on a classroom's network.
     */
    static final long READY_WITHIN_MILLIS = 60_000;
    /** How far ahead the instant to go is set: long enough for the word to reach everyone. */
    static final long GO_AHEAD_MILLIS = 300;

    private final RunSpec spec;
    private final ClassHub hub;
    private final Ledger ledger;
    private final boolean delaysKept;
    private final Consumer<String> say;

    HostedExperiment(Lab lab, RunSpec spec, List<ClassPlan.Seat> seats, ClassHub hub, Ledger ledger,
                     boolean delaysKept, Consumer<String> say) {
        super(lab, seats);
        this.delaysKept = delaysKept;
        this.say = say;
        this.spec = spec;
        this.hub = hub;
        this.ledger = ledger;
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        Scenario oracle = lab.open(setup);
        try {
            hub.run(setup.runId());
            hub.tell(ClassPlan.of(setup.runId(), lab, spec, seats, delaysKept).fields());
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_WITHIN_MILLIS);
            long said = System.nanoTime();
            while (!allReady() && System.nanoTime() < deadline && !setup.stopping().getAsBoolean()) {
                Thread.sleep(10);
                if (System.nanoTime() - said > TimeUnit.SECONDS.toNanos(2)) {
                    said = System.nanoTime();
                    say.accept(seats.stream().filter(s -> hub.ready(s.member())).count() + " of " + seats.size()
                            + " participants ready");
                }
            }
            for (ClassPlan.Seat seat : seats) {
                if (!hub.ready(seat.member())) {
                    hub.leaveOut(seat.member());
                }
            }
            long at = hub.clock().serverNow() + TimeUnit.MILLISECONDS.toNanos(GO_AHEAD_MILLIS);
            String going = String.join(",", seats.stream().map(ClassPlan.Seat::member)
                    .filter(m -> hub.ready(m) && !hub.left(m)).toList());
            // Only those named go: one that gets ready later sits this run out instead of writing unseen.
            hub.tell(Map.of("type", "go", "at", String.valueOf(at), "members", going));
            long wait = hub.clock().toLocal(at) - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            return new HostedScenario(oracle, hub, seats, ledger);
        } catch (Exception | Error e) {
            oracle.close();
            throw e;
        }
    }

    private boolean allReady() {
        return seats.stream().allMatch(s -> hub.ready(s.member()) || hub.left(s.member()));
    }
}
