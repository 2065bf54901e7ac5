package dev.racelab.bench;

import dev.racelab.support.WindowReady;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the window holds in memory with a large recording open in it: the resident size of the
 * window's own process (its JVM; the embedded servers are processes of their own and not counted)
 * with a made-up recording ({@link SyntheticRecording}) of a million events, ten million, or what
 * the arguments say.
 *
 * <p>Each size gets a window of its own, started as a user starts it ({@code scripts/racelab} with
 * no arguments, or {@code $RACELAB_BENCH_LAUNCHER}, an installed {@code RaceLab}) with its data in
 * {@code target/bench-windowmemory-home}. Once the window is laid out and its servers answer
 * ({@link WindowReady}), its resident size is read with nothing open; then the recording is opened
 * as a user opens it: File ▸ Open recording (Ctrl+O), the path typed into the file chooser's
 * location (Ctrl+L), Enter. It counts as opened when the window's title names the file (the window
 * sets it once the record is shown), and as drawn when the screen has then changed from the window
 * with nothing open and stayed still for half a second; each has a deadline, and a window that
 * misses one, shows a message instead (a file too large for its heap) or ends is reported as such,
 * with no figure. The resident size is then read every 100 ms for five seconds: the peak ({@code
 * VmHWM}: the most the process ever held, the reading of the file included) and the settled size
 * (the last reading), with the CPU the window spent meanwhile (at rest, what its collector does).
 * The same again zoomed in (Ctrl+wheel on the timeline), and after Ctrl+0, the whole run drawn
 * anew. The window is then ended as a user's SIGTERM would end it, and its servers
 * must be gone within 15 seconds. The screen of each drawn recording is saved as {@code
 * target/windowmemory-EVENTS.png}, to see what was measured.
 *
 * <p>Needs a display (Xvfb under {@code scripts/bench}) and {@code xdotool}. Run with {@code
 * scripts/bench windowmemory [events…]}; the goal of issue 26 is at most 250 MB at a million events.
 */
public final class WindowMemoryBenchmark {

    private static final long READY_SECONDS = 120;
    private static final long CHOOSER_SECONDS = 20;
    private static final long DRAWN_SECONDS = 60;
    private static final long SAMPLE_MILLIS = 5_000;
    /** Issue 26's goal: at most 250 MB resident with a million events open. */
    private static final long GOAL_MB = 250;
    private static final long GOAL_EVENTS = 1_000_000;
    /** Opening a recording changes much of the window: the recording's bar, its lanes, the banner, the panels. */
    private static final double OPENED_CHANGE = 0.10;
    /** A zoom changes the timeline's lanes and its time axis, a small part of the screen. */
    private static final double ZOOM_CHANGE = 0.005;
    /** Amid the timeline's lanes, in the window's coordinates, as the window lays itself out on a 1600x1000 screen. */
    private static final int TIMELINE_X = 700;
    private static final int TIMELINE_Y = 320;

    private final XWindows x = new XWindows();
    private final WindowReady screen;
    private final Path dir;
    private final Path home;
    private final String launcher;
    /** The memory options the last RaceLab window was started with, for its peer. */
    private List<String> options = List.of();

    private WindowMemoryBenchmark(Path dir, Path home, String launcher) throws java.awt.AWTException {
        this.screen = new WindowReady();
        this.dir = dir;
        this.home = home;
        this.launcher = launcher;
    }

    public static void main(String[] args) throws Exception {
        if (!XWindows.available()) {
            System.err.println("bench: windowmemory needs xdotool (Debian: apt-get install xdotool)");
            System.exit(2);
        }
        List<Long> sizes = new ArrayList<>();
        for (String arg : args.length == 0 ? new String[] {"1000000", "10000000"} : args) {
            sizes.add(Long.parseLong(arg.replace("_", "")));
        }
        Path dir = Path.of("target", "bench-windowmemory").toAbsolutePath();
        Files.createDirectories(dir);
        String launcher = System.getenv().getOrDefault("RACELAB_BENCH_LAUNCHER", "scripts/racelab");
        // scripts/racelab rebuilds a jar older than the sources: once here, not inside a measurement.
        new ProcessBuilder("scripts/racelab", "version").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start().waitFor();
        WindowMemoryBenchmark bench = new WindowMemoryBenchmark(dir,
                Path.of("target", "bench-windowmemory-home").toAbsolutePath(), launcher);
        System.out.printf("%d cores; the window started by %s; resident size of its process (VmHWM: peak since "
                + "its start; settled: after 5 s)%n", Runtime.getRuntime().availableProcessors(), launcher);
        try {
            for (long events : sizes) {
                Path recording = dir.resolve(events + ".racelab");
                SyntheticRecording.write(events, recording, dir.resolve("synthetic-home"));
                bench.measure(events, recording);
                Files.delete(recording);
            }
            bench.peer();
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    if (Files.isRegularFile(file) && file.toString().endsWith(".racelab")) {
                        Files.delete(file);
                    }
                }
            }
        }
    }

    private void measure(long events, Path recording) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(launcher).redirectErrorStream(true)
                .redirectOutput(dir.resolve("window-" + events + ".log").toFile());
        builder.environment().put("RACELAB_HOME", home.toString());
        long start = System.nanoTime();
        Process child = builder.start();
        try {
            WindowReady.Times times = screen.await(child, start, home, READY_SECONDS);
            if (times.ready().isEmpty()) {
                line(events, "NOT ready within " + READY_SECONDS + " s (" + times + ")");
                return;
            }
            options = javaOptions(child.pid());
            System.out.printf("%-10d window: %s%n", events,
                    options.isEmpty() ? "no memory options (the JVM's defaults)" : String.join(" ", options));
            List<String> mains = x.shown("^RaceLab$");
            if (mains.size() != 1) {
                line(events, "NOT measured: " + mains.size() + " windows titled RaceLab, one expected");
                return;
            }
            String main = mains.get(0);
            ProcessWatch memory = new ProcessWatch(child.pid());
            screen.awaitSettled(10);
            print(events, "nothing open", memory.sample(2_000));

            BufferedImage idle = screen.capture();
            long opening = System.nanoTime();
            String failure = open(main, recording, child, events);
            if (failure != null) {
                line(events, "NOT opened: " + failure);
                save("problem", screen.capture());
                return;
            }
            long openedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opening);
            BufferedImage opened = drawn(idle, OPENED_CHANGE);
            if (opened == null) {
                line(events, "NOT drawn: the screen did not change and settle within " + DRAWN_SECONDS
                        + " s of the title naming the file");
                return;
            }
            save(Long.toString(events), opened);
            print(events, String.format("opened (%.1f s)", openedMs / 1000.0), memory.sample(SAMPLE_MILLIS));

            // Zoomed in, then Ctrl+0: the whole run drawn anew, as after looking closer at a part of it.
            x.ctrlWheelUp(main, TIMELINE_X, TIMELINE_Y, 3);
            BufferedImage zoomed = drawn(opened, ZOOM_CHANGE);
            if (zoomed == null) {
                line(events, "NOT zoomed: Ctrl+wheel on the timeline changed nothing within " + DRAWN_SECONDS + " s");
                return;
            }
            print(events, "zoomed in (Ctrl+wheel)", memory.sample(SAMPLE_MILLIS));
            x.focus(main);
            x.key("ctrl+0");
            if (drawn(zoomed, ZOOM_CHANGE) == null) {
                line(events, "NOT drawn: Ctrl+0 changed nothing within " + DRAWN_SECONDS + " s");
                return;
            }
            ProcessWatch.Sampled whole = memory.sample(SAMPLE_MILLIS);
            print(events, "whole run (Ctrl+0)", whole);
            String goal = events != GOAL_EVENTS ? ""
                    : " (goal ≤ " + GOAL_MB + " MB: " + (whole.settledMb() <= GOAL_MB ? "yes)" : "NO)");
            System.out.printf("%-10d settled %d MB with the file open%s%n", events, whole.settledMb(), goal);
        } finally {
            stop(child);
        }
    }

    /**
     * Opens {@code recording} through File ▸ Open recording; null once the window's title names
     * the file, else what happened instead.
     */
    private String open(String main, Path recording, Process child, long events) throws Exception {
        x.focus(main);
        x.key("ctrl+o");
        String chooser = awaitWindow("^Open a recording$", CHOOSER_SECONDS);
        if (chooser == null) {
            return "no file chooser within " + CHOOSER_SECONDS + " s of Ctrl+O";
        }
        x.focus(chooser);
        // Ctrl+L: the chooser's location field, typed into as a whole path.
        x.key("ctrl+l");
        x.type(recording.toString());
        // Enter. The field's completions pop up as it is typed into, and an Enter that comes while
        // they do only closes them: the chooser still shown after a while gets another.
        for (int tries = 1; ; tries++) {
            x.key("Return");
            if (awaitGone("^Open a recording$", 3)) {
                break;
            }
            if (tries == 3) {
                return "the file chooser did not take " + recording + " (Enter pressed " + tries + " times)";
            }
            x.focus(chooser);
        }
        long returned = System.nanoTime();
        // Reading takes about five seconds a million events on a loaded 2-core machine; ample here.
        long deadline = returned + TimeUnit.SECONDS.toNanos(120 + 30 * Math.max(1, events / 1_000_000));
        String title = "^" + recording.getFileName().toString().replace(".", "\\.") + " .+ RaceLab$";
        while (System.nanoTime() < deadline) {
            if (!child.isAlive()) {
                return "the window ended (exit " + child.exitValue() + ")";
            }
            if (x.shown(title).contains(main)) {
                return null;
            }
            List<String> others = new ArrayList<>(x.shown("^RaceLab$"));
            others.remove(main);
            if (!others.isEmpty()) {
                return "the window showed a message (see target/windowmemory-problem.png)";
            }
            Thread.sleep(200);
        }
        return "the title did not name the file within "
                + TimeUnit.NANOSECONDS.toSeconds(deadline - returned) + " s";
    }

    /** Whether no window titled {@code titleRegex} is shown within {@code seconds}. */
    private boolean awaitGone(String titleRegex, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!x.shown(titleRegex).isEmpty()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }

    private String awaitWindow(String titleRegex, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            List<String> found = x.shown(titleRegex);
            if (!found.isEmpty()) {
                return found.get(0);
            }
            Thread.sleep(100);
        }
        return null;
    }

    /** Ends the window as a user's SIGTERM would; kills it, and its servers, if they do not end. */
    private void stop(Process child) throws InterruptedException {
        child.destroy();
        if (!child.waitFor(30, TimeUnit.SECONDS)) {
            System.out.println("the window did not end within 30 s of SIGTERM: killed");
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (!WindowReady.serversGone(home)) {
            System.out.println("ITS SERVERS OUTLIVED IT (killed)");
        }
    }

    /**
     * The peer: the smallest JavaFX window ({@link OneLabelWindow}) with the memory options the last
     * RaceLab window had, measured as RaceLab's window with nothing open is, on the same display.
     * What it holds is the runtime's own share of any JavaFX window's size here.
     */
    private void peer() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), OneLabelWindow.Main.class.getName()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("peer.log").toFile()).start();
        try {
            if (awaitWindow("^" + OneLabelWindow.TITLE + "$", READY_SECONDS) == null || !screen.awaitSettled(10)) {
                System.out.printf("%-10s NOT shown within %d s (load %.1f)%n", "peer", READY_SECONDS, MachineLoad.oneMinute());
                return;
            }
            ProcessWatch.Sampled s = new ProcessWatch(child.pid()).sample(SAMPLE_MILLIS);
            System.out.printf("%-10s %-24s peak %5d MB   settled %5d MB (a JavaFX window with one label, as large, "
                    + "the same memory options and display, no class data archive)   load %.1f%n", "peer", "one label",
                    s.peakMb(), s.settledMb(), MachineLoad.oneMinute());
        } finally {
            child.destroy();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** The JVM's memory options as the launcher gave them, from the process's command line. */
    private static List<String> javaOptions(long pid) {
        try {
            String[] args = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
                    StandardCharsets.UTF_8).split("\0");
            List<String> memory = new ArrayList<>();
            for (String arg : args) {
                if (arg.matches("-Xm[sx].*|-Xss.*|-XX:[+-]?Use\\w*GC|-XX:\\w*(Heap|Ratio|Metaspace|Periodic|Pause|"
                        + "NewSize|TieredStop|CodeCache|Tracking)\\w*(=.*)?")) {
                    memory.add(arg);
                }
            }
            return memory;
        } catch (IOException gone) {
            return List.of();
        }
    }

    /**
     * The screen once it differs from {@code before} in more than {@code share} of its sampled points
     * and has then stayed still for half a second; null if that takes longer than {@link #DRAWN_SECONDS}.
     * The window draws on its FX thread, which is busy, and shows nothing new, while it reads a file
     * into the timeline or draws a frame: a still screen alone could be one not yet redrawn.
     */
    private BufferedImage drawn(BufferedImage before, double share) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAWN_SECONDS);
        while (FirstFrameBenchmark.changed(before, screen.capture()) <= share) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(100);
        }
        long left = TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime());
        return screen.awaitSettled(Math.max(1, left)) ? screen.capture() : null;
    }

    private static void save(String what, BufferedImage image) throws IOException {
        ImageIO.write(image, "png", Path.of("target", "windowmemory-" + what + ".png").toFile());
    }

    private static void print(long events, String when, ProcessWatch.Sampled s) {
        System.out.printf("%-10d %-24s peak %5d MB   settled %5d MB (highest of %d readings %d MB)   CPU %3.0f%%   "
                + "load %.1f%n", events, when, s.peakMb(), s.settledMb(), s.samples(), s.highestMb(),
                100 * s.cpuShare(), MachineLoad.oneMinute());
    }

    private static void line(long events, String text) {
        System.out.printf("%-10d %s (load %.1f)%n", events, text, MachineLoad.oneMinute());
    }
}
