package dev.racelab.engine.view.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;

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

    /** Server lanes: when the observer read the server ({@code SERVER_SAMPLE}), in order. */
    public final Growable.Longs sampleTime = new Growable.Longs();
    /** Server lanes: the observer's period, in nanoseconds; 0 in recordings made before samples were recorded. */
    long samplePeriod;

    public final Growable.Longs markTime = new Growable.Longs();
    public final Growable.Bytes markKind = new Growable.Bytes();
    public final Growable.Longs markValue = new Growable.Longs();
    public final Growable.Longs markSeq = new Growable.Longs();
    public final Growable.Strings markSubject = new Growable.Strings();

    /** The server lane whose reads the stripe shows, or -1. */
    public int stripeSource() {
        return stripeSource;
    }

    /** The observer's period on a server lane, in nanoseconds; 0 in recordings made before samples were recorded. */
    public long samplePeriod() {
        return samplePeriod;
    }

    Lane(Actor actor) {
        this.actor = actor.id();
        this.name = actor.name();
        this.kind = actor.kind();
    }

    void state(long time, ActorState state, String subject) {
        segStart.add(time);
        segState.add(state.ordinal());
        segSubject.add(subject);
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
        stripeStart.add(time);
        stripeState.add(SERVER_NONE);
        stripeText.add(why);
    }

    /** The next read came: the stripe shows again what the server said before the gap. */
    void serverRead(long time) {
        stripe(time);
    }

    private void stripe(long time) {
        stripeStart.add(time);
        if (serverWaits != null) {
            stripeState.add(SERVER_WAITS);
            stripeText.add("server: waits " + serverWaits);
        } else if (serverHolds != null) {
            stripeState.add(SERVER_HOLDS);
            stripeText.add("server: holds " + serverHolds);
        } else {
            stripeState.add(SERVER_NONE);
            stripeText.add(null);
        }
    }

    void label(long time, String text, String shorter, Ink ink) {
        label(time, text, shorter, ink, false);
    }

    void label(long time, String text, String shorter, Ink ink, boolean stale) {
        labelStart.add(time);
        labelText.add(text);
        labelShort.add(shorter);
        labelInk.add(ink.ordinal());
        labelStale.add(stale ? 1 : 0);
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

    void mark(Event event, long time) {
        markTime.add(time);
        markKind.add(event.kind().ordinal());
        markValue.add(event.value());
        markSeq.add(event.seq());
        markSubject.add(event.subject());
    }
}
