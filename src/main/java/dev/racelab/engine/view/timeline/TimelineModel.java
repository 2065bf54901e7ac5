package dev.racelab.engine.view.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.TimeOrigin;
import dev.racelab.engine.EventLog;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Printable;
import dev.racelab.engine.RecentEvents;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The timeline's data: one {@link Lane} per actor, arrows from releases to the wake-ups they
 * caused, and the places of violations, built from a run's record alone (its lanes come from the
 * record's {@link EventKind#ACTOR} events), so a live run and an opened recording look the same.
 *
 * <p>The window's is fed once per frame (by its {@link dev.racelab.engine.view.Feed}) with whatever the recorder got since the
 * last frame, at most a bounded batch so a burst never stalls a frame, and keeps every segment,
 * label and mark. A picture's is {@linkplain #folded folded} to its pixel columns and fed the
 * events as a recording is read ({@link #accept}): it keeps what each column shows, so its memory
 * does not grow with the run. Times are nanoseconds since the first event. Owned by the thread
 * that feeds it (the FX thread for the window's).
 */
public final class TimelineModel {

    /**
     * Folded: the most characters kept of an event's text (a lane's name, a state's or a mark's
     * subject), a label's worth: a line of a recording may be 8 MiB, and what a column keeps would
     * otherwise hold the file's texts whole.
     */
    private static final int LONGEST_TEXT = ServerReport.LONGEST_LABEL;

    /** Folded: the most arrows kept; past it a picture is solid with them anyway. */
    private static final int MOST_ARROWS = 1 << 17;

    /** The window's: the run's log, which it finds arrows' causes in (its feed hands it the events); null when folded. */
    private final EventLog events;
    /** Folded: the columns every lane is folded to, where the latest events happened, the arrows kept. */
    private final Columns columns;
    private RecentEvents recent;
    private Set<ArrowKey> arrowsKept;
    public final List<Lane> lanes = new ArrayList<>();
    private final Words words = new Words();
    public final Growable.Longs arrowFromTime = new Growable.Longs();
    public final Growable.Ints arrowFromLane = new Growable.Ints();
    public final Growable.Longs arrowToTime = new Growable.Longs();
    public final Growable.Ints arrowToLane = new Growable.Ints();
    /** Arrows from an overwriting write back to each write it never saw (a lost update), in the order recorded. */
    public final Growable.Longs overwriteFromTime = new Growable.Longs();
    public final Growable.Ints overwriteFromLane = new Growable.Ints();
    public final Growable.Longs overwriteToTime = new Growable.Longs();
    public final Growable.Ints overwriteToLane = new Growable.Ints();
    public final Growable.Longs violationTime = new Growable.Longs();
    public final Growable.Ints violationLane = new Growable.Ints();
    public final Growable.Longs violationSeq = new Growable.Longs();
    /** What the violation marks are, when all of them say the same: "overwriting writes"; else null. */
    private String violationSubject;
    private boolean violationSubjectsDiffer;
    private final Map<EventKind, Long> counts = new EnumMap<>(EventKind.class);
    /** Per server lane: what it says of each worker, to compose its label. */
    private final Map<Integer, ServerReport> serverStates = new TreeMap<>();
    private final Set<ActorState> statesSeen = EnumSet.noneOf(ActorState.class);
    private final Set<EventKind> marksSeen = EnumSet.noneOf(EventKind.class);
    /** Time zero: the run's start ({@link TimeOrigin}). */
    private final TimeOrigin timeOrigin = new TimeOrigin();
    private long origin = TimeOrigin.UNKNOWN;
    private long latest;
    /** How many events it has taken ({@link #revision}). */
    private long revision;
    /** When the run ended (its {@code RUN_ENDED}), or -1 while it goes on. */
    private long ended = -1;

    public TimelineModel(EventLog events) {
        this.events = events;
        this.columns = null;
        this.recent = null;
        this.arrowsKept = null;
    }

    private TimelineModel(Columns columns) {
        this.events = null;
        this.columns = columns;
        this.recent = new RecentEvents();
        this.arrowsKept = new HashSet<>();
    }

    /**
     * A timeline for a picture of {@code columns}, fed by {@link #accept}: each lane keeps per
     * column what the column shows (see {@link Lane}), arrows one per pair of columns and lanes,
     * no list of violations (their marks are on the lanes). Folded to {@link Columns#ONE}, it
     * keeps next to nothing and still knows where the run ends.
     */
    public static TimelineModel folded(Columns columns) {
        return new TimelineModel(columns);
    }

    /**
     * How many events this model has taken: what it shows changes only when this does, so a
     * picture of it painted before can be shown again as it is.
     */
    public long revision() {
        return revision;
    }

    /**
     * No more events come to this folded model: it lets go of what only taking them needed (where
     * the latest events happened, which arrows it kept: up to 12 MB and 10 MB), before it is drawn.
     */
    public void fed() {
        recent = null;
        arrowsKept = null;
    }

    /** Takes the run's next event, in sequence order (from the window's {@link dev.racelab.engine.view.Feed}, or a recording read). */
    public void accept(Event e) {
        revision++;
        take(columns != null && e.subject() != null && e.subject().length() > LONGEST_TEXT
                ? new Event(e.seq(), e.nanos(), e.actor(), e.kind(), Printable.excerpt(e.subject(), LONGEST_TEXT),
                        e.value())
                : e);
        if (recent != null) {
            recent.add(e);
        }
    }

    private void take(Event e) {
        if (e.kind() == EventKind.ACTOR) {
            addLane(new Actor(e.actor(), e.subject(), Actor.Kind.values()[(int) e.value()]));
            return;
        }
        if (timeOrigin.see(e)) {
            // Time starts when the workers do; connecting them comes before and is drawn at 0.
            origin = timeOrigin.nanos();
            latest = 0;
        }
        long t = Math.max(0, e.nanos() - origin);
        latest = Math.max(latest, t);
        Lane lane = lane(e.actor());
        counts.merge(e.kind(), 1L, Long::sum);
        switch (e.kind()) {
            case STATE -> {
                lane.state(t, e.state(), e.subject());
                statesSeen.add(e.state());
            }
            case SERVER_SAMPLE -> serverSample(lane, e, t);
            case SERVER_HOLDS, SERVER_WAITS, SERVER_ORPHANS -> serverLock(lane, e, readTime(lane, t));
            case SERVER_VALUE -> serverValue(lane, e, readTime(lane, t));
            case WOKEN -> {
                if (earlier(e.value())) {
                    long from = earlierNanos(e.value()) - origin;
                    int fromLane = earlierActor(e.value());
                    if (keepArrow(e.kind(), from, fromLane, t, e.actor())) {
                        arrowFromTime.add(from);
                        arrowFromLane.add(fromLane);
                        arrowToTime.add(t);
                        arrowToLane.add(e.actor());
                    }
                    marksSeen.add(e.kind());
                }
            }
            case OVERWROTE -> {
                if (earlier(e.value())) {
                    long to = earlierNanos(e.value()) - origin;
                    int toLane = earlierActor(e.value());
                    if (keepArrow(e.kind(), t, e.actor(), to, toLane)) {
                        overwriteFromTime.add(t);
                        overwriteFromLane.add(e.actor());
                        overwriteToTime.add(to);
                        overwriteToLane.add(toLane);
                    }
                    marksSeen.add(e.kind());
                }
            }
            case RUN_ENDED -> {
                ended = t;
                lane.mark(e, t);
            }
            case RUN_STARTED, RUN_PAUSED -> lane.mark(e, t);
            default -> {
                if (e.kind() == EventKind.VIOLATION && columns == null) {
                    violationTime.add(t);
                    violationLane.add(e.actor());
                    violationSeq.add(e.seq());
                    noteViolationSubject(e.subject());
                }
                if (e.kind() == EventKind.VIOLATION && columns != null) {
                    noteViolationSubject(e.subject());
                }
                if (e.kind().marked()) {
                    lane.mark(e, t);
                    marksSeen.add(e.kind());
                }
            }
        }
    }

    /**
     * What an observer reports holds from the time of the read that saw it (the lane's latest
     * {@code SERVER_SAMPLE}), not from when the answer was recorded; recordings without samples
     * keep the event's own time.
     */
    private static long readTime(Lane serverLane, long t) {
        return serverLane.sampleTime.size() == 0 ? t : serverLane.sampleTime.last();
    }

    /**
     * How long after a read its facts are drawn when no read follows: one period and a half. A
     * later read is late; the time between is drawn hatched, as of the old read, and no worker's
     * stripe shows anything held there on the strength of it.
     */
    private static long grace(Lane serverLane) {
        return serverLane.samplePeriod + serverLane.samplePeriod / 2;
    }

    /**
     * A read of the server. If it came late, what the previous read saw ends at that read's grace:
     * the time between is drawn hatched on the lane, its words "as of" the previous read, and left
     * empty on the stripes of the workers it spoke of; the previous facts are drawn again from this
     * read, until it says otherwise.
     */
    private void serverSample(Lane serverLane, Event e, long t) {
        // A period from a file: none below zero, none so long that its grace overflows.
        serverLane.samplePeriod = Math.max(0, Math.min(e.value(), Long.MAX_VALUE / 4_000)) * 1_000;
        ServerReport state = serverStates.get(serverLane.actor);
        if (state != null && state.text != null && serverLane.sampleTime.size() > 0 && serverLane.samplePeriod > 0) {
            long previous = serverLane.sampleTime.last();
            long unread = previous + grace(serverLane);
            if (t > unread) {
                String why = "not read from " + formatTime(previous, 1e4) + " to "
                        + formatTime(t, 1e4) + " (the observer was late)";
                serverLane.label(unread, "as of " + formatTime(previous, 1e4) + ": " + state.text + "; "
                        + why, "as of " + formatTime(previous, 1e4), state.ink, true);
                state.workers().forEach(worker -> lane(worker).serverUnread(unread, "server: " + why));
                serverLane.label(t, state.text, state.shorter, state.ink);
                state.workers().forEach(worker -> lane(worker).serverRead(t));
            }
        }
        serverLane.sample(t);
    }

    /** Whether event {@code seq}, which an arrow points back to, is known: in the log, or recent enough. */
    private boolean earlier(long seq) {
        return events != null ? events.get(seq) != null : recent.has(seq);
    }

    private long earlierNanos(long seq) {
        return events != null ? events.get(seq).nanos() : recent.nanos(seq);
    }

    private int earlierActor(long seq) {
        return events != null ? events.get(seq).actor() : recent.actor(seq);
    }

    /**
     * Whether to keep an arrow: always in the window's; folded, one of a kind per pair of columns
     * and lanes (more would be drawn on top of it), at most {@link #MOST_ARROWS} in all.
     */
    private boolean keepArrow(EventKind kind, long fromTime, int fromLane, long toTime, int toLane) {
        return columns == null || arrowsKept.size() < MOST_ARROWS && arrowsKept.add(
                new ArrowKey(kind, columns.of(fromTime), fromLane, columns.of(toTime), toLane));
    }

    /** An arrow as a folded picture draws it: between which columns of which lanes. */
    private record ArrowKey(EventKind kind, int fromColumn, int fromLane, int toColumn, int toLane) {
    }

    private void serverLock(Lane serverLane, Event e, long t) {
        ServerReport state = serverStates.computeIfAbsent(serverLane.actor, k -> new ServerReport());
        if (e.kind() == EventKind.SERVER_ORPHANS) {
            state.orphans = ServerReport.sentence(e.subject());
            state.orphanCount = e.value();
        } else {
            int worker = (int) e.value();
            Lane workerLane = lane(worker);
            String what = ServerReport.words(e.subject());
            if (e.kind() == EventKind.SERVER_HOLDS) {
                workerLane.serverHolds(serverLane.actor, t, what);
                state.put(state.holds, worker, what);
            } else {
                workerLane.serverWaits(serverLane.actor, t, what);
                state.put(state.waits, worker, what);
            }
        }
        Ink ink = state.orphans != null ? Ink.RACE
                : !state.holds.isEmpty() ? Ink.HOLDING : state.waits.isEmpty() ? Ink.SURFACE : Ink.WAITING;
        state.show(serverLane, t, state.describe(this, false), state.describe(this, true), ink);
    }

    private void serverValue(Lane serverLane, Event e, long t) {
        ServerReport state = serverStates.computeIfAbsent(serverLane.actor, k -> new ServerReport());
        state.value(e.subject(), e.value());
        state.show(serverLane, t, state.describeValues(false), state.describeValues(true),
                state.flip ? Ink.SURFACE : Ink.OUTLINE);
        state.flip = !state.flip;
        serverLane.mark(e, t);
    }

    /**
     * Where label {@code s} of server lane {@code lane} ends as drawn: at the next label, or, for
     * the last one, at the lane's last read and its grace, never after the run ended.
     */
    public long labelStop(Lane lane, int s) {
        return s + 1 < lane.labelStart.size() ? lane.labelStart.get(s + 1) : openEnd(lane);
    }

    /** Where stripe segment {@code s} of worker lane {@code lane} ends as drawn, as {@link #labelStop}. */
    public long stripeStop(Lane lane, int s) {
        if (s + 1 < lane.stripeStart.size()) {
            return lane.stripeStart.get(s + 1);
        }
        return lane.stripeSource < 0 ? openEnd(null) : openEnd(lane(lane.stripeSource));
    }

    /** The columns a folded timeline keeps, or null: the window's keeps everything. */
    public Columns columns() {
        return columns;
    }

    /** Where the timeline ends: the run's end, or while it goes on its latest event. */
    public long end() {
        return ended >= 0 ? ended : latest;
    }

    /** The end of what a server lane shows now: its last read and grace, the latest event, the run's end. */
    private long openEnd(Lane serverLane) {
        long end = ended >= 0 ? ended : latest;
        if (serverLane != null && serverLane.sampleTime.size() > 0) {
            end = Math.min(end, serverLane.sampleTime.last() + grace(serverLane));
        }
        return end;
    }

    private void addLane(Actor actor) {
        lane(actor.id());
        lanes.set(actor.id(), new Lane(actor, columns, words));
    }

    /** The lane of {@code actor}; one the record has not announced is drawn as a nameless server lane. */
    public Lane lane(int actor) {
        while (actor >= lanes.size()) {
            int next = lanes.size();
            lanes.add(new Lane(new Actor(next, "#" + next, Actor.Kind.SERVER), columns, words));
        }
        return lanes.get(actor);
    }

    /** The states workers have been in so far, for the legend. */
    public Set<ActorState> statesSeen() {
        return Collections.unmodifiableSet(statesSeen);
    }

    /** The kinds of mark and of arrow drawn so far, for the legend. */
    public Set<EventKind> marksSeen() {
        return Collections.unmodifiableSet(marksSeen);
    }

    public int laneCount() {
        return lanes.size();
    }

    public String laneName(int lane) {
        return lanes.get(lane).name;
    }

    /** Nanoseconds from the first event to the latest. */
    public long latest() {
        return latest;
    }

    /** Time zero on the run's clock ({@link TimeOrigin}: the run's start), or {@link TimeOrigin#UNKNOWN} before any event. */
    public long origin() {
        return origin;
    }

    /** How many events of {@code kind} the timeline has taken. */
    public long count(EventKind kind) {
        return counts.getOrDefault(kind, 0L);
    }

    /** How many arrows point from an overwriting write back to a write it overwrote. */
    public int overwriteArrows() {
        return overwriteFromTime.size();
    }

    public int violations() {
        return violationTime.size();
    }

    /**
     * What the violation marks are, as the lab named them (the VIOLATION events' subject, e.g.
     * "overwriting writes"), when every mark has the same name; null before any or when they differ.
     */
    public String violationSubject() {
        return violationSubjectsDiffer ? null : violationSubject;
    }

    private void noteViolationSubject(String subject) {
        if (violationSubject == null) {
            violationSubject = subject;
        } else if (!violationSubject.equals(subject)) {
            violationSubjectsDiffer = true;
        }
    }

    /** Where the violation with sequence number {@code seq} is: its index, or -1. */
    public int violationIndex(long seq) {
        for (int i = 0; i < violationSeq.size(); i++) {
            if (violationSeq.get(i) == seq) {
                return i;
            }
        }
        return -1;
    }

    /** A time on the timeline in words, as precise as {@code step} (the grid's spacing, in ns) asks: "0.4 s", "12.5 ms". */
    public static String formatTime(double nanos, double step) {
        if (step >= 1e9) {
            return String.format("%.0f s", nanos / 1e9);
        }
        if (step >= 1e8) {
            return String.format("%.1f s", nanos / 1e9);
        }
        if (step >= 1e6) {
            return String.format("%.0f ms", nanos / 1e6);
        }
        if (step >= 1e5) {
            return String.format("%.1f ms", nanos / 1e6);
        }
        return String.format("%.2f ms", nanos / 1e6);
    }
}
