package dev.racelab.engine.view.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;

import java.util.Arrays;
import java.util.Objects;

/**
 * What one lane shows, kept as parallel primitive arrays in time order, so drawing any window of
 * time is a binary search and a scan.
 *
 * <ul>
 *   <li><b>Segments</b>: a worker's states, each from its start until the next one starts.</li>
 *   <li><b>Server stripe</b> (workers): what the server says of this worker's session — waiting
 *       or holding — drawn under the worker's own story.</li>
 *   <li><b>Labels</b> (server lanes): the server's state in words ("counter = 41", "client-1
 *       holds the counter row · 2 waiting"), each until the next.</li>
 *   <li><b>Markers</b>: tokens, writes accepted and rejected, reads, violations, errors.</li>
 * </ul>
 *
 * <p><b>Folded</b> to a picture's {@link Columns} ({@link TimelineModel#folded}), a lane keeps
 * per pixel column only what the column shows: of the segments that begin in it, the one that
 * wins the column by the window's rule ({@link StateColumns}: the most telling state, the later of
 * two as telling) and the one going on after it; of the stripe's likewise (the later thing the
 * server says wins); the first and the last label; one mark of each kind; the last read. Drawn
 * by the same rules, a folded lane looks as the whole one does, column for column.
 *
 * <p>Folded, a time earlier than the last one kept (events recorded by different threads may come
 * slightly out of order, a crafted file in any order) counts as that last one: its column is the
 * last kept column, so every array stays in time order and each column is met once, and what a
 * lane keeps is bounded by its columns however the times come.
 */
public final class Lane {

    /** The enums' values, cached: {@code values()} copies its array on every call. */
    public static final ActorState[] STATES = ActorState.values();
    public static final EventKind[] KINDS = EventKind.values();
    public static final Ink[] INKS = Ink.values();

    public static final int SERVER_NONE = 0;
    public static final int SERVER_WAITS = 1;
    public static final int SERVER_HOLDS = 2;

    public final int actor;
    public final String name;
    public final Actor.Kind kind;

    public final Growable.Longs segStart = new Growable.Longs();
    public final Growable.Bytes segState = new Growable.Bytes();
    public final Growable.Strings segSubject = new Growable.Strings();

    public final Growable.Longs stripeStart = new Growable.Longs();
    public final Growable.Bytes stripeState = new Growable.Bytes();
    public final Growable.Strings stripeText = new Growable.Strings();
    private String serverHolds;
    private String serverWaits;
    /** The server lane whose reads the stripe shows (its samples end the stripe's last segment), or -1. */
    int stripeSource = -1;

    public final Growable.Longs labelStart = new Growable.Longs();
    public final Growable.Strings labelText = new Growable.Strings();
    /** The same in fewer words ("client-7 holds · 3 wait"), for where the whole text has no room. */
    public final Growable.Strings labelShort = new Growable.Strings();
    public final Growable.Bytes labelInk = new Growable.Bytes();
    /** 1 where the label is an old read's, drawn on while no new read came (hatched): the view lags there. */
    public final Growable.Bytes labelStale = new Growable.Bytes();

    /** Server lanes: when the observer read the server ({@code SERVER_SAMPLE}), in order (folded: the last per column). */
    public final Growable.Longs sampleTime = new Growable.Longs();
    /** Server lanes: the observer's period, in nanoseconds; 0 in recordings made before samples were recorded. */
    long samplePeriod;

    public final Growable.Longs markTime = new Growable.Longs();
    public final Growable.Bytes markKind = new Growable.Bytes();
    public final Growable.Longs markValue = new Growable.Longs();
    public final Growable.Longs markSeq = new Growable.Longs();
    public final Growable.Strings markSubject = new Growable.Strings();

    /** Per kind of mark (its ordinal), the indexes of its marks in order, and their times; null for a kind not seen. */
    private final Growable.Ints[] marksByKind = new Growable.Ints[KINDS.length];
    private final Growable.Longs[] markTimesByKind = new Growable.Longs[KINDS.length];

    /**
     * The window's lanes (not folded): which of a run of segments, and of stripe pieces, is the
     * most telling, in a few steps; null when folded (a column keeps at most two anyway).
     */
    final MostTelling segWinners;
    private final MostTelling stripeWinners;
    /** The window's lanes: the longest segment per block of 16 and of 256 (the last, still open, not counted); null when folded. */
    private final Growable.Longs longest16;
    private final Growable.Longs longest256;

    /** The picture's columns this lane is folded to, or null: every segment, label and mark kept. */
    private final Columns columns;
    /** The timeline's words, each kept once (the stripe's and the labels' texts). */
    private final Words words;
    /** Folded: per kind of mark, the column of its last mark kept. */
    private final int[] markColumn;

    /** The server lane whose reads the stripe shows, or -1. */
    public int stripeSource() {
        return stripeSource;
    }

    /** The observer's period on a server lane, in nanoseconds; 0 in recordings made before samples were recorded. */
    public long samplePeriod() {
        return samplePeriod;
    }

    Lane(Actor actor, Columns columns, Words words) {
        this.words = words;
        this.actor = actor.id();
        this.name = actor.name();
        this.kind = actor.kind();
        this.columns = columns;
        this.segWinners = columns == null ? new MostTelling() : null;
        this.stripeWinners = columns == null ? new MostTelling() : null;
        this.longest16 = columns == null ? new Growable.Longs() : null;
        this.longest256 = columns == null ? new Growable.Longs() : null;
        this.markColumn = columns == null ? null : new int[KINDS.length];
        if (markColumn != null) {
            Arrays.fill(markColumn, Integer.MIN_VALUE);
        }
    }

    void state(long at, ActorState state, String subject) {
        long time = inOrder(segStart, at);
        if (!folded(segStart, segState, segSubject, time, state.ordinal(), subject, state.priority())) {
            segStart.add(time);
            segState.add(state.ordinal());
            segSubject.add(subject);
            if (segWinners != null) {
                segWinners.add(StateColumns.key(state.ordinal()));
                int ended = segStart.size() - 2;
                if (ended >= 0) {
                    longest(longest16, ended >> 4, time - segStart.get(ended));
                    longest(longest256, ended >> 8, time - segStart.get(ended));
                }
            }
        }
    }

    /**
     * Folds a segment beginning at {@code time} into the column where the last one began, if it is
     * the same: the column keeps at most two, the one that wins it ({@code priority}, the later of
     * two as high; a single one) and the one after it. True if folded, false to append.
     */
    private boolean folded(Growable.Longs starts, Growable.Bytes states, Growable.Strings texts, long time, int state,
                           String text, int priority) {
        int n = starts.size();
        if (columns == null || n == 0 || columns.of(starts.last()) != columns.of(time)) {
            return false;
        }
        boolean two = n > 1 && columns.of(starts.get(n - 2)) == columns.of(time);
        int winner = two ? n - 2 : n - 1;
        if (priority >= priority(states, winner)) {
            // The newcomer wins the column and goes on after it: one segment, from the column's first.
            states.set(winner, state);
            texts.set(winner, text);
            if (two) {
                starts.removeLast();
                states.removeLast();
                texts.removeLast();
            }
            return true;
        }
        if (two) {
            starts.set(n - 1, time);
            states.set(n - 1, state);
            texts.set(n - 1, text);
            return true;
        }
        return false;
    }

    /** Folded: {@code time}, or the last of {@code times} kept if it is later (see the class comment). */
    private long inOrder(Growable.Longs times, long time) {
        return columns == null || times.size() == 0 ? time : Math.max(time, times.last());
    }

    /** How telling segment {@code i} is: a state's priority; on the stripe, anything the server says beats nothing. */
    private int priority(Growable.Bytes states, int i) {
        return states == segState ? STATES[states.get(i)].priority() : states.get(i) == SERVER_NONE ? 0 : 1;
    }

    private static void longest(Growable.Longs blocks, int block, long length) {
        if (block == blocks.size()) {
            blocks.add(length);
        } else if (length > blocks.get(block)) {
            blocks.set(block, length);
        }
    }

    /**
     * The first segment from {@code from} to {@code to} lasting at least {@code min} ns (the last
     * segment lasts until {@code now}), or -1: blocks of segments all shorter are passed over whole,
     * so finding the few segments wide enough for words costs little however many lie between.
     */
    public int nextLongSegment(int from, int to, long min, long now) {
        int n = segStart.size();
        int last = Math.min(to, n - 1);
        int i = Math.max(0, from);
        while (i <= last) {
            if (longest256 != null && (i & 255) == 0 && i + 255 < n - 1 && i + 255 <= last
                    && longest256.get(i >> 8) < min) {
                i += 256;
            } else if (longest16 != null && (i & 15) == 0 && i + 15 < n - 1 && i + 15 <= last
                    && longest16.get(i >> 4) < min) {
                i += 16;
            } else {
                long stop = i + 1 < n ? segStart.get(i + 1) : now;
                if (stop - segStart.get(i) >= min) {
                    return i;
                }
                i++;
            }
        }
        return -1;
    }

    /** The indexes of this lane's marks of {@code kind} (its ordinal), in order; null if it has none. */
    public Growable.Ints marksOfKind(int kind) {
        return marksByKind[kind];
    }

    /** The times of this lane's marks of {@code kind}, as {@link #marksOfKind} lists them; null if it has none. */
    public Growable.Longs markTimesOfKind(int kind) {
        return markTimesByKind[kind];
    }

    /**
     * Of stripe pieces {@code from} to {@code to} (both included), the last that says something
     * (waits or holds), or -1 if none does: what their pixel column shows.
     */
    public int stripeShown(int from, int to) {
        if (stripeWinners != null) {
            int winner = stripeWinners.winner(from, to);
            return stripeWinners.key(winner) < 0 ? -1 : winner;
        }
        for (int s = to; s >= from; s--) {
            if (stripeState.get(s) != SERVER_NONE) {
                return s;
            }
        }
        return -1;
    }

    /** The state at the end of the lane so far, or IDLE. */
    public ActorState currentState() {
        int n = segState.size();
        return n == 0 ? ActorState.IDLE : STATES[segState.get(n - 1)];
    }

    void serverHolds(int source, long time, String what) {
        serverHolds = what;
        stripeSource = source;
        stripe(time);
    }

    void serverWaits(int source, long time, String what) {
        serverWaits = what;
        stripeSource = source;
        stripe(time);
    }

    /** Whether the server says anything of this worker now (holds or waits). */
    boolean serverSaysSomething() {
        return serverHolds != null || serverWaits != null;
    }

    /** The server was not read from {@code time} on: the stripe shows nothing until the next read says again. */
    void serverUnread(long time, String why) {
        stripeSegment(time, SERVER_NONE, why);
    }

    /** The next read came: the stripe shows again what the server said before the gap. */
    void serverRead(long time) {
        stripe(time);
    }

    private void stripe(long time) {
        if (serverWaits != null) {
            stripeSegment(time, SERVER_WAITS, "server: waits " + serverWaits);
        } else if (serverHolds != null) {
            stripeSegment(time, SERVER_HOLDS, "server: holds " + serverHolds);
        } else {
            stripeSegment(time, SERVER_NONE, null);
        }
    }

    private void stripeSegment(long at, int state, String said) {
        String text = words.of(said);
        long time = inOrder(stripeStart, at);
        if (!folded(stripeStart, stripeState, stripeText, time, state, text, state == SERVER_NONE ? 0 : 1)) {
            stripeStart.add(time);
            stripeState.add(state);
            stripeText.add(text);
            if (stripeWinners != null) {
                stripeWinners.add(state == SERVER_NONE ? -1 : 1);
            }
        }
    }

    void label(long time, String text, String shorter, Ink ink) {
        label(time, text, shorter, ink, false);
    }

    void label(long at, String said, String saidShorter, Ink ink, boolean stale) {
        String text = words.of(said);
        String shorter = words.of(saidShorter);
        long time = inOrder(labelStart, at);
        int n = labelStart.size();
        if (columns != null && n > 1 && columns.of(labelStart.get(n - 2)) == columns.of(time)) {
            // Folded: the column's first label stays, the last takes the place of those between.
            labelStart.set(n - 1, time);
            labelText.set(n - 1, text);
            labelShort.set(n - 1, shorter);
            labelInk.set(n - 1, ink.ordinal());
            labelStale.set(n - 1, stale ? 1 : 0);
            return;
        }
        labelStart.add(time);
        labelText.add(text);
        labelShort.add(shorter);
        labelInk.add(ink.ordinal());
        labelStale.add(stale ? 1 : 0);
    }

    /** A read of the server at {@code time}; folded, the last of a column's reads stands for them. */
    void sample(long at) {
        long time = inOrder(sampleTime, at);
        if (columns != null && sampleTime.size() > 0 && columns.of(sampleTime.last()) == columns.of(time)) {
            sampleTime.set(sampleTime.size() - 1, time);
        } else {
            sampleTime.add(time);
        }
    }

    /**
     * The last label from {@code s} on, starting no later than {@code until}, that says the same as
     * label {@code s}: reads that saw the same again, and the hatched gaps of late reads between
     * them. One text is drawn across them all.
     */
    public int sameLabelUntil(int s, long until) {
        int last = s;
        for (int i = s + 1; i < labelStart.size() && labelStart.get(i) <= until; i++) {
            if (labelStale.get(i) != 0) {
                continue;
            }
            if (!Objects.equals(labelText.get(i), labelText.get(s))) {
                break;
            }
            last = i;
        }
        return last;
    }

    /** Whether label {@code s} says something new: not a late read's gap, nor the same words read again after one. */
    public boolean labelSaysNew(int s) {
        if (labelStale.get(s) != 0) {
            return false;
        }
        int previous = s - 1;
        while (previous >= 0 && labelStale.get(previous) != 0) {
            previous--;
        }
        return previous < 0 || !Objects.equals(labelText.get(previous), labelText.get(s));
    }

    /** The time of the last read at or before {@code time}, or -1. */
    public long sampleAtOrBefore(long time) {
        int s = sampleTime.floor(time);
        return s < 0 ? -1 : sampleTime.get(s);
    }

    void mark(Event event, long at) {
        long time = inOrder(markTime, at);
        if (markColumn != null) {
            int column = columns.of(time);
            if (markColumn[event.kind().ordinal()] == column) {
                return;
            }
            markColumn[event.kind().ordinal()] = column;
        }
        int kind = event.kind().ordinal();
        if (marksByKind[kind] == null) {
            marksByKind[kind] = new Growable.Ints();
            markTimesByKind[kind] = new Growable.Longs();
        }
        marksByKind[kind].add(markTime.size());
        markTimesByKind[kind].add(time);
        markTime.add(time);
        markKind.add(event.kind().ordinal());
        markValue.add(event.value());
        markSeq.add(event.seq());
        markSubject.add(event.subject());
    }
}
