package dev.racelab.engine;

import java.util.Arrays;

/**
 * The lane and time of the latest {@link #KEPT} events of a run, by sequence number: what an arrow
 * back to an earlier event needs ({@link EventKind#WOKEN} to the release that woke a waiter,
 * {@link EventKind#OVERWROTE} to the write it wiped out) when the run's events go by one at a time
 * instead of being kept. The event an arrow points to comes a moment before it, a handful of
 * events back; one further back than {@code KEPT} is not found, and its arrow not drawn.
 *
 * <p>At most 12 MB; less for a run of fewer events. Used by one thread.
 */
public final class RecentEvents {

    /** How many events back an arrow can reach. */
    public static final int KEPT = 1 << 20;

    private long[] nanos = new long[1024];
    private int[] actors = new int[1024];
    /** The sequence number after the latest event added. */
    private long next;

    /** Adds the run's next event; events come in sequence order from 0. */
    public void add(Event event) {
        if (next < KEPT && next == nanos.length) {
            int size = (int) Math.min(KEPT, 2L * nanos.length);
            nanos = Arrays.copyOf(nanos, size);
            actors = Arrays.copyOf(actors, size);
        }
        int slot = (int) (next % nanos.length);
        nanos[slot] = event.nanos();
        actors[slot] = event.actor();
        next = event.seq() + 1;
    }

    /** Whether event {@code seq} was added and is recent enough to be kept. */
    public boolean has(long seq) {
        return seq >= 0 && seq < next && next - seq <= nanos.length;
    }

    /** When event {@code seq} happened; only if {@link #has} it. */
    public long nanos(long seq) {
        return nanos[(int) (seq % nanos.length)];
    }

    /** The lane of event {@code seq}; only if {@link #has} it. */
    public int actor(long seq) {
        return actors[(int) (seq % nanos.length)];
    }
}
