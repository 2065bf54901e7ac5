package dev.racelab.ui.timeline;

import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.engine.view.timeline.Lane;

import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.EventLog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the timeline draws a server's reads, on a record written by hand: a fact from the read that
 * saw it to the read that no longer did, at the reads' times; never on after a late read's grace
 * or the run's end.
 */
@Tag("engine")
class ServerReadsTest {

    private static final long MS = 1_000_000;
    private static final int WORKER = 1;
    private static final int LOCKS = 2;

    private final List<Event> events = new ArrayList<>();

    private void at(long ms, int actor, EventKind kind, String subject, long value) {
        events.add(new Event(events.size(), ms * MS, actor, kind, subject, value));
    }

    private TimelineModel model() {
        TimelineModel model = new TimelineModel(EventLog.of(events, 0));
        new Feed(EventLog.of(events, 0), model::accept).catchUp();
        return model;
    }

    private void lanes() {
        at(0, 0, EventKind.ACTOR, "run", Actor.Kind.RUN.ordinal());
        at(0, WORKER, EventKind.ACTOR, "client-1", Actor.Kind.WORKER.ordinal());
        at(0, LOCKS, EventKind.ACTOR, "PostgreSQL locks", Actor.Kind.SERVER.ordinal());
        at(0, 0, EventKind.RUN_STARTED, "s", 1);
    }

    @Test
    void aHoldIsDrawnFromTheReadThatSawItToTheReadThatNoLongerDid() {
        lanes();
        at(10, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(13, LOCKS, EventKind.SERVER_HOLDS, "the counter row", WORKER);
        at(20, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(30, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(31, LOCKS, EventKind.SERVER_HOLDS, null, WORKER);
        at(40, 0, EventKind.RUN_ENDED, "SAFE", 0);
        TimelineModel model = model();
        Lane worker = model.lanes.get(WORKER);
        assertEquals(10 * MS, worker.stripeStart.get(0), "from the read that saw it, not from when its answer came");
        assertEquals(Lane.SERVER_HOLDS, worker.stripeState.get(0));
        assertEquals(30 * MS, model.stripeStop(worker, 0), "to the read that no longer saw it");
    }

    @Test
    void aLateReadLeavesTheTimeBetweenHatchedAndTheStripeEmpty() {
        lanes();
        at(10, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(11, LOCKS, EventKind.SERVER_HOLDS, "the counter row", WORKER);
        at(70, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(80, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(81, LOCKS, EventKind.SERVER_HOLDS, null, WORKER);
        at(90, 0, EventKind.RUN_ENDED, "SAFE", 0);
        TimelineModel model = model();
        Lane worker = model.lanes.get(WORKER);
        assertEquals(25 * MS, model.stripeStop(worker, 0), "one period and a half after the read that saw it");
        assertEquals(Lane.SERVER_NONE, worker.stripeState.get(1), "nothing held on the strength of an old read");
        assertEquals(70 * MS, worker.stripeStart.get(2), "the late read saw it again");
        Lane locks = model.lanes.get(LOCKS);
        int stale = locks.labelStart.floor(40 * MS);
        assertEquals(1, locks.labelStale.get(stale));
        assertTrue(locks.labelText.get(stale).startsWith("as of 10"), locks.labelText.get(stale));
        int again = locks.labelStart.floor(75 * MS);
        assertEquals(again, locks.sameLabelUntil(stale - 1, Long.MAX_VALUE), "the same words before and after the gap are one label");
        assertTrue(!locks.labelSaysNew(again), "no edge where the late read saw the same");
    }

    @Test
    void nothingIsDrawnPastTheRunsEndNorPastTheLastReadsGrace() {
        lanes();
        at(10, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(11, LOCKS, EventKind.SERVER_HOLDS, "the counter row", WORKER);
        at(20, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(22, 0, EventKind.RUN_ENDED, "SAFE", 0);
        at(60, 0, EventKind.NOTE, "later", 0);
        TimelineModel model = model();
        Lane worker = model.lanes.get(WORKER);
        assertEquals(22 * MS, model.stripeStop(worker, 0), "the run's end");
        Lane locks = model.lanes.get(LOCKS);
        assertEquals(22 * MS, model.labelStop(locks, locks.labelStart.size() - 1));
    }

    @Test
    void aLaneOfSeveralValuesNamesEachEvenInItsShorterLabelAndALaneOfOneDoesNot() {
        lanes();
        at(10, LOCKS, EventKind.SERVER_SAMPLE, null, 10_000);
        at(10, LOCKS, EventKind.SERVER_VALUE, "queued", 3);
        at(20, LOCKS, EventKind.SERVER_VALUE, "sent", 32);
        at(30, 0, EventKind.RUN_ENDED, "SAFE", 0);
        Lane lane = model().lanes.get(LOCKS);
        int last = lane.labelText.size() - 1;
        assertEquals("queued = 3", lane.labelText.get(0));
        assertEquals("3", lane.labelShort.get(0), "one value: the lane's name says what it is");
        assertEquals("queued = 3 · sent = 32", lane.labelText.get(last));
        assertEquals("queued 3 · sent 32", lane.labelShort.get(last), "several: each number with its name");
    }
}
