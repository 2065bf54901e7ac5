package dev.racelab.packaging;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.support.WindowReady;

import javax.imageio.ImageIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * One installed RaceLab tried as its user would, for {@code scripts/check-packages}: start the
 * window, wait until it is laid out and both embedded servers answer, take a screenshot, run a lab
 * to a verdict from the same installation's command line, end the window as a logout would
 * (SIGTERM), and check that nothing of the user's is left running. Prints a line per step; exits 1
 * naming the first step that failed.
 *
 * <p>Arguments: the user's name, the user's data directory, the screenshot's file, then {@code --}
 * and the window's command, then {@code --} and the command line's (the lab's arguments are added).
 * Both commands start RaceLab as that user (the script puts {@code setpriv} in front).
 */
public final class PackageCheck {

    private static final long WINDOW_SECONDS = 120;
    private static final long LAB_SECONDS = 180;

    private PackageCheck() {
    }

    public static void main(String[] args) throws Exception {
        String user = args[0];
        Path dataHome = Path.of(args[1]);
        Path shot = Path.of(args[2]);
        List<String> rest = Arrays.asList(args).subList(4, args.length);
        int split = rest.indexOf("--");
        List<String> window = rest.subList(0, split);
        List<String> cli = rest.subList(split + 1, rest.size());
        try {
            check(user, dataHome, shot, window, cli);
        } catch (Failed e) {
            System.out.println("FAILED: " + e.getMessage());
            System.exit(1);
        }
    }

    private static void check(String user, Path dataHome, Path shot, List<String> window, List<String> cli)
            throws Exception {
        WindowReady watch = new WindowReady();
        Path windowLog = shot.resolveSibling(shot.getFileName() + ".window.log");
        long start = System.nanoTime();
        Process app = new ProcessBuilder(window).redirectErrorStream(true)
                .redirectOutput(windowLog.toFile()).start();
        try {
            Path starting = shot.resolveSibling(shot.getFileName().toString().replace(".png", "-starting.png"));
            WindowReady.Times times = watch.await(app, start, dataHome, WINDOW_SECONDS, image -> {
                try {
                    ImageIO.write(image, "png", starting.toFile());
                    System.out.println("screenshot while the servers start: " + starting);
                } catch (IOException e) {
                    System.out.println("note: could not write " + starting + ": " + e.getMessage());
                }
            });
            if (times.ready().isEmpty()) {
                throw new Failed("the window and both servers were not up within " + WINDOW_SECONDS + " s ("
                        + times + (app.isAlive() ? "" : "; RaceLab exited with " + app.exitValue()) + "); its output: "
                        + tail(windowLog));
            }
            System.out.println("window up with both servers answering after " + times.ready().get() + " ms (" + times + ")");
            if (!watch.awaitSettled(20)) {
                System.out.println("note: the screen kept changing for 20 s; the screenshot is of a moving window");
            }
            ImageIO.write(watch.capture(), "png", shot.toFile());
            System.out.println("screenshot: " + shot);
            System.out.println(windowIcon());

            List<String> lab = new ArrayList<>(cli);
            lab.addAll(List.of("run", "counter", "--json"));
            Path labOut = shot.resolveSibling(shot.getFileName() + ".lab.json");
            Path labErr = shot.resolveSibling(shot.getFileName() + ".lab.log");
            Process run = new ProcessBuilder(lab).redirectOutput(labOut.toFile()).redirectError(labErr.toFile()).start();
            if (!run.waitFor(LAB_SECONDS, TimeUnit.SECONDS)) {
                run.destroy();
                run.waitFor(30, TimeUnit.SECONDS);
                throw new Failed("the command line's run did not end within " + LAB_SECONDS + " s: " + tail(labErr));
            }
            if (run.exitValue() != 0) {
                throw new Failed("the command line's run exited with " + run.exitValue() + ": " + tail(labErr));
            }
            JsonObject json = JsonParser.parseString(Files.readString(labOut)).getAsJsonObject();
            String verdict = json.get("verdict").getAsString();
            if (!verdict.equals("RACE") && !verdict.equals("SAFE")) {
                throw new Failed("the command line's counter run ended " + verdict + ": " + Files.readString(labOut));
            }
            System.out.println("command line: " + String.join(" ", lab.subList(lab.size() - 3, lab.size())) + " → "
                    + verdict + " (" + json.get("strategy").getAsString() + ", lost increments "
                    + json.getAsJsonObject("metrics").get("lostIncrements") + ", served by " + json.get("backend") + ")");
        } finally {
            app.destroy();
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
                app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new Failed("RaceLab did not end within 30 s of SIGTERM (killed)");
            }
        }
        System.out.println("window ended by SIGTERM, exit " + app.exitValue());
        List<ProcessHandle> left = awaitNoProcessOf(user);
        if (!left.isEmpty()) {
            throw new Failed("processes of " + user + " outlived RaceLab (killed): " + left.stream()
                    .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList());
        }
        System.out.println("no process of " + user + " left");
    }

    /**
     * What the X server says of RaceLab's window: its icon (_NET_WM_ICON) and its class, which the
     * desktop entry's StartupWMClass names. The toolkit also makes a small hidden window of the same
     * title, without an icon; the window with one is the stage.
     */
    private static String windowIcon() throws Exception {
        String tree = output("xwininfo", "-root", "-tree");
        List<String> ids = tree.lines().filter(line -> line.contains("\"RaceLab\":"))
                .map(line -> line.strip().split("\\s+")[0]).toList();
        for (String id : ids) {
            String said = output("xprop", "-id", id, "WM_CLASS", "_NET_WM_ICON");
            List<String> sizes = Pattern.compile("Icon \\((\\d+) x (\\d+)\\)").matcher(said).results()
                    .map(m -> m.group(1) + "×" + m.group(2)).toList();
            if (!sizes.isEmpty()) {
                String wmClass = said.lines().filter(l -> l.startsWith("WM_CLASS")).findFirst().orElse("WM_CLASS unknown");
                return "window icon (_NET_WM_ICON of window " + id + "): " + String.join(", ", sizes) + "; " + wmClass;
            }
        }
        throw new Failed("no window titled RaceLab shows an icon (windows: " + ids + ")");
    }

    private static String output(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return said;
    }

    /** Waits up to 15 s for every process of {@code user} to end; returns (and kills) those that did not. */
    private static List<ProcessHandle> awaitNoProcessOf(String user) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        List<ProcessHandle> left = processesOf(user);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            left = processesOf(user);
        }
        left.forEach(ProcessHandle::destroyForcibly);
        return left;
    }

    private static List<ProcessHandle> processesOf(String user) {
        return ProcessHandle.allProcesses().filter(p -> p.info().user().map(user::equals).orElse(false)).toList();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private static final class Failed extends Exception {
        Failed(String message) {
            super(message);
        }
    }
}
