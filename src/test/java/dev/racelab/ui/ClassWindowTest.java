package dev.racelab.ui;

import dev.racelab.classroom.ClassHost;
import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.TestServers;
import dev.racelab.ui.classroom.HostWindow;
import dev.racelab.ui.classroom.JoinWindow;
import dev.racelab.ui.classroom.Leaderboard;
import dev.racelab.ui.model.Settings;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A class in the window, against RaceLab's embedded servers: hosted here with two participants
 * that are RaceLabs of their own (separate processes), the run shown in the main window with a lane
 * per participant's worker, the leaderboard agreeing with the verdict, presenter mode on, the run
 * saved with every lane; and a class hosted elsewhere joined from the window, the whole class's run
 * shown as it runs (its lanes named as the host names them) and judged by the host.
 */
@Tag("ui")
@ExtendWith(ApplicationExtension.class)
class ClassWindowTest {

    @TempDir
    static Path dir;

    private final Children children = new Children();
    private RaceLabWindow window;

    @Start
    void start(Stage stage) {
        Settings settings = new Settings(dir.resolve("settings-" + System.nanoTime() + ".properties"));
        settings.put(Settings.LAB_FOLDER, dir.resolve("labs").toString());
        // A class is hosted on RaceLab's own servers, whatever the suite's shared ones are.
        window = RaceLabWindow.show(stage, TestServers.topologies(), settings, new dev.racelab.ui.startup.ServerStartup());
    }

    @AfterEach
    void stopChildren() {
        children.close();
    }

    private Child join(String line, String name) throws Exception {
        return children.start(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), "dev.racelab.Launcher",
                "class", "join", line, "--name", name, "--headless"),
                Map.of("RACELAB_HOME", dir.resolve(name).toString()));
    }

    @Test
    void aClassHostedInTheWindowRunsWithEveryParticipantsLanesAndALeaderboardThatAgrees(FxRobot robot)
            throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        robot.interact(() -> window.view().selectLab("counter"));
        HostWindow hosting = WindowDriver.onFx(() -> window.view().openHost());
        ui.await("the class is open", () -> WindowDriver.onFx(() -> hosting.host() != null), this::moving);
        ClassHost host = hosting.host();
        String line = WindowDriver.onFx(() -> robot.lookup("#class-join-line")
                .queryAs(javafx.scene.control.TextField.class).getText());
        assertEquals(host.joinLine().text(), line, "the join line shown is the class's");
        assertEquals(host.code().toString(), WindowDriver.onFx(() -> robot.lookup("#class-code")
                .queryAs(javafx.scene.control.Label.class).getText()));

        Child ada = join(line, "ada");
        Child bea = join(line, "bea");
        ui.await("both joined", () -> WindowDriver.onFx(() -> hosting.leaderboard().getItems().size() == 2), this::moving);
        robot.interact(() -> window.session().opsProperty().set(15));
        robot.interact(() -> window.view().presentation().presenterMode(true));
        robot.clickOn("#class-start");
        ui.await("the class's run ended", () -> WindowDriver.onFx(() -> window.session().outcomeProperty().get() != null
                && window.session().record().header().lab().equals("counter")
                && workers(window.session().record()).size() == 2), this::moving);

        RunRecord shown = WindowDriver.onFx(() -> window.session().record());
        Outcome outcome = shown.outcome();
        assertEquals(Set.of("ada · client-1", "bea · client-1"), Set.copyOf(workers(shown)), "a lane per participant's worker");
        assertEquals(30L, outcome.metrics().get("committedIncrements"), outcome.toString());
        long lost = outcome.metrics().get("lostIncrements").longValue();
        assertEquals(lost > 0 ? Verdict.RACE : Verdict.SAFE, outcome.verdict());
        assertTrue(outcome.explanation().contains("By participant: ") && outcome.explanation().contains("ada 15 operations")
                && outcome.explanation().contains("bea 15 operations"), outcome.explanation());
        ui.await("the leaderboard shows the run", () -> WindowDriver.onFx(() -> hosting.leaderboard().getItems()
                .stream().mapToLong(Leaderboard.Row::ops).sum() == 30));
        List<Leaderboard.Row> rows = WindowDriver.onFx(() -> List.copyOf(hosting.leaderboard().getItems()));
        assertEquals(lost, rows.stream().mapToLong(Leaderboard.Row::lost).sum(), "the leaderboard's lost add up to the verdict's");

        Path file = dir.resolve("class.racelab");
        robot.interact(() -> window.view().recordings().saveTo(file));
        ui.await("the recording is saved", () -> WindowDriver.onFx(() -> window.view().recordings().savedProperty().get() != null));
        RunRecord saved = new RecordingReader(new Labs(TestServers.topologies())).read(file).last();
        assertEquals(Set.of("ada · client-1", "bea · client-1"), Set.copyOf(workers(saved)), "every participant's lane, saved");
        assertEquals(outcome.banner(), saved.outcome().banner());

        robot.clickOn("#class-end");
        for (Child member : List.of(ada, bea)) {
            assertEquals(0, member.await(60), member.err());
            assertTrue(member.out().contains(outcome.verdict().name()), "it heard the verdict: " + member.out());
        }
        ui.await("the class is closed", () -> WindowDriver.onFx(() -> !hosting.stage().isShowing()
                && !window.session().hosting()), this::moving);
    }

    @Test
    void endingTheClassMidRunStopsAndJudgesTheRunAndLeavesNothingOfTheClass(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        robot.interact(() -> window.view().selectLab("counter"));
        HostWindow hosting = WindowDriver.onFx(() -> window.view().openHost());
        ui.await("the class is open", () -> WindowDriver.onFx(() -> hosting.host() != null), this::moving);
        String code = hosting.host().code().toString();
        Child ada = join(hosting.host().joinLine().text(), "ada");
        ui.await("ada joined", () -> WindowDriver.onFx(() -> hosting.leaderboard().getItems().size() == 1), this::moving);
        // Long enough to be under way when the class ends: a thousand increments, each with its delays.
        robot.interact(() -> window.session().opsProperty().set(1000));
        robot.clickOn("#class-start");
        ui.await("the class's run is under way", () -> WindowDriver.onFx(() -> window.session().hosting()
                && window.session().record().header().lab().equals("counter") && ops(window.session().record()) >= 3),
                this::moving);
        robot.clickOn("#class-end");
        ui.await("the run is judged", () -> WindowDriver.onFx(() -> window.session().outcomeProperty().get() != null),
                this::moving);
        long done = ops(WindowDriver.onFx(() -> window.session().record()));
        assertTrue(done >= 3 && done < 1000, "stopped mid-run, after " + done + " operations");
        assertEquals(0, ada.await(60), ada.err());
        ui.await("the class is closed", () -> WindowDriver.onFx(() -> !hosting.stage().isShowing()
                && !window.session().hosting()), this::moving);
        // The window lets go of the class at once; its login, database and keys go on the class's thread.
        assertTrue(hosting.awaitGone(Duration.ofSeconds(30)), "the class is gone from the servers within 30 s");
        try (java.sql.Connection admin = TestServers.topologies().postgres().control("test-class");
             java.sql.PreparedStatement left = admin.prepareStatement(
                     "SELECT count(*) FROM pg_catalog.pg_database WHERE datname = ?")) {
            left.setString(1, new dev.racelab.classroom.ClassCode(code).pgName());
            try (java.sql.ResultSet rs = left.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getInt(1), "the class's database is gone");
            }
        }
    }

    @Test
    void aClassHostedElsewhereIsJoinedFromTheWindowAndTheWholeClassShowsAsItRuns(FxRobot robot) throws Exception {
        WindowDriver ui = new WindowDriver(robot);
        List<String> said = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (ClassHost host = ClassHost.open(TestServers.topologies(), dir.resolve("host"), said::add)) {
            JoinWindow joining = WindowDriver.onFx(() -> window.view().openJoin());
            robot.interact(() -> joining.fill(host.joinLine().text(), "eve", 2));
            robot.clickOn("#join-button");
            Child fay = join(host.joinLine().text(), "fay");
            var seats = host.awaitJoins(2, Duration.ofSeconds(90));
            var lab = new Labs(TestServers.topologies()).named("counter");
            CompletableFuture<ClassHost.Hosted> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return host.run("counter", lab.defaults().withOps(10), seats);
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            ui.await("the window shows the whole class's run", () -> WindowDriver.onFx(() ->
                    window.session().run() != null && workers(window.session().record()).size() == 3
                            && !window.session().commands().canStep().get()), this::moving);
            ClassHost.Hosted hosted = run.get(120, TimeUnit.SECONDS);
            Outcome outcome = hosted.record().outcome();
            assertEquals(30L, outcome.metrics().get("committedIncrements"), outcome.toString());
            ui.await("the window's run ended with the class's 30 operations", () -> WindowDriver.onFx(() ->
                    window.session().outcomeProperty().get() != null)
                    && ops(WindowDriver.onFx(() -> window.session().record())) == 30);
            RunRecord shown = WindowDriver.onFx(() -> window.session().record());
            assertEquals(Set.of("eve · client-1", "eve · client-2", "fay · client-1"), Set.copyOf(workers(shown)),
                    "every participant's lanes, named as the host names them");
            assertEquals(outcome.banner(), shown.outcome().banner(), "judged by the host");
            assertEquals(outcome.metrics().get("lostIncrements"), shown.outcome().metrics().get("lostIncrements"));
            assertTrue(fay.process().isAlive(), "the other participant stays for the next run");
            ui.await("the host's verdict is heard", () -> WindowDriver.onFx(() -> robot.lookup("#join-verdict")
                    .queryAs(javafx.scene.control.Label.class).getText().startsWith(outcome.verdict().name())));
        }
        ui.await("the class's end is heard", () -> WindowDriver.onFx(() -> joining().heard().stream()
                .anyMatch(l -> l.startsWith("The class ended"))), this::moving);
    }

    /** What moves while a class gets ready: the host's words, who joined, the participants' output. */
    private Object moving() throws Exception {
        List<Object> now = new ArrayList<>();
        HostWindow hosting = window.view().hostWindow();
        if (hosting != null) {
            now.add(hosting.leaderboard().getItems().size());
            now.add(((javafx.scene.control.Label) hosting.stage().getScene().lookup("#class-status")).getText());
        }
        if (joining() != null) {
            now.add(joining().heard().size());
        }
        for (Child child : children.all()) {
            now.add(child.err().length());
        }
        return now;
    }

    private JoinWindow joining() {
        return window.view().joinWindow();
    }

    private static List<String> workers(RunRecord record) {
        List<String> names = new ArrayList<>();
        for (long seq = 0; seq < record.events().size(); seq++) {
            Event e = record.events().get(seq);
            if (e != null && e.kind() == EventKind.ACTOR && e.value() == Actor.Kind.WORKER.ordinal()) {
                names.add(e.subject());
            }
        }
        return names;
    }

    private static long ops(RunRecord record) {
        long n = 0;
        for (long seq = 0; seq < record.events().size(); seq++) {
            Event e = record.events().get(seq);
            if (e != null && e.kind() == EventKind.OP_END) {
                n++;
            }
        }
        return n;
    }
}
