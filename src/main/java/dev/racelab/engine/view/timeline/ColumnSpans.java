package dev.racelab.engine.view.timeline;

/**
 * Which of a lane's pieces each pixel column shows: pieces laid end to end (a worker's states, its
 * stripe, a server lane's labels), each from its start to the next one's, the last to an open end.
 * A column shows the piece going on when it begins and every piece beginning in it.
 *
 * <p>Measured as <em>runs</em>: run {@code k} is column {@link #at(int) at(k)}, which shows pieces
 * {@link #first(int) first(k)} to {@link #last(int) last(k)}, and the columns after it up to
 * {@link #until(int) until(k)}, which show piece {@code last(k)} alone (none begins in them).
 * Columns in no run show nothing. There are at most as many runs as columns, however many pieces.
 *
 * <p>Where a piece lies is reckoned as the exported pictures' {@link Columns} reckon it, to the
 * last bit: a time's column is {@code (t - start) × (1 / nanosPerColumn)}, rounded down; before
 * the view it is -1, at the right edge the last column, after the view's end none. Where many
 * pieces begin in one column the next column's first is found by galloping, so a column covering a
 * thousand pieces costs a few dozen steps and a frame costs its columns, not the pieces in view.
 *
 * <p>The starts must ascend. In the window's lanes they may not quite: events recorded by different
 * threads can come a few microseconds out of order (a folded lane makes them ascend). There a
 * column can show the state of a piece next to it, never one out of view or far away.
 *
 * <p>Owned by the thread that draws.
 */
public final class ColumnSpans {

    private int[] at = new int[0];
    private int[] first = new int[0];
    private int[] last = new int[0];
    private int[] until = new int[0];
    private int runs;
    private int width;
    private double start;
    private double inverse;
    private double nanosPerColumn;
    private double end;

    /**
     * Measures pieces beginning at {@code starts} (ascending), the last ending at {@code openEnd},
     * over {@code columns} columns from {@code start} ns, each {@code nanosPerColumn} wide.
     */
    public void measure(Growable.Longs starts, long openEnd, int columns, double start, double nanosPerColumn) {
        if (at.length < columns + 1) {
            at = new int[columns + 1];
            first = new int[columns + 1];
            last = new int[columns + 1];
            until = new int[columns + 1];
        }
        width = columns;
        this.start = start;
        this.inverse = 1.0 / nanosPerColumn;
        this.nanosPerColumn = nanosPerColumn;
        this.end = start + columns * nanosPerColumn;
        runs = 0;
        int n = starts.size();
        long[] times = starts.raw();
        int lastColumn = columns - 1;
        // The first piece beginning in view; the one before it, if any, is going on when the view begins.
        int s = firstFrom(starts, 0, 0);
        int column = s < n ? column(times[s]) : columns;
        int through = Math.min(lastColumn, s < n ? column - 1 : column(openEnd));
        if (s > 0 && through >= 0) {
            run(0, s - 1, s - 1, through);
        }
        // From one column where pieces begin to the next: that column shows those and the one going on
        // into it; the columns after it, up to where the next begins, show only the last of them.
        while (column <= lastColumn) {
            int next = s + 1;
            int nextColumn = next < n ? column(times[next]) : columns;
            if (nextColumn <= column) {
                next = firstFrom(starts, next, column + 1);
                nextColumn = next < n ? column(times[next]) : columns;
            }
            run(column, Math.max(0, s - 1), next - 1, Math.min(lastColumn, next < n ? nextColumn - 1 : column(openEnd)));
            s = next;
            column = nextColumn;
        }
    }

    private void run(int column, int from, int to, int through) {
        at[runs] = column;
        first[runs] = from;
        last[runs] = to;
        until[runs] = Math.max(column, through);
        runs++;
    }

    /** How many runs were measured. */
    public int runs() {
        return runs;
    }

    /** The column run {@code k} begins at. */
    public int at(int k) {
        return at[k];
    }

    /** The first piece column {@code at(k)} shows. */
    public int first(int k) {
        return first[k];
    }

    /** The last piece column {@code at(k)} shows, the one the rest of the run shows alone. */
    public int last(int k) {
        return last[k];
    }

    /** The last column of run {@code k}: those after {@code at(k)} show {@code last(k)} alone. */
    public int until(int k) {
        return until[k];
    }

    /** The column of time {@code t}: -1 before the view, the number of columns after its end. */
    public int column(double t) {
        if (t > end) {
            return width;
        }
        double x = (t - start) * inverse;
        if (x < 0) {
            return -1;
        }
        int column = (int) x;
        return column < width ? column : width - 1;
    }

    /**
     * The first of {@code starts} from {@code from} on whose column is {@code column} or later, or
     * their number: found by comparing times with the column's edge, then made exact by {@link
     * #column(double)} where rounding decides, within a nanosecond of it.
     */
    private int firstFrom(Growable.Longs starts, int from, int column) {
        double edge = column >= width ? end : start + column * nanosPerColumn;
        int i = starts.firstReaching(from, edge, column >= width);
        while (i > from && starts.get(i - 1) >= edge - 1 && column(starts.get(i - 1)) >= column) {
            i--;
        }
        while (i < starts.size() && starts.get(i) <= edge + 1 && column(starts.get(i)) < column) {
            i++;
        }
        return i;
    }
}
