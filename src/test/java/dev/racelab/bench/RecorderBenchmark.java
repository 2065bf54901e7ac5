package dev.racelab.bench;

import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Recorder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Events recorded per second from many threads: RaceLab's lock-free {@link Recorder} against a
 * synchronized list doing the same work, round by round.
 *
 * <p><b>The same work.</b> Each writer builds the same {@link Event} for each event: one reading
 * of the system clock, a sequence number that is the event's position in the log, and stores it
 * where a reader gets it back in order. The baseline is a {@link Collections#synchronizedList}
 * pre-sized for every event; it can only know an event's position under its lock, so it reads
 * the clock first and builds the event inside the lock, as the Recorder reads the clock first and
 * builds the event once it has claimed its position. The Recorder allocates its segments while it
 * records: that is part of what recording costs, so it stays in the timed part.
 *
 * <p><b>Fair rounds.</b> Every round times both, and which goes first alternates from round to
 * round. Each timed part starts with a full collection and only then prepares its log, so neither
 * pays for the garbage the other left and both start from the same heap; then the machine gets a
 * moment to settle. (Collected while the baseline's pre-sized array was live, the heap was sized
 * to it and the baseline started with a larger young generation: 10 to 12 collections per timed
 * part against the Recorder's 13 to 17.) The first rounds warm the JIT up; they are printed but
 * not counted.
 *
 * <p>Run with {@code scripts/bench recorder [threads] [events-per-thread]}.
 */
public final class RecorderBenchmark {

    private static final int WARM_UP_ROUNDS = 2;
    private static final int ROUNDS = 7;
    /** Lets the collector finish what it does after a full collection, such as uncommitting memory. */
    private static final long SETTLE_MILLIS = 200;
    /** Events spread over this many actors, as in a run with a few dozen lanes. */
    private static final int ACTORS = 64;
    private static final String ROW = "%-8s %-9s %20s %20s %7s  %s%n";

    private RecorderBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int each = args.length > 1 ? Integer.parseInt(args[1]) : 500_000;
        if (threads < 1 || each < 1 || (long) threads * each > Integer.MAX_VALUE - Recorder.RESERVE) {
            throw new IllegalArgumentException("need 1 or more threads and events, at most "
                    + (Integer.MAX_VALUE - Recorder.RESERVE) + " events in all");
        }
        System.out.printf("recorder benchmark: %d threads × %,d events, %d cores; %d warm-up rounds, then %d counted%n",
                threads, each, Runtime.getRuntime().availableProcessors(), WARM_UP_ROUNDS, ROUNDS);
        System.out.println("baseline: Collections.synchronizedList, pre-sized; each event numbered by its position"
                + " under the list's lock");
        System.out.printf(ROW, "round", "first", "Recorder events/s", "baseline events/s", "ratio", "winner");
        double[] ours = new double[ROUNDS];
        double[] theirs = new double[ROUNDS];
        double[] ratios = new double[ROUNDS];
        int won = 0;
        for (int round = 1 - WARM_UP_ROUNDS; round <= ROUNDS; round++) {
            boolean recorderFirst = Math.floorMod(round, 2) == 1;
            double lockFree;
            double locked;
            if (recorderFirst) {
                lockFree = timeRecorder(threads, each);
                locked = timeBaseline(threads, each);
            } else {
                locked = timeBaseline(threads, each);
                lockFree = timeRecorder(threads, each);
            }
            double ratio = lockFree / locked;
            boolean recorderWon = lockFree > locked;
            System.out.printf(ROW, round < 1 ? "warm-up" : String.valueOf(round),
                    recorderFirst ? "Recorder" : "baseline", String.format("%,.0f", lockFree),
                    String.format("%,.0f", locked), String.format("%.2f", ratio), recorderWon ? "Recorder" : "baseline");
            if (round >= 1) {
                ours[round - 1] = lockFree;
                theirs[round - 1] = locked;
                ratios[round - 1] = ratio;
                won += recorderWon ? 1 : 0;
            }
        }
        System.out.printf(ROW, "median", "", String.format("%,.0f", median(ours)), String.format("%,.0f", median(theirs)),
                String.format("%.2f", median(ratios)), "");
        System.out.printf("Recorder won %d of %d rounds (design goal: ≥ 1,000,000 events/s)%n", won, ROUNDS);
    }

    private static double timeRecorder(int threads, int each) throws InterruptedException {
        int total = threads * each;
        System.gc();
        Recorder recorder = new Recorder(Clock.system(), total + Recorder.RESERVE);
        double rate = time(threads, total, () -> {
            for (int i = 0; i < each; i++) {
                recorder.record(i % ACTORS, EventKind.WRITE, "row", i);
            }
        });
        if (recorder.size() != total || recorder.dropped() != 0) {
            throw new IllegalStateException("the Recorder stored " + recorder.size() + " of " + total
                    + " events and dropped " + recorder.dropped());
        }
        return rate;
    }

    private static double timeBaseline(int threads, int each) throws InterruptedException {
        int total = threads * each;
        System.gc();
        Clock clock = Clock.system();
        List<Event> log = Collections.synchronizedList(new ArrayList<>(total));
        double rate = time(threads, total, () -> {
            for (int i = 0; i < each; i++) {
                long nanos = clock.nanos();
                // The list's own lock, so that numbering and adding are one step.
                synchronized (log) {
                    log.add(new Event(log.size(), nanos, i % ACTORS, EventKind.WRITE, "row", i));
                }
            }
        });
        if (log.size() != total) {
            throw new IllegalStateException("the baseline stored " + log.size() + " of " + total + " events");
        }
        for (int seq = 0; seq < total; seq++) {
            if (log.get(seq).seq() != seq) {
                throw new IllegalStateException("the baseline's event " + seq + " says " + log.get(seq).seq());
            }
        }
        return rate;
    }

    /**
     * Starts {@code threads} threads that each run {@code writer} once, lets the machine settle
     * while they wait, and returns events per second from their common start until the last one
     * is done.
     */
    private static double time(int threads, int events, Runnable writer) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    start.await();
                    writer.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "bench-writer-" + t);
            thread.start();
            writers.add(thread);
        }
        ready.await();
        Thread.sleep(SETTLE_MILLIS);
        long begin = System.nanoTime();
        start.countDown();
        done.await();
        long elapsed = System.nanoTime() - begin;
        for (Thread thread : writers) {
            thread.join();
        }
        return events * 1e9 / elapsed;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
