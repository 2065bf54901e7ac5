package dev.racelab.tour;

import dev.racelab.classroom.ClassHost;
import dev.racelab.ui.classroom.HostWindow;
import dev.racelab.ui.classroom.JoinWindow;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The tour's class: the window hosts a class that four headless RaceLabs join (separate
 * processes, as students' laptops would be), runs the counter lab over all of them, and is shot
 * as the host sees it (class-host), as the projector shows it (class-projector), and as a student
 * fills in Class ▸ Join (class-join).
 */
final class ClassShots {

    private static final List<String> STUDENTS = List.of("Ada", "Bea", "Cy", "Dee");

    private final TourSteps tour;

    ClassShots(TourSteps tour) {
        this.tour = tour;
    }

    /**
     * The shots wanted: the counter's class (the host's window, the projector, and Class ▸ Join), and
     * fencing's check-then-write over the class, on the projector.
     */
    void takeWanted() throws Exception {
        if (tour.wanted("class-host") || tour.wanted("class-projector") || tour.wanted("class-join")) {
            take("counter", "read-modify-write", 10, "class-host", "class-projector");
        }
        if (tour.wanted("class-join")) {
            joined();
        }
        if (tour.wanted("class-fencing-projector")) {
            take("fencing", "check-then-write", 5, null, "class-fencing-projector");
        }
    }

    private void take(String labId, String strategy, int ops, String hostShot, String projectorShot) throws Exception {
        tour.setUp(labId, strategy, 2, ops, null, false);
        HostWindow hosting = TourSteps.onFx(() -> tour.window.view().openHost());
        tour.fx(s -> {
            hosting.stage().setWidth(1280);
            hosting.stage().setHeight(720);
        });
        TourSteps.awaitResult(hosting::host, "opening the class", 2);
        ClassHost host = hosting.host();
        List<Process> students = new ArrayList<>();
        Path homes = Files.createTempDirectory("racelab-tour-class");
        try {
            for (String name : STUDENTS) {
                students.add(student(host.joinLine().text(), name, homes.resolve(name)));
            }
            TourSteps.awaitResult(() -> hosting.leaderboard().getItems().size() == STUDENTS.size() ? true : null,
                    "the students joining", 3);
            tour.fx(s -> tour.window.session().start());
            TourSteps.awaitResult(() -> tour.window.session().hosting() && tour.window.session().outcomeProperty().get()
                    != null && tour.window.session().record().header().spec().workers() == STUDENTS.size() ? true : null,
                    "the class's run", 3);
            TourSteps.pause(1200);
            // The run beside the shots: the command line sums up the very run they show.
            tour.keep(projectorShot);
            if (hostShot != null) {
                tour.shoot(hostShot, hosting.stage());
            }
            tour.fx(s -> {
                tour.stage.setWidth(1920);
                tour.stage.setHeight(1080);
                tour.window.view().presentation().presenterMode(true);
                tour.window.view().timeline().fit();
            });
            TourSteps.pause(800);
            tour.shoot(projectorShot);
            tour.fx(s -> {
                tour.window.view().presentation().presenterMode(false);
                tour.stage.setWidth(1600);
                tour.stage.setHeight(1000);
            });
        } finally {
            tour.fx(s -> hosting.stage().close());
            for (Process student : students) {
                if (!student.waitFor(30, TimeUnit.SECONDS)) {
                    student.destroyForcibly();
                }
            }
        }
    }

    /**
     * Class ▸ Join: a class hosted elsewhere (here, by the tour itself) that the window joins beside
     * three headless students; shot once the host's verdict is in, the join window (class-join) and
     * the main window with the whole class's run (class-joined).
     */
    private void joined() throws Exception {
        tour.setUp("counter", "read-modify-write", 2, 10, null, false);
        Path homes = Files.createTempDirectory("racelab-tour-joined");
        List<Process> students = new ArrayList<>();
        try (ClassHost host = ClassHost.open(tour.backends, homes.resolve("host"), line -> { })) {
            JoinWindow joining = TourSteps.onFx(() -> tour.window.view().openJoin());
            tour.fx(s -> {
                joining.stage().setWidth(900);
                joining.stage().setHeight(520);
                joining.fill(host.joinLine().text(), "Eve", 1);
                joining.join();
            });
            for (String name : List.of("Ada", "Bea", "Cy")) {
                students.add(student(host.joinLine().text(), name, homes.resolve(name)));
            }
            var seats = host.awaitJoins(4, java.time.Duration.ofMinutes(3));
            host.run("counter", new dev.racelab.labs.Labs(tour.backends).named("counter").defaults().withOps(10), seats);
            TourSteps.awaitResult(() -> tour.window.session().outcomeProperty().get() != null
                    && tour.window.session().record().header().spec().workers() == 4 ? true : null, "the class's run", 2);
            TourSteps.pause(1500);
            tour.fx(s -> tour.window.view().timeline().fit());
            TourSteps.pause(600);
            tour.shoot("class-join", joining.stage());
            tour.shoot("class-joined");
            tour.fx(s -> joining.stage().close());
        } finally {
            for (Process student : students) {
                if (!student.waitFor(30, TimeUnit.SECONDS)) {
                    student.destroyForcibly();
                }
            }
        }
    }

    private static Process student(String line, String name, Path home) throws Exception {
        String classPath = System.getProperty("java.class.path");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m", "-cp", classPath, "dev.racelab.Launcher",
                "class", "join", "-", "--name", name, "--headless");
        builder.environment().putAll(Map.of("RACELAB_HOME", home.toString()));
        builder.redirectErrorStream(true).redirectOutput(home.resolveSibling(name + ".log").toFile());
        Process process = builder.start();
        // The line on standard input: on the command line it is there for every user of the machine to read.
        process.getOutputStream().write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        process.getOutputStream().close();
        return process;
    }
}
