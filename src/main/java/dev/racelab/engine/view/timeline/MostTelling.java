package dev.racelab.engine.view.timeline;

/**
 * Which of a run of a lane's segments is the most telling, in a few steps however long the run:
 * each segment's key (how telling it is; negative: drawn as nothing), and per block of 16, 256,
 * 4096, … segments the index of the block's winner. A range is answered from the largest whole
 * blocks it covers and the segments at its ends, so a pixel column covering a thousand segments
 * costs a few dozen steps, not a thousand. Of two as telling, the later wins, as when they are
 * painted one after another.
 *
 * <p>Built as segments are appended (a lane of the window's never changes a segment it has);
 * owned by the thread that feeds the lane.
 */
final class MostTelling {

    private static final int BITS = 4;
    private static final int LEVELS = 5;

    private final Growable.Bytes keys = new Growable.Bytes();
    private final Growable.Ints[] winners = new Growable.Ints[LEVELS];

    MostTelling() {
        for (int level = 0; level < LEVELS; level++) {
            winners[level] = new Growable.Ints();
        }
    }

    /** The next segment's key: how telling it is (negative: drawn as nothing). */
    void add(int key) {
        int i = keys.size();
        keys.add(key);
        for (int level = 0; level < LEVELS; level++) {
            Growable.Ints blocks = winners[level];
            int block = i >> (BITS * (level + 1));
            if (block == blocks.size()) {
                blocks.add(i);
            } else if (key >= keys.get(blocks.get(block))) {
                blocks.set(block, i);
            }
        }
    }

    int key(int i) {
        return keys.get(i);
    }

    /**
     * The most telling of segments {@code from} to {@code to} (both included, {@code from ≤ to <
     * size()}), the later of two as telling; its key may be negative (nothing drawn among them).
     */
    int winner(int from, int to) {
        byte[] raw = keys.raw();
        int best = from;
        int bestKey = raw[from];
        if (to - from < 32) {
            for (int i = from + 1; i <= to; i++) {
                if (raw[i] >= bestKey) {
                    best = i;
                    bestKey = raw[i];
                }
            }
            return best;
        }
        int i = from + 1;
        while (i <= to) {
            int level = 0;
            while (level < LEVELS) {
                int span = 1 << (BITS * (level + 1));
                if ((i & (span - 1)) != 0 || i + span - 1 > to) {
                    break;
                }
                level++;
            }
            int candidate = level == 0 ? i : winners[level - 1].get(i >> (BITS * level));
            int key = keys.get(candidate);
            if (key >= bestKey) {
                best = candidate;
                bestKey = key;
            }
            i += 1 << (BITS * level);
        }
        return best;
    }
}
