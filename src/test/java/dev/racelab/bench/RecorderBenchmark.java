package dev.racelab.bench;

import dev.racelab.engine.Clock;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Recorder;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntConsumer;

/**
 * Events recorded per second from many threads: RaceLab's lock-free {@link Recorder} beside a
 * synchronized list doing the same work (same event objects, same clock), in one process.
 *
 * <p>Run with {@code scripts/bench recorder [threads] [events-per-thread]}.
 */
public final class RecorderBenchmark {

    private RecorderBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int each = args.length > 1 ? Integer.parseInt(args[1]) : 500_000;
        int total = threads * each;
        System.out.printf("recorder benchmark: %d threads × %,d events, %d cores%n", threads, each,
                Runtime.getRuntime().availableProcessors());
        int rounds = 7;
        double[] ours = new double[rounds];
        double[] theirs = new double[rounds];
        for (int round = 1; round <= rounds; round++) {
            Recorder recorder = new Recorder(Clock.system(), total + Recorder.RESERVE);
            double lockFree = measure(threads, i -> recorder.record(i % 64, EventKind.WRITE, "row", i), total);
            List<Object> list = Collections.synchronizedList(new ArrayList<>(total));
            Clock clock = Clock.system();
            double locked = measure(threads,
                    i -> list.add(new dev.racelab.engine.Event(i, clock.nanos(), i % 64, EventKind.WRITE, "row", i)),
                    total);
            System.out.printf("round %d: Recorder %,.0f events/s (stored %,d, dropped %,d) · synchronized list %,.0f "
                    + "events/s%n", round, lockFree, recorder.size(), recorder.dropped(), locked);
            ours[round - 1] = lockFree;
            theirs[round - 1] = locked;
        }
        java.util.Arrays.sort(ours);
        java.util.Arrays.sort(theirs);
        System.out.printf("median: Recorder %,.0f events/s · synchronized list %,.0f events/s (goal ≥ 1,000,000)%n",
                ours[rounds / 2], theirs[rounds / 2]);
    }

    private static double measure(int threads, IntConsumer record, int total) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        int each = total / threads;
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        record.accept(i);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "bench-writer");
            thread.start();
        }
        long begin = System.nanoTime();
        start.countDown();
        done.await();
        return total * 1e9 / (System.nanoTime() - begin);
    }
}
