package dev.racelab.bench;

import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.Toolkit;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * How long the packaged window takes to show itself: each run starts {@code java -jar
 * target/racelab.jar} on the display (Xvfb under {@code scripts/bench}) and watches the screen, from
 * the moment the process is started, for the first frame that is more than one colour (a window),
 * the first with many colours (the laid-out window: text, lanes — RaceLab's first frame), and the
 * first that differs from that one in more than a tenth of the screen (the window proper, with its
 * controls, built in the first frame's place; equal to the laid-out one where a program shows its
 * whole window at once). The screen is read as the user would see it, not what the program says of
 * itself; a screen read takes some tens of milliseconds, so figures are that coarse. The child is
 * then ended as a user's SIGTERM would (its servers stop with it). The first run's laid-out frame
 * and window proper are saved as {@code target/firstframe-laid-out.png} and {@code
 * target/firstframe-window.png}, to see what was counted.
 *
 * <p>Arguments: runs (default 5), then what to start: a jar (default target/racelab.jar), run with
 * {@code java -jar}, or a launcher such as {@code scripts/racelab}.
 */
public final class FirstFrameBenchmark {

    /** Colours on the sampled grid beyond which the window counts as laid out (a blank one has one or two). */
    private static final int LAID_OUT_COLOURS = 40;

    private FirstFrameBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        Path jar = Path.of(args.length > 1 ? args[1] : "target/racelab.jar");
        if (!Files.isRegularFile(jar)) {
            System.err.println("first frame: no " + jar + " (build it: mvn -DskipTests package)");
            System.exit(2);
        }
        List<String> command = jar.toString().endsWith(".jar") ? List.of("java", "-jar", jar.toString())
                : List.of(jar.toString());
        Robot robot = new Robot();
        Rectangle screen = new Rectangle(Toolkit.getDefaultToolkit().getScreenSize());
        List<Long> windows = new ArrayList<>();
        List<Long> laidOut = new ArrayList<>();
        List<Long> proper = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            long start = System.nanoTime();
            Process child = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            long window = -1;
            long full = -1;
            long built = -1;
            BufferedImage first = null;
            long deadline = start + TimeUnit.SECONDS.toNanos(30);
            while (built < 0 && System.nanoTime() < deadline) {
                BufferedImage shot = robot.createScreenCapture(screen);
                int colours = colours(shot);
                long at = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (window < 0 && colours > 1) {
                    window = at;
                }
                if (full < 0 && colours > LAID_OUT_COLOURS) {
                    full = at;
                    first = shot;
                    save(run, "laid-out", shot);
                }
                if (first != null && shot != first && changed(first, shot) > 0.10) {
                    built = at;
                    save(run, "window", shot);
                } else if (first != null && at > full + 10_000) {
                    // Ten seconds with no great change: the laid-out frame was the whole window.
                    built = full;
                }
            }
            child.destroy();
            if (!child.waitFor(30, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
            System.out.printf("run %d: a window after %d ms, laid out after %d ms, the window proper after %d ms%n",
                    run, window, full, built);
            windows.add(window);
            laidOut.add(full);
            proper.add(built);
        }
        System.out.printf("first frame (median of %d): a window after %d ms, laid out after %d ms, the window proper "
                        + "after %d ms (%d cores, load %.1f)%n",
                runs, median(windows), median(laidOut), median(proper), Runtime.getRuntime().availableProcessors(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** The share of the sampled points where {@code a} and {@code b} differ. */
    static double changed(BufferedImage a, BufferedImage b) {
        int points = 0;
        int differ = 0;
        for (int y = 5; y < a.getHeight(); y += 20) {
            for (int x = 5; x < a.getWidth(); x += 20) {
                points++;
                if (a.getRGB(x, y) != b.getRGB(x, y)) {
                    differ++;
                }
            }
        }
        return (double) differ / points;
    }

    private static void save(int run, String what, BufferedImage shot) throws java.io.IOException {
        if (run == 1) {
            javax.imageio.ImageIO.write(shot, "png", Path.of("target", "firstframe-" + what + ".png").toFile());
        }
    }

    private static int colours(BufferedImage image) {
        Set<Integer> seen = new HashSet<>();
        for (int y = 5; y < image.getHeight(); y += 20) {
            for (int x = 5; x < image.getWidth(); x += 20) {
                seen.add(image.getRGB(x, y));
                if (seen.size() > LAID_OUT_COLOURS) {
                    return seen.size();
                }
            }
        }
        return seen.size();
    }

    static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
