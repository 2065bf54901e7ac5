package dev.racelab.labs.replicaread;

import dev.racelab.engine.Event;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The replica-read lab's state: where a commit's WAL has got to, as the servers report it (flushed
 * on the primary, sent, received and replayed by the standby, in bytes since the run began), and
 * the clients' reads, the stale ones counted; once judged, how long the longest stayed stale.
 */
final class ReplicaReadView implements LabView {

    private final RunTracker tracker;
    /** The latest value on each replication lane, by lane name. */
    private final Map<String, Long> positions = new HashMap<>();
    private long reads;
    private long stale;
    private long longestStaleMicros = -1;
    private long changes;

    ReplicaReadView(RunHeader header) {
        this.tracker = new RunTracker(header);
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
        switch (event.kind()) {
            case SERVER_VALUE -> positions.put(tracker.name(event.actor()), event.value());
            case READ -> reads++;
            case NOTE -> {
                if (event.subject() == null || !event.subject().startsWith(ReplicaClient.STALE_FOR)) {
                    return;
                }
                longestStaleMicros = Math.max(longestStaleMicros, event.value());
            }
            case VIOLATION -> {
                if (ReplicaReadScenario.STALE.equals(event.subject())) {
                    stale++;
                }
            }
            default -> {
                return;
            }
        }
        changes++;
    }

    @Override
    public void concluded(Outcome outcome) {
        tracker.concluded(outcome);
        changes++;
    }

    @Override
    public long version() {
        return tracker.version() + changes;
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        panels.add(tracker.workersPanel());
        long flushed = positions.getOrDefault(ReplicationObserver.FLUSHED, -1L);
        long replayed = positions.getOrDefault(ReplicationObserver.REPLAYED, -1L);
        panels.add(new Panel.Values("WAL, bytes since the run began", List.of(
                position(ReplicationObserver.FLUSHED),
                position(ReplicationObserver.SENT),
                position(ReplicationObserver.RECEIVED),
                position(ReplicationObserver.REPLAYED),
                new Panel.Value("standby behind", flushed < 0 || replayed < 0 ? "—" : (flushed - replayed) + " bytes",
                        flushed > replayed ? Ink.WAITING : Ink.TEXT))));
        List<Panel.Value> readRows = new ArrayList<>(List.of(
                new Panel.Value("reads", String.valueOf(reads), Ink.TEXT),
                new Panel.Value(ReplicaReadScenario.STALE, String.valueOf(stale), stale > 0 ? Ink.RACE : Ink.SAFE)));
        if (longestStaleMicros >= 0) {
            // Worded as the verdict words it, so the two agree to the digit.
            readRows.add(new Panel.Value("longest stale", ReplicaReadScenario.millis(longestStaleMicros), Ink.RACE));
        }
        panels.add(new Panel.Values("Reading one's own write", readRows));
        return panels;
    }

    private Panel.Value position(String lane) {
        Long at = positions.get(lane);
        return new Panel.Value(lane, at == null ? "not read" : at + "", Ink.TEXT);
    }
}
