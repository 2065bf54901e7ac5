package dev.racelab.ui.model;

import dev.racelab.ui.model.Commands;
import dev.racelab.ui.model.Session;
import dev.racelab.engine.Clock;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.RunRecord;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.record.RecordingWriter;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The window's model without a window: a session driven through a run, a pause, a step, a stop
 * and an opened recording on the real servers, with what the controls would offer checked at each
 * point. No JavaFX toolkit is started (ArchitectureTest keeps Session and Commands free of one).
 */
@Tag("lab")
class SessionTest {

    private final Labs labs = new Labs(TestServers.backends());
    private final Session session = new Session(Clock.system(), id -> labs.find(id).orElse(null));
    private final Commands can = session.commands();

    @Test
    void aRunPausedSteppedStoppedSavedAndOpenedAgain(@TempDir Path dir) throws Exception {
        Lab counter = labs.find("counter").orElseThrow();
        List<RunRecord> shown = new ArrayList<>();
        session.recordProperty().addListener((o, a, record) -> shown.add(record));
        session.select(counter);
        assertEquals(RunPhase.READY, session.stateProperty().get());
        offers("Run", true, false, true, false);
        assertTrue(can.canChangeSettings().get());

        // Three settings changed at once are applied in one step: one fresh run, with all three.
        shown.clear();
        session.workersProperty().set(3);
        session.opsProperty().set(200);
        session.strategyProperty().set(counter.strategies().get(1));
        assertTrue(shown.isEmpty(), "nothing is rebuilt before the settings are applied");
        session.tick();
        assertEquals(1, shown.size(), "one fresh run for three changed settings");
        assertEquals(3, session.record().header().spec().workers());
        assertEquals(200, session.record().header().spec().ops());
        assertEquals(counter.strategies().get(1).id(), session.record().header().spec().strategy());

        session.start();
        Poll.until("the run running", () -> {
            session.tick();
            return session.stateProperty().get() == RunPhase.RUNNING;
        });
        offers("Run", false, true, true, true);
        // Pause halts every worker at its next gate.
        session.pause();
        Poll.until("three workers halted", () -> session.run().gates().halted().size() == 3);
        session.tick();
        assertEquals(RunPhase.PAUSED, session.stateProperty().get());
        offers("Resume", true, false, true, true);
        assertFalse(can.canChangeSettings().get(), "settings wait while a run is live");
        assertTrue(session.step(1), "worker 2 released");
        Poll.until("worker 2 halted at its next gate", () -> session.run().gates().halted().contains(1)
                && session.run().record().events().size() > 0);
        session.workersProperty().set(2);
        session.tick();
        assertEquals(3, session.record().header().spec().workers(), "a setting changed mid-run waits for the next run");

        session.stop();
        Poll.until("the stopped run's outcome", () -> {
            session.tick();
            return session.outcomeProperty().get() != null;
        });
        RunRecord ended = session.record();
        assertEquals(RunPhase.ENDED, session.stateProperty().get());
        assertTrue(ended.outcome().explanation().startsWith("Stopped by the user"), ended.outcome().explanation());
        offers("Run again", true, false, false, false);
        assertTrue(can.canSave().get());
        session.tick();
        assertSame(ended, session.record(), "the ended run stays shown: the change made during it is the next run's");

        Path file = dir.resolve("stopped.racelab");
        try (RecordingWriter writer = RecordingWriter.create(file)) {
            writer.write(counter, ended);
            writer.commit(1, 0, false);
        }
        Recording read = new RecordingReader(labs).read(file);
        session.open(read.last());
        session.tick();
        assertTrue(session.replayingProperty().get());
        assertNotSame(ended, session.record());
        assertEquals(ended.events().size(), session.record().events().size());
        assertEquals(3, session.workersProperty().get(), "the recording's settings are shown");
        offers("Run", false, false, false, false);
        assertTrue(can.canSave().get() && can.canReset().get());

        // A setting changed leaves the recording for a fresh live run with it.
        session.workersProperty().set(4);
        session.tick();
        assertFalse(session.replayingProperty().get());
        assertEquals(RunPhase.READY, session.stateProperty().get());
        assertEquals(4, session.record().header().spec().workers());
        offers("Run", true, false, true, false);
    }

    @Test
    void aHostedClassesRunTakesTheCommandsAndAParticipantsShareTakesNone() throws Exception {
        Lab counter = labs.find("counter").orElseThrow();
        session.select(counter);
        // A run of the window's own, halted at its gates, when the class opens: it stops.
        session.stepModeProperty().set(true);
        session.start();
        dev.racelab.engine.Run own = session.run();
        Poll.until("the window's own run under way", () -> {
            session.tick();
            return own.phase().live();
        });
        List<String> told = new ArrayList<>();
        ClassControls controls = new ClassControls() {
            @Override
            public void start(dev.racelab.engine.RunSpec spec) {
                told.add("start " + spec.strategy() + " " + spec.ops());
            }

            @Override
            public void pause() {
                told.add("pause");
            }

            @Override
            public void resume() {
                told.add("resume");
            }

            @Override
            public void step(int worker) {
                told.add("step " + worker);
            }

            @Override
            public void stop() {
                told.add("stop");
            }
        };
        session.host(controls);
        own.awaitOutcome(java.time.Duration.ofSeconds(30));
        session.tick();
        session.stepModeProperty().set(false);
        session.reset();
        assertFalse(session.step(-1), "no class's run to step, and no run of the window's own either");
        assertEquals(dev.racelab.engine.RunPhase.READY, session.run().phase());
        session.opsProperty().set(7);
        session.start();
        assertEquals(List.of("start read-modify-write 7"), told, "Run starts the class's run with the settings shown");
        assertEquals(RunPhase.READY, session.run().phase(), "and no run of the window's own");

        // The class's run, as the host starts it (here a run of this machine's, halted at its first gates).
        dev.racelab.engine.Run hosted = new dev.racelab.engine.Run(counter, session.settings().withWorkers(2)
                .withStepMode(true), Clock.system());
        hosted.start();
        session.watch(hosted, false);
        Poll.until("the class's run under way", () -> {
            session.tick();
            return hosted.gates().halted().size() == 2;
        });
        session.pause();
        assertTrue(session.step(1));
        session.stop();
        assertEquals(List.of("start read-modify-write 7", "pause", "step 1", "stop"), told);
        assertSame(hosted, session.run(), "the window shows the class's run");
        hosted.awaitOutcome(java.time.Duration.ofSeconds(30));
        session.tick();
        assertTrue(can.canSave().get(), "the class's run can be saved");
        assertFalse(can.canRunAgain().get(), "but not run again as a run of the window's own while the class is hosted");

        // A participant's share: its order is the host's, so the window neither pauses nor steps it.
        session.hostEnded(controls);
        dev.racelab.engine.Run share = new dev.racelab.engine.Run(counter, session.settings().withWorkers(1)
                .withStepMode(true), Clock.system());
        share.start();
        session.watch(share, true);
        Poll.until("the share halted at its first gate", () -> {
            session.tick();
            return share.gates().halted().size() == 1;
        });
        assertEquals(RunPhase.PAUSED, session.stateProperty().get(), "halted at its first gate, as the host's go awaits");
        assertFalse(can.canStep().get(), "Step");
        assertFalse(can.canPause().get(), "Pause");
        assertFalse(can.canRun().get(), "Resume");
        session.stop();
        share.awaitOutcome(java.time.Duration.ofSeconds(30));
    }

    private void offers(String runWords, boolean run, boolean pause, boolean step, boolean stop) {
        assertEquals(runWords, can.runWords().get());
        assertEquals(run, can.canRun().get(), "Run");
        assertEquals(pause, can.canPause().get(), "Pause");
        assertEquals(step, can.canStep().get(), "Step");
        assertEquals(stop, can.canStop().get(), "Stop");
    }
}
