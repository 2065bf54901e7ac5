package dev.racelab.engine.view.timeline;

/**
 * A picture's pixel columns in time: {@code count} columns from {@code from} to {@code to}
 * nanoseconds on the timeline. A {@linkplain TimelineModel#folded folded} timeline keeps per
 * lane and column only what that column shows, so a picture of a run of any length costs its
 * columns, not its events.
 *
 * @param from  where column 0 begins, in ns from the timeline's origin
 * @param to    where the last column ends (after {@code from})
 * @param count how many columns
 */
public record Columns(long from, long to, int count) {

    /** One column for all time: a timeline folded to it keeps next to nothing, and still knows where the run ends. */
    public static final Columns ONE = new Columns(0, Long.MAX_VALUE, 1);

    public Columns {
        if (to <= from || count < 1) {
            throw new IllegalArgumentException("columns from " + from + " to " + to + ", " + count + " of them");
        }
    }

    /** How long a column is, in ns. */
    public double nanosPerColumn() {
        return (to - from) / (double) count;
    }

    /**
     * The column time {@code t} falls in: -1 before {@code from}, {@code count} after {@code to}.
     * Reckoned as {@link StateColumns} reckons where a segment lies, to the last bit, so what a lane
     * keeps per column is what is drawn there.
     */
    public int of(long t) {
        if (t > to) {
            return count;
        }
        double x = (t - (double) from) * (1.0 / nanosPerColumn());
        return x < 0 ? -1 : (int) Math.min(count - 1, x);
    }
}
