package dev.racelab.classroom;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.Redis;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.resps.StreamEntry;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A class's host: it opens the class on its servers ({@link ClassRoom}), takes the participants
 * as they join, runs the class's run ({@link HostedExperiment}) and tells everyone the verdict;
 * closing removes everything of the class from the servers. It says it is there ({@link Heartbeat}),
 * so a host that disappears ends its participants' run.
 */
public final class ClassHost implements AutoCloseable {

    /** The host's name among the class's alive keys. */
    static final String HOST = "host";
    /** The PostgreSQL sessions a class may have: room for 40 participants' few workers each. */
    private static final int SESSIONS = 240;
    /** The longest name a participant keeps on the host's lanes. */
    private static final int NAME_LENGTH = 24;
    private static final com.google.gson.Gson GSON = new com.google.gson.Gson();

    /**
     * A class's run as it ended: its record, the lab it ran, each participant's part, and how long
     * the host's words (go, pause, resume, stop) took to reach each participant.
     */
    public record Hosted(RunRecord record, Lab lab, List<Ledger.Part> parts, List<Heard> heard) {

        /** How many of the verdict's lost writes no participant's part names: their events did not reach the host. */
        public long unnamed() {
            return HostedScenario.unnamed(record.outcome(), parts);
        }
    }

    /** How long a word of the host's ({@code what}) took to reach participant {@code name}, by the server's clock. */
    public record Heard(String name, String what, long nanos) {
    }

    private final ClassRoom room;
    private final Redis redis;
    private final Backends classServers;
    private final Heartbeat heartbeat;
    private final ClassChannel channel;
    private final Consumer<String> say;
    /** Written by the thread taking joins, read by anyone (a window's list of who is here). */
    private final List<Joined> joined = new java.util.concurrent.CopyOnWriteArrayList<>();
    private StreamEntryID rollAfter = new StreamEntryID(0, 0);
    private volatile Run current;
    private volatile ClassHub hub;
    /** The run's ledger, from its start on; the last run's after it ended. */
    private volatile Ledger ledger;
    private Consumer<Run> watcher = run -> { };
    private volatile boolean delaysKept;
    private volatile boolean stopped;
    /** Held while a run's end is taken down, and while {@link #stopRun} looks for one to stop. */
    private final Object runs = new Object();

    private record Joined(String member, String name, int workers, long skewNanos) {
    }

    /**
     * One who joined, as the host shows them.
     *
     * @param skewNanos their clock as they estimated it: the server's time minus their wall clock
     */
    public record Participant(String name, int workers, long skewNanos) {
    }

    private ClassHost(ClassRoom room, Redis redis, Backends classServers, Heartbeat heartbeat, ClassChannel channel,
                      Consumer<String> say) {
        this.room = room;
        this.redis = redis;
        this.classServers = classServers;
        this.heartbeat = heartbeat;
        this.channel = channel;
        this.say = say;
    }

    /**
     * Opens a class on {@code servers}: its login, database, user and streams.
     *
     * @throws BackendException the servers cannot give a class a confined share (saying why)
     */
    public static ClassHost open(Backends servers, Path home, Consumer<String> say) throws BackendException {
        return open(servers, home, null, say);
    }

    /**
     * {@link #open(Backends, Path, Consumer)}; RaceLab's embedded servers are reached at {@code address}
     * (null: this machine's address on its network, {@link ClassAddress}) through the class's doors.
     */
    public static ClassHost open(Backends servers, Path home, InetAddress address, Consumer<String> say)
            throws BackendException {
        ClassRoom room = ClassRoom.open(servers.postgres(), servers.redis(), ClassCode.random(), SESSIONS);
        Redis redis = null;
        Backends classServers = null;
        Heartbeat heartbeat = null;
        try {
            if (servers.postgres().embedded() && servers.redis().embedded()) {
                room.openDoors(address != null ? address : ClassAddress.choose());
            }
            redis = Redis.connect(room.redis());
            classServers = new Backends(new BackendSettings(Optional.of(room.postgres()), Optional.of(room.redis())),
                    home, StartupListener.SILENT);
            heartbeat = Heartbeat.start(redis, room.code(), HOST);
            ClassChannel channel = new ClassChannel(redis.open("class-host", 5_000), room.code());
            channel.post(ClassChannel.CONTROL, Map.of("type", "open"));
            return new ClassHost(room, redis, classServers, heartbeat, channel, say);
        } catch (BackendException | RuntimeException | java.io.IOException e) {
            if (heartbeat != null) {
                heartbeat.close();
            }
            if (classServers != null) {
                classServers.close();
            }
            if (redis != null) {
                closeQuietly(redis);
            }
            room.close();
            if (e instanceof java.io.IOException io) {
                throw new BackendException(dev.racelab.engine.Service.POSTGRES, "the class's address could not be "
                        + "opened: " + io.getMessage(), io);
            }
            if (e instanceof BackendException backend) {
                throw backend;
            }
            throw (RuntimeException) e;
        }
    }

    public ClassCode code() {
        return room.code();
    }

    /** The line students join with: the servers as the participants reach them. */
    public JoinLine joinLine() {
        return room.joinLine();
    }

    /**
     * Takes joins until {@code participants} have joined.
     *
     * @throws IllegalStateException fewer joined within {@code within} (saying how many)
     */
    public List<ClassPlan.Seat> awaitJoins(int participants, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        long began = System.nanoTime();
        while (joined.size() < participants) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw new IllegalStateException(joined.size() + " of " + participants + " participants joined within "
                        + within.toSeconds() + " s");
            }
            takeJoins(Math.min(left, 500));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        say.accept(String.format("All %d joined in %.1f s", participants, (System.nanoTime() - began) / 1e9));
        return seats();
    }

    /**
     * Takes the joins that come within {@code millis}: for a host that starts the run when it
     * chooses (a window). Called by one thread, the one that runs the class's runs.
     */
    public void takeJoins(long millis) {
        for (StreamEntry entry : channel.read(ClassChannel.ROLL, rollAfter, millis, 100)) {
            rollAfter = entry.getID();
            take(entry.getFields());
        }
    }

    /** Who has joined so far, in the order they joined. */
    public List<Participant> participants() {
        return joined.stream().map(j -> new Participant(j.name(), j.workers(), j.skewNanos())).toList();
    }

    /**
     * Each participant's part in the run going on, as far as it has come (the last run's once it
     * ended; none before the first): the projector's leaderboard.
     */
    public List<Ledger.Part> parts() {
        Ledger now = ledger;
        return now == null ? List.of() : now.parts();
    }

    private void take(Map<String, String> f) {
        if (!"join".equals(f.get("type")) || f.get("member") == null) {
            return;
        }
        int workers;
        long skew;
        try {
            workers = Integer.parseInt(f.getOrDefault("workers", "1"));
            skew = Long.parseLong(f.getOrDefault("skew", "0"));
        } catch (NumberFormatException e) {
            return;
        }
        if (workers < 1 || workers > 16 || joined.stream().anyMatch(j -> j.member().equals(f.get("member")))) {
            return;
        }
        String name = uniqueName(f.getOrDefault("name", "student"));
        joined.add(new Joined(f.get("member"), name, workers, skew));
        say.accept(name + " joined (" + workers + (workers == 1 ? " worker" : " workers")
                + String.format(", clock %+.1f ms)", -skew / 1e6));
    }

    private String uniqueName(String typed) {
        String name = typed.replaceAll("\\p{Cntrl}", " ").strip();
        if (name.isEmpty()) {
            name = "student";
        }
        if (name.length() > NAME_LENGTH) {
            name = name.substring(0, NAME_LENGTH);
        }
        Set<String> taken = new HashSet<>();
        joined.forEach(j -> taken.add(j.name()));
        String unique = name;
        for (int n = 2; taken.contains(unique); n++) {
            unique = name + " (" + n + ")";
        }
        return unique;
    }

    /** The seats of everyone who joined, in the order they joined: the next run's. */
    public List<ClassPlan.Seat> seats() {
        List<ClassPlan.Seat> seats = new ArrayList<>();
        int first = 0;
        for (Joined j : joined) {
            seats.add(new ClassPlan.Seat(j.member(), j.name(), j.workers(), first));
            first += j.workers();
        }
        return seats;
    }

    /**
     * Runs lab {@code labId} with {@code spec}'s settings (its workers are the seats') and tells the
     * participants its verdict.
     */
    public Hosted run(String labId, RunSpec spec, List<ClassPlan.Seat> seats) throws Exception {
        Labs labs = new Labs(classServers);
        Lab lab = labs.find(labId).orElseThrow(() -> new IllegalArgumentException("no lab '" + labId + "'"));
        if (!lab.classReady()) {
            throw new IllegalArgumentException("a class cannot run the " + labId + " lab yet: it runs "
                    + labs.classLabs());
        }
        int workers = ClassPlan.workers(seats);
        RunSpec classSpec = spec.withWorkers(workers);
        Ledger ledger = new Ledger(seats);
        this.ledger = ledger;
        try (ClassHub hub = new ClassHub(redis, room.code(), seats)) {
            this.hub = hub;
            Run run = new Run(new HostedExperiment(lab, classSpec, seats, hub, ledger, delaysKept, say), classSpec,
                    Clock.system());
            current = run;
            watcher.accept(run);
            if (stopped) {
                run.stop();
            }
            run.start();
            Outcome outcome = run.outcome().get();
            hub.tell(Map.of("type", "ended", "verdict", outcome.verdict().name(), "headline", outcome.headline(),
                    "explanation", outcome.explanation(), "metrics", GSON.toJson(outcome.metrics())));
            Map<String, String> names = new java.util.HashMap<>();
            seats.forEach(seat -> names.put(seat.member(), seat.name()));
            List<Heard> heard = hub.heard().stream().filter(h -> names.containsKey(h.member()))
                    .map(h -> new Heard(names.get(h.member()), h.what(), h.nanos())).toList();
            return new Hosted(run.record(), lab, ledger.parts(), heard);
        } finally {
            synchronized (runs) {
                this.hub = null;
                // A stop ends this run; the class's next run begins afresh.
                this.current = null;
                this.stopped = false;
            }
        }
    }

    /** Hands the class's run to {@code runWatcher} as it starts: for a window, or a test, following it live. */
    public ClassHost watching(Consumer<Run> runWatcher) {
        this.watcher = runWatcher;
        return this;
    }

    /** Whether the participants' own delays are left out of the runs from now on: the host's alone count. */
    public ClassHost keepingDelays(boolean keep) {
        this.delaysKept = keep;
        return this;
    }

    /** Halts every participant's workers at their next gate; the host's run shows it paused. */
    public void pause() {
        ClassHub now = hub;
        if (now != null) {
            now.tell(Map.of("type", "pause"));
            Run run = current;
            if (run != null) {
                run.pause();
            }
        }
    }

    /** Lets every participant's workers go on from their gates. */
    public void resume() {
        ClassHub now = hub;
        if (now != null) {
            now.tell(Map.of("type", "resume"));
            Run run = current;
            if (run != null) {
                run.resume();
            }
        }
    }

    /**
     * Releases the participant's worker that lane {@code worker} of the host's run stands for, halted
     * at a gate, to its next gate (the class paused).
     */
    public void step(int worker) {
        ClassHub now = hub;
        if (now == null) {
            return;
        }
        ClassPlan.Seat seat = ClassPlan.seatAt(now.seats(), worker);
        if (seat != null) {
            now.tell(Map.of("type", "step", "member", seat.member(), "worker", String.valueOf(worker - seat.first())));
        }
    }

    /** Each participant's clock as it estimated it when it joined: the server's time minus its wall clock, by name. */
    public Map<String, Long> skews() {
        Map<String, Long> skews = new java.util.LinkedHashMap<>();
        joined.forEach(j -> skews.put(j.name(), j.skewNanos()));
        return skews;
    }

    /**
     * Stops the class's run (a signal): it is judged on what was done, and the participants told; a
     * run not yet begun is stopped as it begins.
     */
    public void stop() {
        stopped = true;
        Run run = current;
        if (run != null) {
            run.stop();
            try (ClassChannel telling = new ClassChannel(redis.open("class-stop", 2_000), room.code())) {
                telling.post(ClassChannel.CONTROL, Map.of("type", "stop"));
            } catch (RuntimeException e) {
                // The participants hear the verdict, or see the host gone.
            }
        }
    }

    /**
     * Stops the class's run going on, if there is one (a window's Stop): unlike {@link #stop}, a
     * stop that comes when no run goes on leaves the next run alone.
     */
    public void stopRun() {
        synchronized (runs) {
            if (current != null) {
                stop();
            }
        }
    }

    /** Ends the class: everything of it goes from the servers. */
    @Override
    public void close() {
        try {
            try {
                channel.post(ClassChannel.CONTROL, Map.of("type", "closed"));
                // A moment for the participants to hear it and go (each removes its alive key) before
                // the class's user, and their connections with it, is removed.
                List<String> members = joined.stream().map(Joined::member).toList();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < deadline && channel.alive(members).contains(true)) {
                    Thread.sleep(50);
                }
            } catch (RuntimeException e) {
                // The participants see the host gone.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            heartbeat.close();
            channel.close();
            classServers.close();
            closeQuietly(redis);
        } finally {
            room.close();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // Closing: nothing left to do with it.
        }
    }
}
