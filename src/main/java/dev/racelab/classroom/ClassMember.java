package dev.racelab.classroom;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.Redis;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.resps.StreamEntry;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A participant of a class: its own workers, on this machine, in the class's runs against the
 * class's servers. It joins, and for each run prepares its share when the host says ({@link
 * MemberRun}: its workers connect and halt at their first gate), says it is ready, and lets them go
 * at the instant the host names, in server time ({@link ClassClock}); its workers' events go to the
 * host as they happen ({@link MemberFeed}). It follows the host's pause, resume and stop, hears each
 * verdict, and ends when the host ends the class, or with a message when the host is gone.
 */
public final class ClassMember {

    /** What a participant's part ended with. */
    public record Ending(boolean judged, String verdict, String headline, String explanation) {
    }

    /**
     * How long a login to the class's servers may take: a class's machines log in all at once,
     * forty of them to one host's servers, and a host's machine is busy then.
     */
    static final Duration LOGIN_WITHIN = Duration.ofSeconds(60);

    /**
     * How long a read of the host's words may take: far more than its half-second wait, so a
     * host's machine that vanishes without closing the connection is found out.
     */
    static final int READ_MILLIS = 10_000;

    /** How long the host may stay silent before its participants give up on it. */
    static final long HOST_GONE_MILLIS = 4_000;

    private final JoinLine line;
    private final String name;
    private final int workers;
    private final Path home;
    private final Consumer<String> say;
    private final long wallSkewNanos;
    private List<String> delays = List.of();
    private Consumer<Ending> verdicts = ending -> { };
    /** Null unless a window follows the class: then each run's copy of the whole class goes to it. */
    private Consumer<Run> runs;
    private volatile boolean leaving;
    private StreamEntryID joinedAfter = new StreamEntryID(0, 0);
    private final String id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());

    /**
     * @param name    what the host's lanes call this participant
     * @param workers how many workers it runs
     * @param home    where RaceLab keeps its files on this machine
     * @param say     where progress goes, a line at a time
     */
    public ClassMember(JoinLine line, String name, int workers, Path home, Consumer<String> say) {
        this(line, name, workers, home, 0, say);
    }

    /** Delays at this participant's own workers' gates ({@code --delay}'s text), unless the host keeps them. */
    public ClassMember withDelays(List<String> own) {
        this.delays = List.copyOf(own);
        return this;
    }

    /** Hands each run's verdict, as the host tells it, to {@code each}. */
    public ClassMember onVerdict(Consumer<Ending> each) {
        this.verdicts = each;
        return this;
    }

    /**
     * Hands a copy of each of the class's runs, every participant's lanes on it, to {@code each} as
     * it is prepared ({@link ClassMirror}): for a window following the class.
     */
    public ClassMember watching(Consumer<Run> each) {
        this.runs = each;
        return this;
    }

    /**
     * Leaves the class, from any thread: {@link #take} returns, its workers stopped, at its next look
     * at the host's words (every half second once it has joined; a login, or workers getting ready
     * for a run, finish first).
     */
    public void leave() {
        leaving = true;
    }

    /**
     * {@link #ClassMember(JoinLine, String, int, Path, Consumer)} on a machine whose wall clock is
     * {@code wallSkewNanos} ahead of this one's: for a benchmark that checks the class's clock
     * estimate against a skew it injected.
     */
    public ClassMember(JoinLine line, String name, int workers, Path home, long wallSkewNanos, Consumer<String> say) {
        this.wallSkewNanos = wallSkewNanos;
        this.line = line;
        this.name = name;
        this.workers = workers;
        this.home = home;
        this.say = say;
    }

    /**
     * Joins and takes part until the class's run ends.
     *
     * @throws BackendException the class's servers cannot be reached with the line's credentials
     */
    public Ending take() throws BackendException, InterruptedException {
        Redis redis = Redis.connect(line.redis(), LOGIN_WITHIN);
        try (Backends servers = new Backends(new BackendSettings(Optional.of(line.postgres()),
                Optional.of(line.redis())), home, StartupListener.SILENT);
             ClassChannel channel = new ClassChannel(redis.open("class-" + id, READ_MILLIS), line.code());
             Heartbeat heartbeat = Heartbeat.start(redis, line.code(), id)) {
            servers.loginWithin(LOGIN_WITHIN);
            ClassClock clock = channel.clock(wallSkewNanos);
            joinedAfter = channel.last(ClassChannel.CONTROL);
            channel.post(ClassChannel.ROLL, Map.of("type", "join", "member", id, "name", name,
                    "workers", String.valueOf(workers), "skew", String.valueOf(clock.skewNanos()),
                    "error", String.valueOf(clock.errorNanos())));
            say.accept("Joined class " + line.code() + " as " + name + " (clock " + offsetText(clock) + ")");
            return follow(channel, clock, new Labs(servers), redis);
        } finally {
            closeQuietly(redis);
        }
    }

    private Ending follow(ClassChannel channel, ClassClock clock, Labs labs, Redis redis) throws InterruptedException {
        // What the host says from now on: a newcomer takes part in the next run, not one begun before it joined.
        StreamEntryID after = joinedAfter;
        MemberRun current = null;
        ClassMirror mirror = null;
        Ending last = null;
        long hostHeard = System.nanoTime();
        try {
            while (true) {
                if (leaving) {
                    return new Ending(false, null, "you left the class", "This machine left the class.");
                }
                for (StreamEntry entry : channel.read(ClassChannel.CONTROL, after, 500, 100)) {
                    after = entry.getID();
                    Map<String, String> f = entry.getFields();
                    saidHeard(channel, clock, f, current);
                    try {
                        String type = f.getOrDefault("type", "");
                        if (type.equals("closed")) {
                            return last != null ? last : new Ending(false, null, "the class ended",
                                    "The host ended the class before a run.");
                        }
                        if (type.equals("prepare")) {
                            if (current != null) {
                                current.close();
                            }
                            if (mirror != null) {
                                mirror.close();
                            }
                            mirror = mirror(f, labs, redis, clock);
                            current = prepare(f, channel, clock, labs, redis);
                        } else if (type.equals("ended")) {
                            last = new Ending(true, f.get("verdict"), f.get("headline"), f.get("explanation"));
                            if (mirror != null) {
                                mirror.told(f);
                            }
                            verdicts.accept(last);
                            if (current != null) {
                                MemberRun ended = current;
                                current = null;
                                ended.stop();
                                ended.finish(say);
                                ended.close();
                            }
                        } else {
                            if (mirror != null) {
                                follow(f, mirror, clock);
                            }
                            if (current != null) {
                                current = follow(f, current, clock);
                            }
                        }
                    } catch (JedisException e) {
                        throw e;
                    } catch (RuntimeException notOne) {
                        say.accept("A word of the host's could not be read (" + notOne.getMessage() + "): left out");
                    }
                }
                if (current != null && current.ended()) {
                    current.finish(say);
                }
                if (mirror != null) {
                    mirror.tidy();
                }
                if (!channel.alive(List.of(ClassHost.HOST)).get(0)) {
                    if (System.nanoTime() - hostHeard > TimeUnit.MILLISECONDS.toNanos(HOST_GONE_MILLIS)) {
                        return new Ending(false, null, "the host is gone",
                                "The class's host stopped answering, so the class's run ended without a verdict.");
                    }
                } else {
                    hostHeard = System.nanoTime();
                }
            }
        } catch (JedisException e) {
            if (last != null) {
                // The host ended the class just after its verdict: the class's user went with it.
                return last;
            }
            return new Ending(false, null, "the class's Redis is out of reach",
                    "This machine lost the class's Redis (" + e.getMessage() + "), so it left the class.");
        } finally {
            if (current != null) {
                current.close();
            }
            if (mirror != null) {
                mirror.close();
            }
        }
    }

    /** A copy of the class's run {@code f} plans, for the window following the class; null when none does. */
    private ClassMirror mirror(Map<String, String> f, Labs labs, Redis redis, ClassClock clock) {
        if (runs == null) {
            return null;
        }
        try {
            ClassPlan plan = ClassPlan.from(f);
            Lab lab = labs.find(plan.lab()).orElse(null);
            if (lab == null) {
                return null;
            }
            ClassMirror copy = ClassMirror.start(lab, plan, redis, line.code(), clock);
            try {
                runs.accept(copy.run());
            } catch (RuntimeException e) {
                copy.close();
                throw e;
            }
            return copy;
        } catch (RuntimeException e) {
            say.accept("The whole class's run cannot be shown here (" + e.getMessage() + ")");
            return null;
        }
    }

    /**
     * Does what the host says to this participant's share of the run: go, pause, resume, stop, or
     * sit the run out (left out of the go, or counted out); the share, or null once it sits out.
     */
    private MemberRun follow(Map<String, String> f, MemberRun current, ClassClock clock) throws InterruptedException {
        switch (f.getOrDefault("type", "")) {
            case "go" -> {
                if (!List.of(String.valueOf(f.get("members")).split(",")).contains(id)) {
                    current.close();
                    say.accept("The run began without this machine: it was not ready in time");
                    return null;
                }
                current.go(clock.toLocal(Long.parseLong(f.get("at"))));
                say.accept("Go");
            }
            case "pause" -> current.pause();
            case "resume" -> current.resume();
            case "stop" -> current.stop();
            case "step" -> {
                if (id.equals(f.get("member"))) {
                    current.step(Integer.parseInt(f.getOrDefault("worker", "-1")));
                }
            }
            case "out" -> {
                if (id.equals(f.get("member"))) {
                    current.close();
                    say.accept("The host counted this machine out of the run (it stopped hearing from it)");
                    return null;
                }
            }
            default -> {
                // A word of a newer host: not one this participant acts on.
            }
        }
        return current;
    }

    /** What the host's word {@code f} means for the copy of the class's run this window shows. */
    private static void follow(Map<String, String> f, ClassMirror mirror, ClassClock clock) {
        switch (f.getOrDefault("type", "")) {
            case "go" -> mirror.go(List.of(String.valueOf(f.get("members")).split(",")),
                    clock.toLocal(Long.parseLong(f.get("at"))));
            case "out" -> mirror.out(String.valueOf(f.get("member")));
            default -> {
                // Pause, resume, step and stop are the participants' to follow; the copy shows what they do.
            }
        }
    }

    /**
     * Prepares this participant's share of the run the host planned, and says it is ready, or why it
     * cannot begin (then it sits this run out); null when it has no share.
     */
    private MemberRun prepare(Map<String, String> f, ClassChannel channel, ClassClock clock, Labs labs, Redis redis)
            throws InterruptedException {
        ClassPlan plan;
        try {
            plan = ClassPlan.from(f);
        } catch (RuntimeException e) {
            say.accept("The host's run cannot be read here (" + e.getMessage() + "): this one goes on without you");
            return null;
        }
        if (plan.seatOf(id) == null) {
            say.accept("A run began without you: you take part in the next");
            return null;
        }
        MemberRun run;
        try {
            run = MemberRun.prepare(plan, labs, workers, delays, redis, line.code(), id, clock, channel, say);
        } catch (IllegalArgumentException e) {
            cannotBegin(channel, plan.run(), "the host's run cannot be run here: " + e.getMessage());
            return null;
        }
        String why = run.awaitReady(HostedExperiment.READY_WITHIN_MILLIS);
        if (why != null) {
            run.close();
            cannotBegin(channel, plan.run(), why);
            return null;
        }
        channel.post(ClassChannel.ROLL, Map.of("type", "ready", "member", id, "run", plan.run()));
        say.accept("Ready: " + workers + (workers == 1 ? " worker" : " workers") + " of " + plan.lab()
                + (workers == 1 ? " waits" : " wait") + " for the host's go");
        return run;
    }

    /** Tells the host this participant sits run {@code classRun} out, and why. */
    private void cannotBegin(ClassChannel channel, String classRun, String why) {
        channel.post(ClassChannel.ROLL, Map.of("type", "failed", "member", id, "run", classRun, "why", why));
        say.accept("This machine's workers could not begin: " + why);
    }

    /** Tells the host how long its word took to come (by the server's clock): the class's gate latency. */
    private void saidHeard(ClassChannel channel, ClassClock clock, Map<String, String> f, MemberRun current) {
        String what = f.getOrDefault("type", "");
        if (current != null && f.containsKey("sent") && List.of("go", "pause", "resume", "stop").contains(what)) {
            try {
                long took = clock.serverNow() - Long.parseLong(f.get("sent"));
                channel.post(ClassChannel.ROLL, Map.of("type", "heard", "member", id, "run", current.classRun(),
                        "what", what, "nanos", String.valueOf(took)));
            } catch (NumberFormatException notOne) {
                // A host that does not stamp its words: nothing to say.
            }
        }
    }

    private static String offsetText(ClassClock clock) {
        return String.format("%+.1f ms from the server's, ±%.1f ms", -clock.skewNanos() / 1e6,
                clock.errorNanos() / 1e6);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // Leaving: nothing more to do with it.
        }
    }
}
