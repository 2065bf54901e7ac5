package dev.racelab.export;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.EventLog;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.timeline.Columns;
import dev.racelab.engine.view.timeline.Growable;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.StateColumns;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A picture's timeline folded to its pixel columns shows what the whole timeline shows, column for
 * column, and keeps per lane what its columns hold whatever the length of the run. The runs are two
 * real counter runs, observed (server lanes, lock waits, wake-ups, lost updates), drawn over from
 * 7 to 1450 columns, the whole run and a window of it; and a made-up run of 300,000 events.
 */
@Tag("engine")
class FoldedTimelineTest {

    @TempDir
    static Path dir;
    private static List<RunRecord> runs;

    @BeforeAll
    static void read() throws Exception {
        Path file = dir.resolve("two counter runs.racelab");
        try (InputStream in = FoldedTimelineTest.class.getResourceAsStream(
                "/dev/racelab/export/golden/two-counter-runs.racelab")) {
            Files.write(file, in.readAllBytes());
        }
        try (Backends unstarted = new Backends(BackendSettings.embedded(), dir.resolve("home"), StartupListener.SILENT)) {
            Labs labs = new Labs(unstarted);
            runs = new RecordingReader(labs).read(file).runs();
        }
    }

    private static TimelineModel whole(EventLog events) {
        TimelineModel model = new TimelineModel(events);
        new Feed(events, model::accept).catchUp();
        return model;
    }

    private static TimelineModel folded(EventLog events, Columns columns) {
        TimelineModel model = TimelineModel.folded(columns);
        for (long seq = 0; seq < events.size(); seq++) {
            model.accept(events.get(seq));
        }
        return model;
    }

    @Test
    void aFoldedTimelineShowsWhatTheWholeOneShowsColumnForColumn() {
        for (RunRecord run : runs) {
            TimelineModel whole = whole(run.events());
            long end = whole.end();
            for (Columns columns : List.of(new Columns(0, end, 1450), new Columns(0, end, 300),
                    new Columns(0, end, 40), new Columns(0, end, 7), new Columns(end / 3, end * 2 / 3, 90))) {
                TimelineModel folded = folded(run.events(), columns);
                assertEquals(whole.end(), folded.end(), "the run ends where it ends");
                assertEquals(whole.statesSeen(), folded.statesSeen());
                assertEquals(whole.marksSeen(), folded.marksSeen());
                assertEquals(whole.violationSubject(), folded.violationSubject());
                assertEquals(arrows(whole, columns), arrows(folded, columns), "arrows at " + columns);
                for (int lane = 0; lane < whole.laneCount(); lane++) {
                    Lane all = whole.lanes.get(lane);
                    Lane kept = folded.lanes.get(lane);
                    String where = all.name + " at " + columns;
                    assertEquals(states(all, columns, end), states(kept, columns, end), "states of " + where);
                    assertEquals(stripe(whole, all, columns), stripe(folded, kept, columns), "stripe of " + where);
                    assertEquals(labels(whole, all, columns), labels(folded, kept, columns), "labels of " + where);
                    assertEquals(marks(all, columns), marks(kept, columns), "marks of " + where);
                }
            }
        }
        assertTrue(runs.get(0).outcome().verdict().name().equals("RACE") && whole(runs.get(0).events()).overwriteArrows() > 0,
                "the runs have lost updates to draw");
    }

    @Test
    void aFoldedLaneKeepsWhatItsColumnsHoldWhateverTheRunsLength() {
        List<Event> events = new ArrayList<>();
        events.add(new Event(0, 0, 0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal()));
        events.add(new Event(1, 0, 1, EventKind.ACTOR, "client-1", Actor.Kind.WORKER.ordinal()));
        events.add(new Event(2, 0, 2, EventKind.ACTOR, "row locks", Actor.Kind.SERVER.ordinal()));
        SplittableRandom random = new SplittableRandom(7);
        ActorState[] states = {ActorState.RUNNING, ActorState.WAITING, ActorState.DELAYED, ActorState.HOLDING};
        long t = 0;
        while (events.size() < 300_000) {
            t += 1 + random.nextInt(20_000);
            int seq = events.size();
            events.add(switch (seq % 6) {
                case 0 -> new Event(seq, t, 1, EventKind.STATE, "gate", states[random.nextInt(states.length)].ordinal());
                case 1 -> new Event(seq, t, 2, EventKind.SERVER_SAMPLE, null, 10_000);
                case 2 -> new Event(seq, t, 2, EventKind.SERVER_HOLDS, random.nextBoolean() ? "row" : null, 1);
                case 3 -> new Event(seq, t, 1, EventKind.READ, "counter", seq);
                case 4 -> new Event(seq, t, 1, EventKind.WOKEN, "row lock", seq - 2);
                default -> new Event(seq, t, 2, EventKind.SERVER_VALUE, "counter", seq);
            });
        }
        events.add(new Event(events.size(), t + 1, 0, EventKind.RUN_ENDED, "SAFE", 0));
        EventLog log = EventLog.of(events, 0);
        Columns columns = new Columns(0, t, 1450);
        TimelineModel folded = folded(log, columns);
        Lane worker = folded.lanes.get(1);
        Lane server = folded.lanes.get(2);
        assertKeepsWhatItsColumnsHold(worker, server, columns);
        assertTrue(folded.arrowToTime.size() <= 2 * (columns.count() + 2), folded.arrowToTime.size() + " arrows");
        TimelineModel whole = whole(log);
        assertTrue(whole.lanes.get(1).segStart.size() > 40_000, "the whole one keeps every segment");
        assertEquals(states(whole.lanes.get(1), columns, whole.end()), states(worker, columns, folded.end()));
    }

    /**
     * Events recorded by different threads may come slightly out of time order, and a crafted file
     * may make them alternate between the two ends of the run: a folded lane still keeps what its
     * columns hold, not an entry per event (each time that went back was kept, 50,000 each).
     */
    @Test
    void aFoldedLaneStaysBoundedWhenTimesGoBackAndForth() {
        List<Event> events = new ArrayList<>();
        events.add(new Event(0, 0, 0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal()));
        events.add(new Event(1, 0, 1, EventKind.ACTOR, "client-1", Actor.Kind.WORKER.ordinal()));
        events.add(new Event(2, 0, 2, EventKind.ACTOR, "row locks", Actor.Kind.SERVER.ordinal()));
        long end = 1_000_000_000;
        ActorState[] states = {ActorState.RUNNING, ActorState.WAITING, ActorState.DELAYED, ActorState.HOLDING};
        while (events.size() < 300_000) {
            int seq = events.size();
            long t = seq % 2 == 1 ? 0 : end;
            events.add(switch (seq % 6) {
                case 0, 1 -> new Event(seq, t, 1, EventKind.STATE, "gate", states[seq % 4].ordinal());
                case 2 -> new Event(seq, t, 2, EventKind.SERVER_SAMPLE, null, 10_000);
                case 3 -> new Event(seq, t, 2, EventKind.SERVER_HOLDS, seq % 4 == 1 ? "row" : null, 1);
                case 4 -> new Event(seq, t, 1, EventKind.READ, "counter", seq);
                default -> new Event(seq, t, 2, EventKind.SERVER_VALUE, "counter", seq);
            });
        }
        Columns columns = new Columns(0, end, 1450);
        TimelineModel folded = folded(EventLog.of(events, 0), columns);
        Lane worker = folded.lanes.get(1);
        Lane server = folded.lanes.get(2);
        assertKeepsWhatItsColumnsHold(worker, server, columns);
        for (Growable.Longs times : List.of(worker.segStart, worker.stripeStart, worker.markTime, server.labelStart,
                server.markTime, server.sampleTime)) {
            for (int i = 1; i < times.size(); i++) {
                assertTrue(times.get(i - 1) <= times.get(i), "kept in time order, so a window of time is a search");
            }
        }
    }

    /**
     * A server lane reporting ever new values (each its own name, as a crafted file may) or many
     * workers holding things with long names: its words stay a line a picture can show, naming the
     * latest values, so neither what is kept nor the work per event grows with the names reported
     * (the label grew to every name, 5,000 of them, rebuilt on each event).
     */
    @Test
    void aServerLanesWordsStayBoundedWhateverItReports() {
        List<Event> events = new ArrayList<>();
        events.add(new Event(0, 0, 0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal()));
        events.add(new Event(1, 0, 1, EventKind.ACTOR, "values", Actor.Kind.SERVER.ordinal()));
        events.add(new Event(2, 0, 2, EventKind.ACTOR, "row locks", Actor.Kind.SERVER.ordinal()));
        int workers = 500;
        for (int w = 0; w < workers; w++) {
            events.add(new Event(events.size(), 0, 3 + w, EventKind.ACTOR, "client-" + w, Actor.Kind.WORKER.ordinal()));
        }
        String longName = "x".repeat(1_000);
        for (int i = 0; i < 5_000; i++) {
            events.add(new Event(events.size(), i, 1, EventKind.SERVER_VALUE, "gauge-" + i + " " + "y".repeat(100), i));
        }
        for (int w = 0; w < workers; w++) {
            events.add(new Event(events.size(), 5_000 + w, 2, EventKind.SERVER_HOLDS, "row " + w + longName, 3 + w));
        }
        Columns columns = new Columns(0, 10_000, 10);
        TimelineModel folded = folded(EventLog.of(events, 0), columns);
        for (Lane lane : List.of(folded.lanes.get(1), folded.lanes.get(2))) {
            assertTrue(lane.labelStart.size() <= 2 * (columns.count() + 2), lane.labelStart.size() + " labels");
            for (int s = 0; s < lane.labelStart.size(); s++) {
                assertTrue(lane.labelText.get(s).length() <= 300, lane.name + ": a label of "
                        + lane.labelText.get(s).length() + " characters");
                assertTrue(lane.labelShort.get(s).length() <= 300, lane.name + ": a short label of "
                        + lane.labelShort.get(s).length() + " characters");
            }
        }
        Lane values = folded.lanes.get(1);
        String last = values.labelText.get(values.labelStart.size() - 1);
        assertTrue(last.startsWith("gauge-4992 ") && !last.contains("gauge-0 "), "the latest values: " + last);
        Lane worker = folded.lanes.get(3);
        for (int s = 0; s < worker.stripeStart.size(); s++) {
            String text = worker.stripeText.get(s);
            assertTrue(text == null || text.length() <= 300, "a stripe's words of " + text.length() + " characters");
        }
    }

    /**
     * What a folded lane keeps of an event's text (a lane's name, a state's or a mark's subject) is
     * an excerpt, so a recording of long texts, each up to a line's 8 MiB, costs the picture no more
     * than one of short ones (each was kept whole: 1 MB a column here).
     */
    @Test
    void aFoldedTimelineKeepsAnExcerptOfLongTexts() {
        String longText = "z".repeat(1 << 20);
        List<Event> events = new ArrayList<>();
        events.add(new Event(0, 0, 0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal()));
        events.add(new Event(1, 0, 1, EventKind.ACTOR, "client-1 " + longText, Actor.Kind.WORKER.ordinal()));
        ActorState[] states = {ActorState.RUNNING, ActorState.WAITING};
        for (int column = 0; column < 100; column++) {
            events.add(new Event(events.size(), column, 1, EventKind.STATE, longText, states[column % 2].ordinal()));
            events.add(new Event(events.size(), column, 1, EventKind.READ, longText, column));
        }
        TimelineModel folded = folded(EventLog.of(events, 0), new Columns(0, 100, 100));
        Lane lane = folded.lanes.get(1);
        long kept = lane.name.length();
        for (int s = 0; s < lane.segStart.size(); s++) {
            kept += lane.segSubject.get(s).length();
        }
        for (int m = 0; m < lane.markTime.size(); m++) {
            kept += lane.markSubject.get(m).length();
        }
        assertTrue(lane.segStart.size() >= 100 && lane.markTime.size() >= 100, "a segment and a mark a column");
        assertTrue(kept < 100_000, kept + " characters kept");
        assertTrue(lane.name.startsWith("client-1 zzz"), lane.name);
    }

    /** Per column, the state the window draws there ({@link StateColumns}). */
    private static List<Integer> states(Lane lane, Columns columns, long end) {
        StateColumns painted = new StateColumns();
        painted.paint(lane, columns.count(), columns.from(), columns.nanosPerColumn(), end);
        List<Integer> states = new ArrayList<>();
        for (int x = 0; x < columns.count(); x++) {
            states.add(painted.state(x));
        }
        return states;
    }

    /** Per column, what the server's stripe under a worker shows there, as the window paints it: the last said wins. */
    private static List<Integer> stripe(TimelineModel model, Lane lane, Columns columns) {
        int[] shown = new int[columns.count()];
        for (int s = 0; s < lane.stripeStart.size(); s++) {
            if (lane.stripeState.get(s) == Lane.SERVER_NONE) {
                continue;
            }
            int[] span = span(columns, lane.stripeStart.get(s), model.stripeStop(lane, s));
            for (int x = span[0]; x <= span[1]; x++) {
                shown[x] = lane.stripeState.get(s);
            }
        }
        return Arrays.stream(shown).boxed().toList();
    }

    /** Per column, the label a server lane shows there (its words and whether stale), as the window paints it. */
    private static List<String> labels(TimelineModel model, Lane lane, Columns columns) {
        String[] shown = new String[columns.count()];
        for (int s = 0; s < lane.labelStart.size(); s++) {
            int[] span = span(columns, lane.labelStart.get(s), model.labelStop(lane, s));
            for (int x = span[0]; x <= span[1]; x++) {
                shown[x] = lane.labelInk.get(s) + (lane.labelStale.get(s) == 0 ? "" : " stale");
            }
        }
        return Arrays.asList(shown);
    }

    /** The columns from {@code start} to {@code stop}, within the picture (empty when outside). */
    private static int[] span(Columns columns, long start, long stop) {
        if (stop < columns.from() || start > columns.to()) {
            return new int[] {0, -1};
        }
        return new int[] {Math.max(0, columns.of(start)), Math.min(columns.count() - 1, columns.of(stop))};
    }

    /** Which kinds of mark each column has. */
    private static Set<String> marks(Lane lane, Columns columns) {
        Set<String> marks = new HashSet<>();
        for (int m = 0; m < lane.markTime.size(); m++) {
            marks.add(columns.of(lane.markTime.get(m)) + " " + Lane.KINDS[lane.markKind.get(m)]);
        }
        return marks;
    }

    /** Each arrow as it is drawn: from which column of which lane to which of which, of which kind. */
    private static Set<String> arrows(TimelineModel model, Columns columns) {
        Set<String> arrows = new HashSet<>();
        for (int a = 0; a < model.arrowToTime.size(); a++) {
            arrows.add("woke " + columns.of(model.arrowFromTime.get(a)) + "/" + model.arrowFromLane.get(a) + " "
                    + columns.of(model.arrowToTime.get(a)) + "/" + model.arrowToLane.get(a));
        }
        for (int a = 0; a < model.overwriteFromTime.size(); a++) {
            arrows.add("wiped " + columns.of(model.overwriteFromTime.get(a)) + "/" + model.overwriteFromLane.get(a) + " "
                    + columns.of(model.overwriteToTime.get(a)) + "/" + model.overwriteToLane.get(a));
        }
        return arrows;
    }

    /** A folded worker lane and server lane keep at most an entry or two per pixel column, not one per event. */
    private static void assertKeepsWhatItsColumnsHold(Lane worker, Lane server, Columns columns) {
        int most = 2 * (columns.count() + 2);
        assertTrue(worker.segStart.size() <= most, worker.segStart.size() + " segments");
        assertTrue(worker.stripeStart.size() <= most, worker.stripeStart.size() + " stripe segments");
        assertTrue(worker.markTime.size() <= columns.count() + 2, worker.markTime.size() + " marks");
        assertTrue(server.labelStart.size() <= most, server.labelStart.size() + " labels");
        assertTrue(server.markTime.size() <= columns.count() + 2, server.markTime.size() + " server marks");
        assertTrue(server.sampleTime.size() <= columns.count() + 2, server.sampleTime.size() + " reads");
    }
}
