package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.view.Feed;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.Service;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.TestServers;
import dev.racelab.engine.view.timeline.TimelineModel;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every lab, recorded through the command line and opened again with no server: the verdict,
 * the metrics, the lab's panels and the timeline's lanes are those of the live run, and an
 * event's time is the same in the recording, the CSV, the Chrome trace and the hover text of
 * both timelines ({@link SameTimeEverywhere}).
 *
 * <p>The live side is followed as the window follows a run: a thread drains the live record
 * every few milliseconds into the lab's view and a timeline model while the run goes. With the
 * embedded servers the command starts its own and stops them before the recording is opened;
 * against servers named in the environment it uses those (they cannot be stopped here), and the
 * recording is still read without any.
 */
@Tag("lab")
class RecordingRoundTripTest {

    @TempDir
    Path dir;

    /**
     * Per lab, what keeps its recorded run short and still shows its race. Every lab of the
     * registry is recorded and opened again; one not named here runs with its defaults.
     */
    private static final Map<String, String> OPTIONS = Map.of(
            "counter", "--workers 4 --ops 20 --delay after-read=1",
            "fencing", "--strategy check-then-write --workers 4 --ops 6 --delay after-check=0-4",
            "job-queue", "--ops 1 --delay before-take=0-10",
            "advisory-lock", "--ops 2 --set patience-ms=200",
            "redis-primitives", "--delay holder-crashes=1@client-1 --timeout 2",
            "dining-philosophers", "--ops 3 --delay between-forks=150 --set think-ms=10",
            "readers-writers", "--ops 6 --delay between-reads=1-3",
            "lease-fencing", "--ops 1",
            "isolation", "--set permutation=1");

    static Stream<Arguments> everyLab() {
        // Against servers RaceLab did not start the replication labs refuse to run (ReplicationLabsCliTest):
        // the run on embedded servers records them.
        return new Labs(TestServers.backends()).all().stream()
                .filter(lab -> !TestServers.external() || lab.services().stream().allMatch(Service::shared))
                .map(lab -> Arguments.of(lab.id(), OPTIONS.getOrDefault(lab.id(), "")));
    }

    @Test
    void theOptionsNameOnlyLabsThatExist() {
        Labs labs = new Labs(TestServers.backends());
        for (String id : OPTIONS.keySet()) {
            assertTrue(labs.find(id).isPresent(), "no lab " + id + " (renamed? its options no longer apply)");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyLab")
    void aRecordedRunOpensWithNoServerExactlyAsItRan(String labId, String options) throws Exception {
        Path file = dir.resolve(labId + ".racelab");
        List<String> args = new ArrayList<>(List.of("run", labId, "--json", "--record", file.toString()));
        if (!options.isBlank()) {
            args.addAll(Arrays.asList(options.split(" ")));
        }
        Map<String, String> env = TestServers.external() ? TestServers.childEnvironment() : new HashMap<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AtomicReference<Follower> live = new AtomicReference<>();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8))
                .watching(run -> live.set(Follower.start(run, new Labs(TestServers.backends()).find(labId).orElseThrow())))
                .run(args);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        JsonObject summary = JsonParser.parseString(out.toString(StandardCharsets.UTF_8)).getAsJsonObject();
        Follower followed = live.get();
        assertNotNull(followed, "the command handed its run over");
        followed.finish();

        // No server from here on: the labs are made with servers that are never started.
        try (Backends none = new Backends(BackendSettings.embedded(), dir, StartupListener.SILENT)) {
            Labs labs = new Labs(none);
            Recording recording = new RecordingReader(labs).read(file);
            assertEquals(1, recording.runs().size());
            RunRecord opened = recording.last();
            // The lab as the recording gives it (the isolation lab with the spec it carries).
            Lab lab = recording.labOf(opened);
            assertEquals(labId, lab.id());

            assertEquals(summary.get("verdict").getAsString(), opened.outcome().verdict().name());
            assertEquals(followed.record.outcome(), opened.outcome(), "verdict, headline, violations, metrics, places");
            assertEquals(summary.getAsJsonObject("metrics").keySet(), opened.outcome().metrics().keySet());
            assertEquals(followed.record.header(), opened.header(), "the same settings");
            assertEquals(followed.record.backend(), opened.backend());

            LabView view = lab.view(opened.header());
            TimelineModel timeline = new TimelineModel(opened.events());
            Feed feed = new Feed(opened.events(), timeline::accept, view::accept);
            while (feed.frame() > 0) {
                // A frame's batch at a time, as the window takes them.
            }
            assertEquals(followed.panels, view.panels(), "the lab's panels");
            assertEquals(followed.lanes, lanes(timeline), "the timeline's lanes");
            assertEquals(followed.violations, timeline.violations());
            assertTrue(timeline.laneCount() > 1);
            if (!opened.outcome().verdict().name().equals("SAFE")) {
                assertFalse(opened.outcome().places().isEmpty() && timeline.violations() > 0,
                        "the violations are linked to their places");
            }
            SameTimeEverywhere.check(file, new RecordingReader(labs),
                    List.of(timeline, followed.timeline));
        }
    }

    private static List<String> lanes(TimelineModel timeline) {
        List<String> lanes = new ArrayList<>();
        for (int i = 0; i < timeline.laneCount(); i++) {
            lanes.add(timeline.laneName(i));
        }
        lanes.add("latest " + timeline.latest());
        for (EventKind kind : EventKind.values()) {
            lanes.add(kind + " " + timeline.count(kind));
        }
        return lanes;
    }

    /** Follows a live run's record the way the window does: in batches, while it goes. */
    private static final class Follower {
        final RunRecord record;
        final LabView view;
        final TimelineModel timeline;
        final Feed feed;
        final Thread thread;
        volatile boolean ended;
        List<Panel> panels;
        List<String> lanes;
        int violations;

        private Follower(Run run, Lab lab) {
            this.record = run.record();
            this.view = lab.view(record.header());
            this.timeline = new TimelineModel(record.events());
            this.feed = new Feed(record.events(), timeline::accept, view::accept,
                    event -> ended |= event.kind() == EventKind.RUN_ENDED);
            this.thread = new Thread(this::follow, "test-follower");
        }

        static Follower start(Run run, Lab lab) {
            Follower follower = new Follower(run, lab);
            follower.thread.start();
            return follower;
        }

        private void follow() {
            while (!ended) {
                feed.frame();
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
            assertFalse(feed.behind(), "nothing comes after the end");
            panels = view.panels();
            lanes = lanes(timeline);
            violations = timeline.violations();
        }

        void finish() throws InterruptedException {
            thread.join(60_000);
            assertFalse(thread.isAlive(), "the live run ended");
            assertNotNull(panels);
        }
    }
}
