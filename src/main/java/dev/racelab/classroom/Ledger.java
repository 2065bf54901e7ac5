package dev.racelab.classroom;

import dev.racelab.engine.EventKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who did what in a class's run, by participant: operations done, and, for a lab whose writes say
 * which of the server's writes they were and which one their read saw ({@link EventKind#WRITE_ORDER},
 * {@link EventKind#READ_ORDER}), whose writes were replaced by whose without being seen: the
 * projector's leaderboard and the verdict's names.
 */
public final class Ledger {

    /** One participant's part. */
    public record Part(String name, int workers, long ops, long overwrote, long overwritten, List<Integer> unfinished) {
    }

    private final List<ClassPlan.Seat> seats;
    private final Map<String, long[]> ops = new ConcurrentHashMap<>();
    /** The server's write number to its author. */
    private final Map<Long, String> authors = new ConcurrentHashMap<>();
    /** Each write that replaced others: {seen, its number}, by author. */
    private final List<Object[]> replacing = new ArrayList<>();
    private final Map<String, Long> seen = new ConcurrentHashMap<>();
    private final Map<String, List<Integer>> unfinished = new ConcurrentHashMap<>();

    Ledger(List<ClassPlan.Seat> seats) {
        this.seats = List.copyOf(seats);
        for (ClassPlan.Seat seat : seats) {
            ops.put(seat.member(), new long[1]);
            unfinished.put(seat.member(), new ArrayList<>());
        }
    }

    /** An event of {@code seat}'s worker {@code worker}. Called by that worker's lane only. */
    void note(ClassPlan.Seat seat, int worker, EventKind kind, long value) {
        switch (kind) {
            case OP_END -> {
                synchronized (ops.get(seat.member())) {
                    ops.get(seat.member())[0]++;
                }
            }
            case READ_ORDER -> seen.put(seat.member() + "/" + worker, value);
            case WRITE_ORDER -> {
                authors.put(value, seat.member());
                Long read = seen.remove(seat.member() + "/" + worker);
                if (read != null && read < value - 1) {
                    synchronized (replacing) {
                        replacing.add(new Object[] {seat.member(), read, value});
                    }
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

    /** Each participant's part, in seat order. */
    List<Part> parts() {
        Map<String, long[]> overwrote = new LinkedHashMap<>();
        Map<String, long[]> overwritten = new LinkedHashMap<>();
        for (ClassPlan.Seat seat : seats) {
            overwrote.put(seat.member(), new long[1]);
            overwritten.put(seat.member(), new long[1]);
        }
        synchronized (replacing) {
            for (Object[] r : replacing) {
                String by = (String) r[0];
                for (long w = (Long) r[1] + 1; w < (Long) r[2]; w++) {
                    String victim = authors.get(w);
                    if (victim != null) {
                        overwrote.get(by)[0]++;
                        overwritten.get(victim)[0]++;
                    }
                }
            }
        }
        List<Part> parts = new ArrayList<>();
        for (ClassPlan.Seat seat : seats) {
            long done;
            synchronized (ops.get(seat.member())) {
                done = ops.get(seat.member())[0];
            }
            List<Integer> open;
            synchronized (unfinished) {
                open = List.copyOf(unfinished.get(seat.member()));
            }
            parts.add(new Part(seat.name(), seat.workers(), done, overwrote.get(seat.member())[0],
                    overwritten.get(seat.member())[0], open));
        }
        return parts;
    }
}
