package dev.racelab.support;

import redis.clients.jedis.Jedis;

import java.awt.Rectangle;
import java.awt.Robot;
import java.awt.Toolkit;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Watches a RaceLab started as a separate process, as its user would: the screen shows the
 * laid-out window (many colours on a sampled grid; a blank screen or a bare window has one or
 * two), and its embedded servers, found as the processes running under its data directory, are up:
 * PostgreSQL has RaceLab's schema {@code racelab} (RaceLab makes it when it first opens the
 * server, after its own checks of the unpacked binaries; on later starts it is there as soon as the
 * server answers), Redis answers a {@code PING}. For the start-up benchmarks and the package
 * checks; needs a display (Xvfb).
 */
public final class WindowReady {

    /** Colours on the sampled grid beyond which the window counts as laid out. */
    public static final int LAID_OUT_COLOURS = 40;

    private final Robot robot;
    private final Rectangle screen;

    public WindowReady() throws java.awt.AWTException {
        this.robot = new Robot();
        this.screen = new Rectangle(Toolkit.getDefaultToolkit().getScreenSize());
    }

    /** When each thing a user waits for was there, in ms from the launch; -1 if it never was. */
    public record Times(long window, long postgres, long redis) {
        public Optional<Long> ready() {
            return window < 0 || postgres < 0 || redis < 0 ? Optional.empty()
                    : Optional.of(Math.max(window, Math.max(postgres, redis)));
        }

        @Override
        public String toString() {
            return "window laid out " + window + " ms, PostgreSQL up " + postgres + " ms, Redis up " + redis + " ms";
        }
    }

    /**
     * Waits until the window is laid out and both servers under {@code dataHome} answer, or the
     * child ends, or {@code giveUpSeconds} pass; {@code start} is the launch, from {@link System#nanoTime()}.
     */
    public Times await(Process child, long start, Path dataHome, long giveUpSeconds) {
        return await(child, start, dataHome, giveUpSeconds, image -> { });
    }

    /**
     * As {@link #await(Process, long, Path, long)}, and hands {@code starting} the screen as it
     * is two seconds after the window was laid out, if PostgreSQL is not up by then: the window
     * while its servers start.
     */
    public Times await(Process child, long start, Path dataHome, long giveUpSeconds, Consumer<BufferedImage> starting) {
        long window = -1;
        long postgres = -1;
        long redis = -1;
        boolean shown = false;
        long deadline = start + TimeUnit.SECONDS.toNanos(giveUpSeconds);
        while ((window < 0 || postgres < 0 || redis < 0) && System.nanoTime() < deadline && child.isAlive()) {
            BufferedImage screen = capture();
            if (window < 0 && colours(screen) > LAID_OUT_COLOURS) {
                window = since(start);
            }
            if (!shown && window >= 0 && postgres < 0 && since(start) - window >= 2000) {
                starting.accept(screen);
                shown = true;
            }
            if (postgres < 0 && postgresAnswers(dataHome)) {
                postgres = since(start);
            }
            if (redis < 0 && redisAnswers(dataHome)) {
                redis = since(start);
            }
        }
        return new Times(window, postgres, redis);
    }

    public BufferedImage capture() {
        return robot.createScreenCapture(screen);
    }

    /**
     * Waits until the screen stays the same for half a second (the status bar has caught up with
     * the servers), at most {@code seconds}; says whether it settled.
     */
    public boolean awaitSettled(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        BufferedImage before = capture();
        while (System.nanoTime() < deadline) {
            Thread.sleep(500);
            BufferedImage now = capture();
            if (same(before, now)) {
                return true;
            }
            before = now;
        }
        return false;
    }

    private static boolean same(BufferedImage a, BufferedImage b) {
        for (int y = 0; y < a.getHeight(); y += 2) {
            for (int x = 0; x < a.getWidth(); x += 2) {
                if (a.getRGB(x, y) != b.getRGB(x, y)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Distinct colours on a grid sampled every 20 px, counted up to just past {@link #LAID_OUT_COLOURS}. */
    public static int colours(BufferedImage image) {
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

    private static long since(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static boolean postgresAnswers(Path home) {
        for (int port : listening(home.resolve("postgres"), "postgres")) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                    + "/postgres?user=postgres&connectTimeout=1");
                 var rs = c.createStatement().executeQuery("select count(*) from pg_namespace where nspname = 'racelab'")) {
                return rs.next() && rs.getInt(1) == 1;
            } catch (Exception notYet) {
                // Starting.
            }
        }
        return false;
    }

    private static boolean redisAnswers(Path home) {
        for (int port : listening(home.resolve("redis"), "redis-server")) {
            try (Jedis jedis = new Jedis("127.0.0.1", port, 1000)) {
                return "PONG".equals(jedis.ping());
            } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                // RaceLab's Redis answers, asking for the password only RaceLab knows.
                return e.getMessage() != null && e.getMessage().startsWith("NOAUTH");
            } catch (Exception notYet) {
                // Starting.
            }
        }
        return false;
    }

    /** The TCP ports open in the processes whose program's name starts with {@code name} that run under {@code dir}. */
    private static List<Integer> listening(Path dir, String name) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Integer> ports = new ArrayList<>();
        for (ProcessHandle process : ProcFs.runningIn(dir)) {
            // Named as the program starts: redis-server-6.2.6-v5-linux-amd64 is a Redis.
            if (process.info().command().map(c -> Path.of(c).getFileName().toString().startsWith(name)).orElse(false)) {
                try {
                    ports.addAll(ProcFs.localPorts(process.pid()));
                } catch (IOException ended) {
                    // Gone meanwhile.
                }
            }
        }
        return ports;
    }

    /** Whether the servers under {@code dataHome} are gone within 15 s; any still there are killed. */
    public static boolean serversGone(Path dataHome) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!Files.isDirectory(dataHome) || ProcFs.runningIn(dataHome).isEmpty()) {
                return true;
            }
            Thread.sleep(100);
        }
        ProcFs.killAllIn(dataHome);
        return false;
    }
}
