package dev.racelab.classroom;

import dev.racelab.engine.EventKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who did what in a class's run, by participant: operations done, and, for a lab whose writes say
 * which of the server's writes they were ({@link EventKind#WRITE_ORDER}) and which write their read
 * saw ({@link EventKind#READ_ORDER}), whose increments survived and whose were lost to whom.
 *
 * <p>Each write wrote one more than the value its read saw, so the final value is the chain of
 * writes from the last one back through the writes their reads saw: those survived. Every other
 * write is lost, overwritten by the write of that chain that read before it and wrote after it.
 * So the increments lost by participant add up to the verdict's count of increments lost.
 *
 * <p>For a lab whose writes carry tokens ({@link EventKind#TOKEN}, {@link EventKind#WRITE_ACCEPTED})
 * and say which token's write they replaced ({@link EventKind#REPLACED}), a write that replaced a
 * newer token's was stale: its author overwrote, and the newer token's holder lost, one write. So
 * the writes lost by participant add up to the verdict's count of stale writes applied.
 */
public final class Ledger {

    /**
     * One participant's part.
     *
     * @param lost       its increments that are not in the final value
     * @param overwrote  the others' increments its writes overwrote without seeing them
     * @param neverBegan why its workers did nothing in the run, or null
     */
    public record Part(String name, int workers, long ops, long lost, long overwrote, List<Integer> unfinished,
                       String neverBegan) {
    }

    /** A write: its author and the number of the write its read saw. */
    private record Write(String author, long seen) {
    }

    private final List<ClassPlan.Seat> seats;
    private final Map<String, java.util.concurrent.atomic.AtomicLong> ops = new ConcurrentHashMap<>();
    /** The server's writes by their number; each saw a write before it, so the chain always goes down. */
    private final java.util.concurrent.ConcurrentSkipListMap<Long, Write> writes =
            new java.util.concurrent.ConcurrentSkipListMap<>();
    /** The write a worker's last read saw, by participant and worker. */
    private final Map<String, Long> seen = new ConcurrentHashMap<>();
    private final Map<String, List<Integer>> unfinished = new ConcurrentHashMap<>();
    private final Map<String, String> neverBegan = new ConcurrentHashMap<>();
    /** Who took each token, and the token of each worker's last accepted write. */
    private final Map<Long, String> tokenOwner = new ConcurrentHashMap<>();
    private final Map<String, Long> acceptedToken = new ConcurrentHashMap<>();
    /**
     * Stale writes: each one's author and the newer token it replaced, whose holder is looked up when
     * the parts are counted (its token's event may come after, from another machine).
     */
    private final java.util.Queue<Stale> stale = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private record Stale(String author, long replaced) {
    }

    Ledger(List<ClassPlan.Seat> seats) {
        this.seats = List.copyOf(seats);
        for (ClassPlan.Seat seat : seats) {
            ops.put(seat.member(), new java.util.concurrent.atomic.AtomicLong());
            unfinished.put(seat.member(), new ArrayList<>());
        }
    }

    /** An event of {@code seat}'s worker {@code worker}. Called by that worker's lane only. */
    void note(ClassPlan.Seat seat, int worker, EventKind kind, long value) {
        switch (kind) {
            case OP_END -> ops.get(seat.member()).incrementAndGet();
            case READ_ORDER -> seen.put(seat.member() + "/" + worker, value);
            case WRITE_ORDER -> {
                // A write with no read of its own (an atomic increment) saw the write before it.
                Long read = seen.remove(seat.member() + "/" + worker);
                long saw = read == null ? value - 1 : read;
                if (value > 0 && saw >= 0 && saw < value) {
                    writes.put(value, new Write(seat.member(), saw));
                }
            }
            case TOKEN -> tokenOwner.put(value, seat.member());
            case WRITE_ACCEPTED -> acceptedToken.put(seat.member() + "/" + worker, value);
            case REPLACED -> {
                Long mine = acceptedToken.remove(seat.member() + "/" + worker);
                if (mine != null && value > mine) {
                    stale.add(new Stale(seat.member(), value));
                }
            }
            default -> {
                // Nothing to count.
            }
        }
    }

    /** {@code seat}'s worker left with operation {@code n} (0-based) unfinished. */
    void unfinished(ClassPlan.Seat seat, int n) {
        synchronized (unfinished) {
            unfinished.get(seat.member()).add(n + 1);
        }
    }

    /** {@code seat}'s workers did nothing in the run, for reason {@code why}. */
    void neverBegan(ClassPlan.Seat seat, String why) {
        neverBegan.put(seat.member(), why);
    }

    /** Each participant's part, in seat order. */
    List<Part> parts() {
        Map<String, long[]> lost = new LinkedHashMap<>();
        Map<String, long[]> overwrote = new LinkedHashMap<>();
        for (ClassPlan.Seat seat : seats) {
            lost.put(seat.member(), new long[1]);
            overwrote.put(seat.member(), new long[1]);
        }
        java.util.NavigableMap<Long, Write> ordered = writes;
        // The surviving chain, from the last write back; each lost write falls in one of its gaps.
        long upper = ordered.isEmpty() ? 0 : ordered.lastKey();
        Write link = ordered.get(upper);
        while (link != null) {
            long below = link.seen();
            for (Write victim : ordered.subMap(below, false, upper, false).values()) {
                lost.get(victim.author())[0]++;
                overwrote.get(link.author())[0]++;
            }
            upper = below;
            link = ordered.get(below);
        }
        for (Stale write : stale) {
            overwrote.get(write.author())[0]++;
            String owner = tokenOwner.get(write.replaced());
            if (owner != null && lost.containsKey(owner)) {
                lost.get(owner)[0]++;
            }
        }
        List<Part> parts = new ArrayList<>();
        for (ClassPlan.Seat seat : seats) {
            long done = ops.get(seat.member()).get();
            List<Integer> open;
            synchronized (unfinished) {
                open = List.copyOf(unfinished.get(seat.member()));
            }
            parts.add(new Part(seat.name(), seat.workers(), done, lost.get(seat.member())[0],
                    overwrote.get(seat.member())[0], open, neverBegan.get(seat.member())));
        }
        return parts;
    }
}
