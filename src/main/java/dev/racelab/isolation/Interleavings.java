package dev.racelab.isolation;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Every interleaving of the sessions' steps that keeps each session's own steps in order, in the
 * order isolationtester runs them when a spec declares no permutation: it picks the next step of
 * the first session that has one left, and backtracks from the last choice. Made one at a time:
 * three sessions of four steps already interleave 34,650 ways.
 */
final class Interleavings implements Iterator<Permutation> {

    private final List<Session> sessions;
    private final int length;
    /** For each position of the current permutation, the session its step came from. */
    private final int[] chosen;
    /** Per session, how many of its steps the current permutation has taken. */
    private final int[] taken;
    private boolean started;
    private boolean exhausted;
    /** The interleaving {@link #next} gives next, once {@link #hasNext} has made it. */
    private Permutation upcoming;

    Interleavings(List<Session> sessions) {
        this.sessions = sessions;
        this.length = sessions.stream().mapToInt(s -> s.steps().size()).sum();
        this.chosen = new int[length];
        this.taken = new int[sessions.size()];
    }

    /** The number of interleavings: the multinomial coefficient of the sessions' step counts. */
    static BigInteger count(List<Session> sessions) {
        BigInteger result = BigInteger.ONE;
        int placed = 0;
        for (Session session : sessions) {
            int k = session.steps().size();
            for (int i = 1; i <= k; i++) {
                result = result.multiply(BigInteger.valueOf(placed + i)).divide(BigInteger.valueOf(i));
            }
            placed += k;
        }
        return result;
    }

    @Override
    public boolean hasNext() {
        if (upcoming == null && !exhausted) {
            boolean another;
            if (started) {
                another = advance();
            } else {
                started = true;
                fillFrom(0);
                another = true;
            }
            if (another) {
                upcoming = current();
            } else {
                exhausted = true;
            }
        }
        return upcoming != null;
    }

    @Override
    public Permutation next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Permutation next = upcoming;
        upcoming = null;
        return next;
    }

    private Permutation current() {
        List<PermutationStep> steps = new ArrayList<>(length);
        int[] index = new int[sessions.size()];
        for (int position = 0; position < length; position++) {
            int s = chosen[position];
            steps.add(new PermutationStep(sessions.get(s).steps().get(index[s]++)));
        }
        return new Permutation(steps);
    }

    /** Takes, from {@code position} on, the first session with a step left each time. */
    private void fillFrom(int position) {
        for (int p = position; p < length; p++) {
            int s = 0;
            while (taken[s] == sessions.get(s).steps().size()) {
                s++;
            }
            chosen[p] = s;
            taken[s]++;
        }
    }

    /**
     * Moves to the next interleaving: from the end, gives back each step and looks for a later
     * session with a step left to put there instead.
     */
    private boolean advance() {
        for (int p = length - 1; p >= 0; p--) {
            int was = chosen[p];
            taken[was]--;
            for (int s = was + 1; s < sessions.size(); s++) {
                if (taken[s] < sessions.get(s).steps().size()) {
                    chosen[p] = s;
                    taken[s]++;
                    fillFrom(p + 1);
                    return true;
                }
            }
        }
        return false;
    }
}
