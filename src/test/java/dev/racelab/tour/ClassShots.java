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
            take("counter", "read-modify-write", 10, "class-host", "class-projector", "class-join");
        }
        if (tour.wanted("class-fencing-projector")) {
            take("fencing", "check-then-write", 5, null, "class-fencing-projector", null);
        }
    }

    private void take(String labId, String strategy, int ops, String hostShot, String projectorShot, String joinShot)
            throws Exception {
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
            if (joinShot != null) {
                JoinWindow joining = TourSteps.onFx(() -> tour.window.view().openJoin());
                tour.fx(s -> joining.fill(host.joinLine().text(), "Eve", 1));
                TourSteps.pause(500);
                tour.shoot(joinShot, joining.stage());
                tour.fx(s -> joining.stage().close());
            }
        } finally {
            tour.fx(s -> hosting.stage().close());
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
