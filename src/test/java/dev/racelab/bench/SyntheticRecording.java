package dev.racelab.bench;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingWriter;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Writes a counter-lab recording of any size for measuring what reading, replaying and exporting
 * one costs: a run's worth of workers going through the lab's steps (delays, reads, waits for the
 * row lock, writes, lost updates with their arrows and marks, wake-ups), and two server lanes
 * reading the row locks and the counter every 10 ms, in the proportions a real observed run has.
 * The events are made up; the file is a recording like any other, written by
 * {@link RecordingWriter}, so what reads it cannot tell.
 *
 * <p>{@code scripts/bench recordings} makes them; with arguments: {@code EVENTS FILE}.
 */
public final class SyntheticRecording {

    private static final int WORKERS = 8;
    private static final int RUN = 0;
    private static final int LOCKS = WORKERS + 1;
    private static final int VALUES = WORKERS + 2;
    private static final int MAX_PLACES = 10_000;

    private final List<Event> events = new ArrayList<>();
    private final SplittableRandom random = new SplittableRandom(25);
    private long nanos;
    private long violations;
    private final List<Long> places = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: SyntheticRecording EVENTS FILE");
            System.exit(2);
        }
        long start = System.nanoTime();
        write(Long.parseLong(args[0].replace("_", "")), Path.of(args[1]), Path.of(System.getProperty("java.io.tmpdir")));
        System.out.printf("%s: %,d bytes in %.1f s%n", args[1], Files.size(Path.of(args[1])),
                (System.nanoTime() - start) / 1e9);
    }

    /** Writes a one-run recording of about {@code count} events to {@code file}. */
    public static void write(long count, Path file, Path home) throws Exception {
        try (Backends unstarted = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            Lab lab = new Labs(unstarted).find("counter").orElseThrow();
            SyntheticRecording run = new SyntheticRecording();
            run.events(count);
            Outcome outcome = new Outcome(Verdict.RACE, run.violations + " increments lost",
                    "Synthetic: every second write replaced a value another client had already increased.",
                    Map.of("lost increments", run.violations), metrics(run), run.places);
            RunSpec spec = lab.defaults().withWorkers(WORKERS).withObserve(true);
            RunRecord record = RunRecord.loaded(new RunHeader("counter", spec, Instant.parse("2025-01-01T00:00:00Z")),
                    run.events, 0, outcome, Map.of("postgres", "PostgreSQL 17.2 (synthetic)"));
            try (RecordingWriter writer = RecordingWriter.create(file)) {
                writer.write(lab, record);
                writer.commit(run.nanos / 1_000_000, 0, false);
            }
        }
    }

    private static Map<String, Number> metrics(SyntheticRecording run) {
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("lostIncrements", run.violations);
        metrics.put("runMs", run.nanos / 1_000_000);
        return metrics;
    }

    private void events(long count) {
        add(RUN, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal());
        for (int w = 1; w <= WORKERS; w++) {
            add(w, EventKind.ACTOR, "client-" + w, Actor.Kind.WORKER.ordinal());
        }
        add(LOCKS, EventKind.ACTOR, "row locks", Actor.Kind.SERVER.ordinal());
        add(VALUES, EventKind.ACTOR, "counter", Actor.Kind.SERVER.ordinal());
        add(RUN, EventKind.RUN_PREPARING, "counter", WORKERS);
        for (int w = 1; w <= WORKERS; w++) {
            add(w, EventKind.CONNECTED, "client-" + w, 9000 + w);
        }
        add(RUN, EventKind.RUN_STARTED, "read-modify-write", WORKERS);
        long lastWrite = -1;
        long counter = 0;
        long nextSample = 0;
        while (events.size() < count - WORKERS - 2) {
            int w = 1 + random.nextInt(WORKERS);
            if (nanos >= nextSample) {
                add(LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
                add(VALUES, EventKind.SERVER_SAMPLE, null, 10_000);
                add(VALUES, EventKind.SERVER_VALUE, "counter", counter);
                nextSample = nanos + 10_000_000;
            }
            state(w, ActorState.RUNNING, null);
            state(w, ActorState.DELAYED, "before-read");
            state(w, ActorState.RUNNING, null);
            add(w, EventKind.READ, "counter", counter);
            state(w, ActorState.DELAYED, "after-read");
            state(w, ActorState.WAITING, "counter row");
            add(LOCKS, EventKind.SERVER_WAITS, "counter row", w);
            if (lastWrite >= 0) {
                add(w, EventKind.WOKEN, "row lock", lastWrite);
            }
            add(LOCKS, EventKind.SERVER_WAITS, null, w);
            add(LOCKS, EventKind.SERVER_HOLDS, "counter row", w);
            state(w, ActorState.HOLDING, "counter row");
            long write = add(w, EventKind.WRITE, "counter", ++counter);
            if (lastWrite >= 0 && random.nextBoolean()) {
                add(w, EventKind.OVERWROTE, "counter", lastWrite);
                long violation = add(w, EventKind.VIOLATION, "overwriting writes", 1);
                violations++;
                if (places.size() < MAX_PLACES) {
                    places.add(violation);
                }
            }
            lastWrite = write;
            add(LOCKS, EventKind.SERVER_HOLDS, null, w);
            add(w, EventKind.OP_END, null, counter);
        }
        for (int w = 1; w <= WORKERS; w++) {
            state(w, ActorState.DONE, null);
        }
        add(RUN, EventKind.RUN_STOPPING, null, 0);
        add(RUN, EventKind.RUN_ENDED, "RACE", 0);
    }

    private void state(int actor, ActorState state, String subject) {
        add(actor, EventKind.STATE, subject, state.ordinal());
    }

    private long add(int actor, EventKind kind, String subject, long value) {
        nanos += 1_000 + random.nextInt(60_000);
        long seq = events.size();
        events.add(new Event(seq, nanos, actor, kind, subject, value));
        return seq;
    }
}
