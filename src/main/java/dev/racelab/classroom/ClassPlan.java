package dev.racelab.classroom;

import com.google.gson.Gson;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.lab.Lab;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The run a class's host asks its participants to prepare, as the control stream carries it: the
 * run's id (its rows), the lab, the settings every participant's run shares, and the seats.
 *
 * @param run        the host's run id: the rows and keys all the class's workers use
 * @param seats      who takes part, with their workers, in the order of the host's lanes
 * @param delaysKept whether the host keeps the delays: participants' own are not used
 */
public record ClassPlan(String run, String lab, String strategy, int ops, long seed, long timeoutMillis,
                        String gates, Map<String, String> switches, List<Seat> seats, boolean delaysKept) {

    private static final Gson GSON = new Gson();

    /**
     * A participant's place in the run.
     *
     * @param member the participant's id, made by its RaceLab
     * @param name   the name the student typed
     * @param first  the host's lane index of its first worker
     */
    public record Seat(String member, String name, int workers, int first) {
    }

    /** The plan for {@code spec} of {@code lab}, with these seats. */
    static ClassPlan of(String run, Lab lab, RunSpec spec, List<Seat> seats, boolean delaysKept) {
        return new ClassPlan(run, lab.id(), spec.strategy(), spec.ops(), spec.seed(), spec.timeout().toMillis(),
                spec.gates().describe(lab::workerName), spec.switches().describe(lab.switches()), List.copyOf(seats),
                delaysKept);
    }

    /** The seat whose workers include the class's worker {@code worker}, or null. */
    static Seat seatAt(List<Seat> seats, int worker) {
        for (Seat seat : seats) {
            if (worker >= seat.first() && worker < seat.first() + seat.workers()) {
                return seat;
            }
        }
        return null;
    }

    /** How many workers {@code seats} hold: the class's run's. */
    static int workers(List<Seat> seats) {
        return seats.stream().mapToInt(Seat::workers).sum();
    }

    /** The seat of {@code member}, or null when it has none (it joined late). */
    Seat seatOf(String member) {
        return seats.stream().filter(s -> s.member().equals(member)).findFirst().orElse(null);
    }

    /**
     * A participant's run of {@code lab} with {@code workers} workers, as the host planned it.
     *
     * @throws IllegalArgumentException saying what of the plan this RaceLab cannot run
     */
    RunSpec spec(Lab lab, int workers) {
        if (ops < 1 || ops > 1_000_000 || timeoutMillis < 1_000 || timeoutMillis > 3_600_000) {
            throw new IllegalArgumentException("its operations (" + ops + ") or its timeout (" + timeoutMillis
                    + " ms) are out of bounds");
        }
        if (lab.strategy(strategy).isEmpty()) {
            throw new IllegalArgumentException("lab " + lab.id() + " has no strategy '" + strategy + "'");
        }
        SwitchValues values = SwitchValues.DEFAULTS;
        for (Switch<?> sw : lab.switches()) {
            String text = switches.get(sw.name());
            if (text != null) {
                values = values.parse(sw, text);
            }
        }
        return lab.defaults().withStrategy(strategy).withWorkers(workers).withOps(ops).withSeed(seed)
                .withTimeout(Duration.ofMillis(timeoutMillis))
                .withGates(GatePlan.parse(gates, name -> lab.workerIndex(name, workers)))
                .withSwitches(values).withObserve(false);
    }

    /** The plan as control-stream fields. */
    Map<String, String> fields() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("type", "prepare");
        f.put("plan", GSON.toJson(this));
        return f;
    }

    /** The plan in {@code fields}, or an exception saying it is not one. */
    static ClassPlan from(Map<String, String> fields) {
        ClassPlan plan = GSON.fromJson(fields.get("plan"), ClassPlan.class);
        if (plan == null || plan.run == null || plan.lab == null || plan.strategy == null || plan.seats == null
                || plan.seats.stream().anyMatch(s -> s == null || s.member() == null || s.name() == null)) {
            throw new IllegalArgumentException("the host's plan is incomplete");
        }
        return new ClassPlan(plan.run, plan.lab, plan.strategy, plan.ops, plan.seed, plan.timeoutMillis,
                plan.gates == null ? "" : plan.gates, plan.switches == null ? new HashMap<>() : plan.switches,
                List.copyOf(plan.seats), plan.delaysKept);
    }
}
