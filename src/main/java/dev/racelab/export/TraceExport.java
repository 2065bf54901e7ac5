package dev.racelab.export;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RecentEvents;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.TimeOrigin;
import dev.racelab.record.RecordingEnd;
import dev.racelab.record.RecordingSink;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs as Chrome's Trace Event Format, which Perfetto and {@code chrome://tracing} open: one
 * process per run, a thread per lane (each worker, each server lane, the run's own), named and in
 * the timeline's order.
 *
 * <ul>
 *   <li>A worker's states are complete slices ({@code X}), one per state, named as the legend
 *       names them ("waiting"), with what they concern in {@code args}.</li>
 *   <li>Marks — tokens, reads, writes, accepted and rejected writes, retries, violations, errors
 *       — are instant events on their lane, named as the timeline's hover text says them, with
 *       the event's kind, subject and value in {@code args}.</li>
 *   <li>What a server lane reports of a worker (holds, waits for) is an async slice on that
 *       lane's thread from the read that saw it to the first read that no longer did; values it
 *       reads ("counter = 41") are counter tracks; orphaned locks and the run's start and end
 *       are instants.</li>
 *   <li>The timeline's arrows (a release to the waiter it woke, an overwriting write to the
 *       write it wiped out) are flow events.</li>
 * </ul>
 *
 * <p>Times are microseconds from the run's start ({@link TimeOrigin}; negative before it, while
 * connecting), as the timeline and the recording count them. Written as the events go by
 * ({@link RecordingSink}): what it keeps is, per run, its lanes, the state each is in and the
 * server slices open, and where the latest events happened ({@link RecentEvents}, for the arrows);
 * each run's name, which says its verdict, is written once its outcome is known, after its events.
 */
public final class TraceExport implements RecordingSink {

    private final JsonOut json;
    /** Each run's name, written when the number of runs is known. */
    private static final int LONGEST_NAME = 300;
    private final List<RunName> names = new ArrayList<>();
    private RunTrace trace;

    /** A trace to {@code out}; then the runs' events as they come. */
    public TraceExport(OutputStream out) throws IOException {
        // Names and subjects may come from a file: what JSON leaves raw (C1, bidirectional
        // controls) is written as JSON's escapes, the same text to a viewer that parses it.
        json = new JsonOut(out);
        json.raw("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    }

    /** Writes {@code runs} (the runs of one recording, in order, in memory) to {@code out} as one trace. */
    public static void write(List<RunRecord> runs, OutputStream out) throws IOException {
        TraceExport trace = new TraceExport(out);
        for (int i = 0; i < runs.size(); i++) {
            RunRecord record = runs.get(i);
            trace.run(i + 1, record.header(), record.backend());
            long origin = TimeOrigin.of(record.events());
            for (Event e : record.events().upToNow()) {
                trace.event(TimeOrigin.shifted(e, origin));
            }
            trace.outcome(record.outcome(), record.events().dropped());
        }
        trace.end(null);
    }

    @Override
    public void run(int number, RunHeader header, Map<String, String> backend) throws IOException {
        trace = new RunTrace(number, json);
        metadata(json, number, "process_sort_index", -1, "sort_index", number);
        names.add(new RunName(header.lab() + " · " + header.spec().strategy(), ""));
    }

    @Override
    public void event(Event event) throws IOException {
        trace.accept(event);
    }

    @Override
    public void outcome(Outcome outcome, long droppedEvents) throws IOException {
        trace.finish();
        int last = names.size() - 1;
        names.set(last, new RunName(names.get(last).what(), outcome == null ? "" : " · " + shortened(outcome.banner())));
    }

    /**
     * A run's banner as its process's name: cut at {@value #LONGEST_NAME} characters, so that the
     * names of up to 10,000 runs, kept to the end, stay small whatever a file's headlines hold.
     */
    private static String shortened(String banner) {
        return banner.length() <= LONGEST_NAME ? banner : banner.substring(0, LONGEST_NAME) + "…";
    }

    @Override
    public void end(RecordingEnd end) throws IOException {
        for (int i = 0; i < names.size(); i++) {
            metadata(json, i + 1, "process_name", -1, "name", names.get(i).what()
                    + (names.size() > 1 ? " · run " + (i + 1) + " of " + names.size() : "") + names.get(i).verdict());
        }
        json.raw("]}");
        json.flush();
    }

    /** A metadata record of process {@code pid} (and thread {@code tid}, unless negative): a name or a sort index. */
    private static void metadata(JsonOut json, int pid, String what, int tid, String key, Object value)
            throws IOException {
        json.object().raw("\"name\":").string(what).raw(",\"ph\":\"M\",\"pid\":").number(pid);
        if (tid >= 0) {
            json.raw(",\"tid\":").number(tid);
        }
        json.raw(",\"args\":{").string(key).raw(":");
        if (value instanceof Number n) {
            json.number(n.longValue());
        } else {
            json.string(String.valueOf(value));
        }
        json.raw("}}");
    }

    /** A process's name: its lab and strategy, and " · " and its verdict once known. */
    private record RunName(String what, String verdict) {
    }

    /** One run as one process. */
    private static final class RunTrace {
        private final int pid;
        private final JsonOut json;
        private final Map<Integer, Actor> actors = new HashMap<>();
        /** Per worker: its state and when it began, until the next. */
        private final Map<Integer, Event> openState = new HashMap<>();
        /** Per server lane and worker and kind: the async slice open now, by its id. */
        private final Map<String, Long> openServer = new HashMap<>();
        private final Map<String, String> openServerName = new HashMap<>();
        /** Where the latest events happened, for the arrows back to them. */
        private final RecentEvents recent = new RecentEvents();
        private long asyncIds;
        private long last = Long.MIN_VALUE;

        RunTrace(int pid, JsonOut json) {
            this.pid = pid;
            this.json = json;
        }

        void accept(Event e) throws IOException {
            last = Math.max(last, e.nanos());
            write(e);
            recent.add(e);
        }

        /** What is still open ends with the run. */
        void finish() throws IOException {
            for (Event state : new ArrayList<>(openState.values())) {
                slice(state, last);
            }
            for (Map.Entry<String, Long> open : openServer.entrySet()) {
                int lane = Integer.parseInt(open.getKey().split("/")[0]);
                async("e", lane, open.getValue(), openServerName.get(open.getKey()), last);
            }
        }

        private void write(Event e) throws IOException {
            switch (e.kind()) {
                case ACTOR -> {
                    Actor actor = new Actor(e.actor(), e.subject(), Actor.Kind.values()[(int) e.value()]);
                    actors.put(actor.id(), actor);
                    String label = actor.kind() == Actor.Kind.RUN ? "run" : actor.name();
                    metadata("thread_name", actor.id(), "name", label);
                    metadata("thread_sort_index", actor.id(), "sort_index", actor.id());
                }
                case STATE -> {
                    Event before = openState.put(e.actor(), e);
                    if (before != null) {
                        slice(before, e.nanos());
                    }
                }
                case SERVER_HOLDS, SERVER_WAITS -> serverFact(e);
                case SERVER_VALUE -> counter(e);
                case SERVER_ORPHANS -> instant(e, e.subject() == null ? "no orphaned lock" : e.subject(), "t");
                case RUN_STARTED, RUN_ENDED, RUN_PAUSED, RUN_STOPPING -> instant(e,
                        e.kind().name().toLowerCase().replace('_', ' ') + (e.subject() == null ? "" : ": " + e.subject()),
                        "p");
                case WOKEN, OVERWROTE -> flow(e);
                default -> {
                    if (e.kind().marked() && !e.kind().note()) {
                        instant(e, e.kind().describe(e.subject(), e.value()), "t");
                    }
                }
            }
        }

        /** An event's time: microseconds from the run's start. */
        private JsonOut ts(long nanos) throws IOException {
            return json.raw(",\"ts\":").micros(nanos);
        }

        private void metadata(String what, int tid, String key, Object value) throws IOException {
            TraceExport.metadata(json, pid, what, tid, key, value);
        }

        /** A state, from its event until {@code endNanos}. */
        private void slice(Event state, long endNanos) throws IOException {
            ActorState s = state.state();
            json.object().raw("\"name\":").string(s.label()).raw(",\"cat\":\"state\",\"ph\":\"X\"");
            thread(state.actor());
            ts(state.nanos()).raw(",\"dur\":").micros(Math.max(0, endNanos - state.nanos()));
            json.raw(",\"args\":{\"state\":").string(s.name());
            if (state.subject() != null) {
                json.raw(",\"subject\":").string(state.subject());
            }
            json.raw(",\"seq\":").number(state.seq()).raw("}}");
        }

        private void instant(Event e, String name, String scope) throws IOException {
            json.object().raw("\"name\":").string(name).raw(",\"cat\":").string(e.kind().name().toLowerCase())
                    .raw(",\"ph\":\"i\",\"s\":").string(scope);
            thread(e.actor());
            ts(e.nanos()).raw(",\"args\":{\"kind\":").string(e.kind().name());
            if (e.subject() != null) {
                json.raw(",\"subject\":").string(e.subject());
            }
            json.raw(",\"value\":").number(e.value()).raw(",\"seq\":").number(e.seq()).raw("}}");
        }

        /** This run's process and the lane's thread. */
        private void thread(int tid) throws IOException {
            json.raw(",\"pid\":").number(pid).raw(",\"tid\":").number(tid);
        }

        /** A server lane says worker {@code value} holds or waits for {@code subject} now (null: no more). */
        private void serverFact(Event e) throws IOException {
            String key = e.actor() + "/" + e.value() + "/" + e.kind();
            Long open = openServer.remove(key);
            if (open != null) {
                async("e", e.actor(), open, openServerName.remove(key), e.nanos());
            }
            if (e.subject() != null) {
                Actor worker = actors.get((int) e.value());
                String who = worker == null ? "worker " + e.value() : worker.name();
                String name = who + (e.kind() == EventKind.SERVER_HOLDS ? " holds " : " waits ") + e.subject();
                long id = ++asyncIds;
                openServer.put(key, id);
                openServerName.put(key, name);
                async("b", e.actor(), id, name, e.nanos());
            }
        }

        private void async(String phase, int lane, long id, String name, long nanos) throws IOException {
            json.object().raw("\"name\":").string(name).raw(",\"cat\":\"server\",\"ph\":").string(phase)
                    .raw(",\"id\":\"").number(pid).raw(":").number(id).raw("\"");
            thread(lane);
            ts(nanos).raw("}");
        }

        private void counter(Event e) throws IOException {
            if (e.value() == ServerObserver.GONE || e.value() == ServerObserver.NAME_ONLY) {
                // A state in words ("down") or a name leaving a lane: no number to chart.
                return;
            }
            Actor lane = actors.get(e.actor());
            json.object().raw("\"name\":").string((lane == null ? "" : lane.name() + ": ") + e.subject())
                    .raw(",\"ph\":\"C\"");
            thread(e.actor());
            ts(e.nanos()).raw(",\"args\":{\"value\":").number(e.value()).raw("}}");
        }

        /** An arrow between this event and the one it points back to ({@code value}: its sequence number). */
        private void flow(Event e) throws IOException {
            if (!recent.has(e.value())) {
                return;
            }
            // Flows run forward in time: from the release to the waiter it woke, from the write
            // that should have stood to the one that wiped it out.
            String id = pid + ":flow:" + e.seq();
            String name = e.kind() == EventKind.WOKEN ? "woke" : "wiped out by";
            flowPoint("s", recent.actor(e.value()), recent.nanos(e.value()), id, name);
            flowPoint("f", e.actor(), e.nanos(), id, name);
        }

        private void flowPoint(String phase, int actor, long nanos, String id, String name) throws IOException {
            json.object().raw("\"name\":").string(name).raw(",\"cat\":\"arrow\",\"ph\":").string(phase);
            if (phase.equals("f")) {
                json.raw(",\"bp\":\"e\"");
            }
            json.raw(",\"id\":").string(id);
            thread(actor);
            ts(nanos).raw("}");
        }
    }
}
