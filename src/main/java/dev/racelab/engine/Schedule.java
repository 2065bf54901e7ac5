package dev.racelab.engine;

import java.util.Arrays;
import java.util.StringJoiner;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * The order in which workers pass their gates: one worker index per passage. A run that follows a
 * schedule halts every worker at every gate and releases them one at a time in this order
 * ({@link Steering}); its recording keeps the schedule, so the run can be made again step for step.
 *
 * <p>A worker released runs to its next gate, or to its end, or until it waits on a server; only
 * then is the next passage chosen. Immutable.
 */
public final class Schedule {

    /** No schedule: the run's workers go as the threads and the servers take them. */
    public static final Schedule NONE = new Schedule(new int[0]);

    /** Not a worker: time passes, until a worker backing off goes on ({@link Steering}). */
    public static final int TIME = Steering.MAX_WORKERS;
    /** How a schedule writes {@link #TIME}. */
    public static final String TIME_WORD = "time";

    private final int[] passages;

    private Schedule(int[] passages) {
        this.passages = passages;
    }

    public static Schedule of(int... workers) {
        for (int w : workers) {
            if (w < 0 || w > TIME) {
                throw new IllegalArgumentException("a schedule names workers 1 to " + Steering.MAX_WORKERS + ", not " + (w + 1));
            }
        }
        return workers.length == 0 ? NONE : new Schedule(workers.clone());
    }

    public boolean isEmpty() {
        return passages.length == 0;
    }

    /** How many passages. */
    public int size() {
        return passages.length;
    }

    /** The worker of passage {@code i} (0-based). */
    public int at(int i) {
        return passages[i];
    }

    public int[] toArray() {
        return passages.clone();
    }

    /** The first {@code n} passages. */
    public Schedule prefix(int n) {
        return of(Arrays.copyOf(passages, Math.min(n, passages.length)));
    }

    /** This schedule with {@code worker} passing next. */
    public Schedule then(int worker) {
        int[] more = Arrays.copyOf(passages, passages.length + 1);
        more[passages.length] = worker;
        return of(more);
    }

    /** Passages per worker, for {@code workers} workers. */
    public int[] passagesPerWorker(int workers) {
        int[] counts = new int[workers];
        for (int w : passages) {
            if (w < workers && w != TIME) {
                counts[w]++;
            }
        }
        return counts;
    }

    /** The workers' names in passage order, separated by spaces: {@code client-1 client-2 client-1}. */
    public String describe(IntFunction<String> name) {
        StringJoiner text = new StringJoiner(" ");
        for (int w : passages) {
            text.add(w == TIME ? TIME_WORD : name.apply(w));
        }
        return text.toString();
    }

    /**
     * A schedule as {@link #describe} writes it: names in passage order, {@link #TIME_WORD} for time.
     *
     * @param workerIndex a worker's index by name, -1 for none
     * @throws IllegalArgumentException naming a word that is not a worker's name
     */
    public static Schedule parse(String text, ToIntFunction<String> workerIndex) {
        String[] names = text.isBlank() ? new String[0] : text.trim().split("\\s+");
        int[] order = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            order[i] = names[i].equals(TIME_WORD) ? TIME : workerIndex.applyAsInt(names[i]);
            if (order[i] < 0 || order[i] >= Steering.MAX_WORKERS && order[i] != TIME) {
                throw new IllegalArgumentException("the schedule names '" + names[i] + "', who is not one of its workers");
            }
        }
        return of(order);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Schedule s && Arrays.equals(passages, s.passages);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(passages);
    }

    @Override
    public String toString() {
        return describe(w -> Integer.toString(w + 1));
    }
}
