package dev.racelab.soak;

import dev.racelab.engine.Gate;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * One run of the soak, drawn from the soak's seed and the run's number alone, so {@code scripts/soak
 * N SEED} draws the same runs again: which lab and strategy, how many workers and operations, the
 * gate delays that make the run last long enough for a fault to land in it, whose servers it uses,
 * and the fault and when it comes (milliseconds after the run's workers are seen on their server;
 * for a signal during start-up, after the child says it starts a server, and which signal, and
 * whether in a fresh data home).
 */
record Plan(int number, Lab lab, String strategy, int workers, int ops, List<String> delays, long raceSeed,
            int timeoutSeconds, boolean external, Fault fault, Service faulted, long faultDelayMillis,
            boolean freshHome, String signal) {

    static final int TIMEOUT_SECONDS = 5;
    /** Faults land this soon after the workers are seen, at most: most runs' workers take about a second. */
    private static final long FAULT_WITHIN_MILLIS = 800;
    /**
     * A start-up signal lands this soon after the start is said, at most: a first set-up (unpack,
     * initdb) takes several seconds, a start of a kept cluster well under one.
     */
    private static final long FIRST_SETUP_WITHIN_MILLIS = 4_000;
    private static final long START_WITHIN_MILLIS = 600;
    private static final int MOST_WORKERS = 4;

    static Plan draw(long soakSeed, int number, List<Lab> labs, boolean externalServers) {
        Random random = new Random(soakSeed * 1_000_003L + number);
        Lab lab = labs.get(random.nextInt(labs.size()));
        List<? extends Strategy> strategies = lab.strategies();
        String strategy = strategies.get(random.nextInt(strategies.size())).id();
        int fewest = Math.max(2, lab.minWorkers());
        int most = Math.max(fewest, Math.min(MOST_WORKERS, lab.maxWorkers()));
        int workers = fewest + random.nextInt(most - fewest + 1);
        int ops = 20 + random.nextInt(41);

        List<Gate> delayable = lab.gates().stream().filter(g -> !g.isFault()).toList();
        List<String> delays = new ArrayList<>();
        int gates = delayable.isEmpty() ? 0 : 1 + random.nextInt(Math.min(2, delayable.size()));
        List<Gate> pool = new ArrayList<>(delayable);
        for (int i = 0; i < gates; i++) {
            Gate gate = pool.remove(random.nextInt(pool.size()));
            int least = random.nextInt(10);
            delays.add(gate.id() + "=" + least + "-" + (least + 5 + random.nextInt(35)));
        }

        boolean external = externalServers && random.nextBoolean();
        List<Fault> fitting = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            if (fault.fits(lab.services(), external)) {
                fitting.add(fault);
            }
        }
        Fault fault = fitting.get(random.nextInt(fitting.size()));
        List<Service> services = lab.services().stream().sorted().toList();
        Service faulted = fault == Fault.BACKEND_KILL ? Service.POSTGRES : services.get(random.nextInt(services.size()));
        boolean freshHome = fault == Fault.START_SIGNAL && random.nextBoolean();
        String signal = fault == Fault.START_SIGNAL && random.nextBoolean() ? "INT" : "TERM";
        Plan plan = new Plan(number, lab, strategy, workers, ops, List.copyOf(delays), random.nextLong(),
                TIMEOUT_SECONDS, external, fault, faulted, 0, freshHome, signal);
        long faultDelay = switch (fault) {
            case NONE -> 0;
            case START_SIGNAL -> random.nextLong(freshHome ? FIRST_SETUP_WITHIN_MILLIS : START_WITHIN_MILLIS);
            default -> random.nextLong(Math.max(1, Math.min(FAULT_WITHIN_MILLIS, plan.workMillis())));
        };
        return new Plan(number, lab, strategy, workers, ops, plan.delays, plan.raceSeed, TIMEOUT_SECONDS, external,
                fault, faulted, faultDelay, freshHome, signal);
    }

    /**
     * A generous guess of how long the workers need once started, were every operation of every
     * worker to wait out every delay at its longest one after the other (as under a mutex), with
     * 20 ms of work each: part of the bound a run must end within. The lab's preset delays count
     * too, at the gates the plan leaves to them (a worker's own preset, as lease-fencing's, at its
     * longest).
     */
    long workMillis() {
        long longestDelays = 0;
        Set<String> planned = new HashSet<>();
        for (String delay : delays) {
            planned.add(delay.substring(0, delay.indexOf('=')));
            longestDelays += Long.parseLong(delay.substring(delay.lastIndexOf('-') + 1));
        }
        for (Gate gate : lab.gates()) {
            if (!planned.contains(gate.id())) {
                long longest = 0;
                for (int w = 0; w < workers; w++) {
                    longest = Math.max(longest, lab.presetGates().rule(gate.id(), w).maxMillis());
                }
                longestDelays += longest;
            }
        }
        return (long) workers * ops * (longestDelays + 20);
    }

    /** The child's command line. */
    List<String> command(Path jar, Path recording, Map<Service, String> urls) {
        List<String> command = new ArrayList<>(List.of("java", "-jar", jar.toString(), "run", lab.id(),
                "--strategy", strategy, "--workers", String.valueOf(workers), "--ops", String.valueOf(ops),
                "--seed", String.valueOf(raceSeed), "--timeout", String.valueOf(timeoutSeconds),
                "--record", recording.toString(), "--json"));
        for (String delay : delays) {
            command.add("--delay");
            command.add(delay);
        }
        if (urls.containsKey(Service.POSTGRES)) {
            command.add("--pg-url");
            command.add(urls.get(Service.POSTGRES));
        }
        if (urls.containsKey(Service.REDIS)) {
            command.add("--redis-url");
            command.add(urls.get(Service.REDIS));
        }
        return command;
    }

    /** The names of the run's workers as its sessions carry them: {@code racelab:client-3}. */
    List<String> sessionNames() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            names.add("racelab:" + lab.workerName(i));
        }
        return names;
    }

    String servers() {
        return external ? "external" : "embedded";
    }

    String faultText() {
        if (fault == Fault.NONE) {
            return "none";
        }
        if (fault == Fault.START_SIGNAL) {
            return fault.label() + " (SIG" + signal + (freshHome ? ", fresh home" : "") + ") @+" + faultDelayMillis
                    + " ms after the start is said";
        }
        String where = fault == Fault.SIGTERM ? "" : " (" + faulted.name().toLowerCase() + ")";
        return fault.label() + where + " @+" + faultDelayMillis + " ms";
    }

    String describe() {
        return lab.id() + "/" + strategy + " " + workers + "×" + ops + " " + String.join(" ", delays) + " · "
                + servers() + " · " + faultText();
    }
}
