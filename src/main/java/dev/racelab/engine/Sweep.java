package dev.racelab.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * One gate's delay stepped over a range, a batch of runs at each step: how the chance of a race
 * grows with the delay that provokes it (and stays nil under a fix).
 *
 * @param gate   the gate whose delay is swept
 * @param worker the worker it applies to, or -1 for every worker
 * @param from   the first delay, in milliseconds
 * @param to     the last delay, in milliseconds (reached when {@code to - from} is a multiple of the step)
 * @param step   milliseconds between two delays
 */
public record Sweep(String gate, int worker, long from, long to, long step) {

    /** The most delays a sweep may hold: each is a batch of runs. */
    public static final int MAX_POINTS = 200;

    public Sweep {
        if (from < 0 || to < from || step <= 0) {
            throw new IllegalArgumentException("a sweep goes from a delay up to a larger one in steps of at least 1 ms");
        }
        if ((to - from) / step + 1 > MAX_POINTS) {
            throw new IllegalArgumentException("a sweep has at most " + MAX_POINTS + " delays, not "
                    + ((to - from) / step + 1));
        }
    }

    /**
     * Reads {@code GATE=LO-HI/STEP}, or {@code GATE=LO-HI/STEP@WORKER}, for {@code lab} run with
     * {@code workers} workers.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static Sweep parse(String text, Experiment lab, int workers) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("write GATE=LO-HI/STEP, like after-read=0-20/5");
        }
        String gate = text.substring(0, eq);
        if (lab.gate(gate).isEmpty()) {
            throw new IllegalArgumentException("lab " + lab.id() + " has no gate '" + gate + "' (gates: "
                    + String.join(", ", lab.gates().stream().map(Gate::id).toList()) + ")");
        }
        String rest = text.substring(eq + 1);
        int worker = -1;
        int at = rest.indexOf('@');
        if (at >= 0) {
            String name = rest.substring(at + 1);
            worker = name.matches("[0-9]{1,9}") ? Integer.parseInt(name) - 1 : lab.workerIndex(name, workers);
            if (worker < 0 || worker >= workers) {
                throw new IllegalArgumentException("there is no worker '" + name + "' among " + lab.workerName(0)
                        + " … " + lab.workerName(workers - 1));
            }
            rest = rest.substring(0, at);
        }
        if (!rest.matches("[0-9]{1,7}-[0-9]{1,7}/[0-9]{1,7}")) {
            throw new IllegalArgumentException("write the delays as LO-HI/STEP in milliseconds, like 0-20/5");
        }
        String[] bounds = rest.split("[-/]");
        return new Sweep(gate, worker, Long.parseLong(bounds[0]), Long.parseLong(bounds[1]), Long.parseLong(bounds[2]));
    }

    /** The delays, in milliseconds, from the first to the last. */
    public List<Long> delays() {
        List<Long> delays = new ArrayList<>();
        for (long delay = from; delay <= to; delay += step) {
            delays.add(delay);
        }
        return delays;
    }

    /** {@code spec} with the swept gate delayed by {@code delay} ms, for the swept worker or every one. */
    public RunSpec at(RunSpec spec, long delay) {
        GateRule rule = GateRule.fixed(delay);
        GatePlan plan = worker < 0 ? spec.gates().with(gate, rule) : spec.gates().with(gate, worker, rule);
        return spec.withGates(plan);
    }

    /** As it is written: {@code after-read=0-20/5}, {@code after-read=0-20/5@client-2}. */
    public String describe(IntFunction<String> workerName) {
        return gate + "=" + from + "-" + to + "/" + step + (worker < 0 ? "" : "@" + workerName.apply(worker));
    }
}
