package dev.racelab.cli;

import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Printable;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Sweep;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The options of {@code racelab run LAB} (and {@code rerun}), checked against the lab before
 * anything starts: a bad option costs no server start-up.
 */
record RunOptions(Lab lab, RunSpec spec, int runs, Sweep sweep, Path record, Verdict expect, boolean json,
                  String pgUrl, String redisUrl, String pgStandbyUrl, Duration connectTimeout) {

    static final int MAX_RUNS = 10_000;
    static final int MAX_OPS = 1_000_000;
    static final long MAX_TIMEOUT_SECONDS = 3_600;
    static final long MAX_CONNECT_TIMEOUT_SECONDS = 300;

    /**
     * Applies what the command line gave on top of {@code base} (the lab's defaults, or a
     * recording's settings for {@code rerun}): options given replace what the base says;
     * {@code --delay} and {@code --set} add to it.
     */
    static RunOptions of(Lab lab, RunFlags given, RunSpec base) throws UsageException {
        RunSpec spec = base;
        if (given.strategy != null) {
            if (lab.strategy(given.strategy).isEmpty()) {
                throw new UsageException("lab " + lab.id() + " has no strategy '" + given.strategy + "' (strategies: "
                        + String.join(", ", lab.strategies().stream().map(s -> s.id()).toList()) + ")");
            }
            spec = spec.withStrategy(given.strategy);
        }
        if (given.workers != null) {
            spec = spec.withWorkers((int) within("--workers", given.workers, lab.minWorkers(), lab.maxWorkers()));
        }
        if (given.ops != null) {
            spec = spec.withOps((int) within("--ops", given.ops, 1, MAX_OPS));
        }
        if (given.seed != null) {
            spec = spec.withSeed(given.seed);
        }
        if (given.timeout != null) {
            spec = spec.withTimeout(Duration.ofSeconds(within("--timeout", given.timeout, 1, MAX_TIMEOUT_SECONDS)));
        }
        int runs = given.runs == null ? 1 : (int) within("--runs", given.runs, 1, MAX_RUNS);
        GatePlan plan = spec.gates();
        for (String delay : given.delays) {
            plan = addDelay(lab, spec.workers(), plan, delay);
        }
        SwitchValues switches = spec.switches();
        for (String set : given.sets) {
            switches = addSwitch(lab, switches, set);
        }
        Sweep sweep = null;
        if (given.sweep != null) {
            try {
                sweep = Sweep.parse(given.sweep, lab, spec.workers());
            } catch (IllegalArgumentException e) {
                throw new UsageException("--sweep " + given.sweep + ": " + e.getMessage());
            }
            if ((long) runs * sweep.delays().size() > MAX_RUNS) {
                throw new UsageException("--sweep " + given.sweep + " with --runs " + runs + " makes "
                        + (long) runs * sweep.delays().size() + " runs; at most " + MAX_RUNS);
            }
        }
        Duration connectTimeout = given.connectTimeout == null ? null : Duration.ofSeconds(within("--connect-timeout",
                given.connectTimeout, 1, MAX_CONNECT_TIMEOUT_SECONDS));
        checkBase(lab, spec);
        return new RunOptions(lab, spec.withGates(plan).withSwitches(switches), runs, sweep, given.record, given.expect,
                given.json, address("--pg-url", given.pgUrl, "postgresql://user@localhost:5432/mydb"),
                address("--redis-url", given.redisUrl, "redis://localhost:6379"),
                address("--pg-standby-url", given.pgStandbyUrl, "postgresql://user@standby:5432/mydb"), connectTimeout);
    }

    /**
     * What a recording asks to run again ({@code rerun}), where no option replaced it, is held to
     * the bounds the options are: a crafted file is refused here, before a server starts.
     */
    private static void checkBase(Lab lab, RunSpec spec) throws UsageException {
        String wrong = null;
        if (lab.strategy(spec.strategy()).isEmpty()) {
            wrong = "strategy '" + Printable.excerpt(spec.strategy(), 60) + "', which lab " + lab.id() + " has not";
        } else if (spec.workers() < lab.minWorkers() || spec.workers() > lab.maxWorkers()) {
            wrong = spec.workers() + " workers (lab " + lab.id() + " runs " + lab.minWorkers() + " to "
                    + lab.maxWorkers() + ")";
        } else if (spec.ops() < 1 || spec.ops() > MAX_OPS) {
            wrong = spec.ops() + " operations per worker (1 to " + MAX_OPS + ")";
        } else if (spec.timeout().toSeconds() < 1 || spec.timeout().toSeconds() > MAX_TIMEOUT_SECONDS) {
            wrong = "a timeout of " + spec.timeout().toSeconds() + " s (1 to " + MAX_TIMEOUT_SECONDS + ")";
        }
        if (wrong != null) {
            throw new UsageException("the recording asks for " + wrong + "; give another on the command line");
        }
    }

    private static long within(String option, long number, long min, long max) throws UsageException {
        if (number < min || number > max) {
            throw new UsageException(option + " must be " + (max == Long.MAX_VALUE ? "at least " + min
                    : "from " + min + " to " + max) + ", not " + number);
        }
        return number;
    }

    /**
     * A server's address as given, or null if the option was left out. An empty one is refused:
     * left out, the option means "the environment's server, else the embedded one", and an empty
     * value (an unset shell variable, say) must not silently mean the same.
     */
    private static String address(String option, String url, String example) throws UsageException {
        if (url != null && url.isBlank()) {
            throw new UsageException(option + " is empty: give an address like " + example
                    + ", or leave the option out");
        }
        return url;
    }

    /** {@code NAME=VALUE}, for one of the lab's switches. */
    private static SwitchValues addSwitch(Lab lab, SwitchValues values, String text) throws UsageException {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new UsageException("--set " + text + ": write NAME=VALUE, like "
                    + (lab.switches().isEmpty() ? "lease-ms=500" : lab.switches().get(0).name() + "="
                    + lab.switches().get(0).defaultText()));
        }
        String name = text.substring(0, eq);
        Switch<?> sw = lab.profile().switchNamed(name).orElseThrow(() -> new UsageException("--set " + text
                + ": lab " + lab.id() + " has no switch '" + name + "' (" + (lab.switches().isEmpty()
                ? "it has none" : "switches: " + String.join(", ", lab.switches().stream().map(Switch::name)
                .toList())) + ")"));
        try {
            return values.parse(sw, text.substring(eq + 1));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--set " + text + ": " + e.getMessage());
        }
    }


    /** {@code GATE=MS}, {@code GATE=LO-HI}, either with {@code @WORKER}. */
    private static GatePlan addDelay(Lab lab, int workers, GatePlan plan, String text) throws UsageException {
        try {
            return plan.withDelay(lab, workers, text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--delay " + text + ": " + e.getMessage());
        }
    }
}
