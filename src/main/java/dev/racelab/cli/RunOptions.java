package dev.racelab.cli;

import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Lab;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;
import dev.racelab.engine.Verdict;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The options of {@code racelab run LAB}, parsed and checked against the lab before anything
 * starts: a bad option costs no server start-up.
 */
record RunOptions(Lab lab, RunSpec spec, int runs, Path record, Verdict expect, boolean json,
                  String pgUrl, String redisUrl) {

    static final int MAX_RUNS = 10_000;
    static final long MAX_TIMEOUT_SECONDS = 3_600;

    /** Parses everything after {@code run LAB}. */
    static RunOptions parse(Lab lab, List<String> args) throws UsageException {
        return parse(lab, args, RunSpec.defaults(lab));
    }

    /**
     * Parses options on top of {@code base} (a recording's settings, for {@code rerun}): options
     * given replace what the base says; {@code --delay} and {@code --set} add to it.
     */
    static RunOptions parse(Lab lab, List<String> args, RunSpec base) throws UsageException {
        RunSpec spec = base;
        List<String> delays = new ArrayList<>();
        List<String> sets = new ArrayList<>();
        int runs = 1;
        Path record = null;
        Verdict expect = null;
        boolean json = false;
        String pgUrl = null;
        String redisUrl = null;
        Args in = new Args(args);
        while (in.hasNext()) {
            String option = in.next();
            switch (option) {
                case "--strategy" -> {
                    String id = in.value(option);
                    if (lab.strategy(id).isEmpty()) {
                        throw new UsageException("lab " + lab.id() + " has no strategy '" + id + "' (strategies: "
                                + String.join(", ", lab.strategies().stream().map(s -> s.id()).toList()) + ")");
                    }
                    spec = spec.withStrategy(id);
                }
                case "--workers" -> spec = spec.withWorkers(
                        (int) in.number(option, lab.minWorkers(), lab.maxWorkers()));
                case "--ops" -> spec = spec.withOps((int) in.number(option, 1, 1_000_000));
                case "--delay" -> delays.add(in.value(option));
                case "--set" -> sets.add(in.value(option));
                case "--runs" -> runs = (int) in.number(option, 1, MAX_RUNS);
                case "--seed" -> spec = spec.withSeed(in.number(option, Long.MIN_VALUE, Long.MAX_VALUE));
                case "--timeout" -> spec = spec.withTimeout(
                        Duration.ofSeconds(in.number(option, 1, MAX_TIMEOUT_SECONDS)));
                case "--record" -> record = Path.of(in.value(option));
                case "--pg-url" -> pgUrl = in.value(option);
                case "--redis-url" -> redisUrl = in.value(option);
                case "--expect" -> expect = verdict(in.value(option));
                case "--json" -> json = true;
                default -> throw new UsageException(option.startsWith("-")
                        ? "unknown option " + option + " (see racelab --help)"
                        : "unexpected argument '" + option + "' (see racelab --help)");
            }
        }
        GatePlan plan = spec.gates();
        for (String delay : delays) {
            plan = addDelay(lab, spec.workers(), plan, delay);
        }
        SwitchValues switches = spec.switches();
        for (String set : sets) {
            switches = addSwitch(lab, switches, set);
        }
        return new RunOptions(lab, spec.withGates(plan).withSwitches(switches), runs, record, expect, json, pgUrl,
                redisUrl);
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
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new UsageException("--delay " + text + ": write GATE=MS, like after-read=5");
        }
        String gate = text.substring(0, eq);
        String rest = text.substring(eq + 1);
        if (lab.gate(gate).isEmpty()) {
            throw new UsageException("--delay " + text + ": lab " + lab.id() + " has no gate '" + gate + "' (gates: "
                    + String.join(", ", lab.gates().stream().map(g -> g.id()).toList()) + ")");
        }
        String worker = null;
        int at = rest.indexOf('@');
        if (at >= 0) {
            worker = rest.substring(at + 1);
            rest = rest.substring(0, at);
        }
        GateRule rule;
        try {
            rule = GateRule.parseDelay(rest);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--delay " + text + ": " + e.getMessage());
        }
        if (worker == null) {
            return plan.with(gate, rule);
        }
        int index = worker.matches("\\d+") ? Integer.parseInt(worker) - 1 : lab.workerIndex(worker, workers);
        if (index < 0 || index >= workers) {
            throw new UsageException("--delay " + text + ": there is no worker '" + worker + "' among "
                    + lab.workerName(0) + " … " + lab.workerName(workers - 1));
        }
        return plan.with(gate, index, rule);
    }

    private static Verdict verdict(String text) throws UsageException {
        try {
            return Verdict.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--expect " + text + ": a verdict is one of SAFE, RACE, DEADLOCK, STUCK, ERROR");
        }
    }

    /** Reads options and their values, accepting both {@code --opt value} and {@code --opt=value}. */
    static final class Args {

        private final List<String> args;
        private int position;
        private String pending;

        Args(List<String> args) {
            this.args = args;
        }

        boolean hasNext() {
            return position < args.size();
        }

        String next() {
            String arg = args.get(position++);
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 2) {
                pending = arg.substring(eq + 1);
                return arg.substring(0, eq);
            }
            pending = null;
            return arg;
        }

        String value(String option) throws UsageException {
            if (pending != null) {
                String value = pending;
                pending = null;
                return value;
            }
            if (!hasNext()) {
                throw new UsageException(option + " needs a value");
            }
            return args.get(position++);
        }

        long number(String option, long min, long max) throws UsageException {
            String text = value(option);
            long number;
            try {
                number = Long.parseLong(text.strip());
            } catch (NumberFormatException e) {
                throw new UsageException(option + " must be a whole number, not '" + text + "'");
            }
            if (number < min || number > max) {
                throw new UsageException(option + " must be " + (max == Long.MAX_VALUE ? "at least " + min
                        : "from " + min + " to " + max) + ", not " + number);
            }
            return number;
        }
    }
}
