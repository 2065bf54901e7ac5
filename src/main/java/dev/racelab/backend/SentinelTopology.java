package dev.racelab.backend;

import dev.racelab.backend.relay.StreamRelay;
import dev.racelab.engine.Service;
import dev.racelab.tasks.Background;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * RaceLab's own Redis with failover: two data servers ({@code redis-a}, {@code redis-b}), one the
 * primary and one its replica, and three Sentinels that watch them (quorum 2) and promote the
 * replica when the primary is down. Never the shared embedded Redis.
 *
 * <p>Everyone reaches a data server through a relay in front of it ({@link
 * StreamRelay#inFrontOf}): clients, Sentinels and the replica, since each server announces its
 * relay's port as its own ({@code replica-announce-port}). So whichever server is primary, the
 * replica's stream passes a relay that can hold it, and Sentinel, which only ever learns the
 * relays' ports, never points a replica around one.
 *
 * <p>Sentinel's timings are short ({@value #DOWN_AFTER_MS} ms to call a server down, a failover
 * timeout of {@value #FAILOVER_TIMEOUT_MS} ms), so a failover takes seconds and the next may
 * start {@code 2 ×} that timeout after the last. A server killed by a lab comes back as a replica
 * of the new primary ({@link #heal}). Saving is off everywhere; full syncs go over the socket.
 *
 * <p>Each process runs in its own folder of a {@link Slot} of {@code redis-sentinel} under the
 * data home, with a watchman; a start stops what a killed RaceLab left in any free slot.
 */
public final class SentinelTopology implements AutoCloseable {

    /** The name the Sentinels know the primary by. */
    public static final String MASTER = "racelab";
    static final int DOWN_AFTER_MS = 1000;
    static final int FAILOVER_TIMEOUT_MS = 3000;
    private static final List<String> SERVERS = List.of("redis-a", "redis-b");
    private static final List<String> SENTINELS = List.of("sentinel-1", "sentinel-2", "sentinel-3");
    private static final Duration READY_WITHIN = Duration.ofSeconds(20);

    private final Slot slot;
    private final List<RedisNode> servers;
    private final List<StreamRelay> fronts;
    private final List<RedisNode> sentinels;
    /** When the last failover was caused (System.nanoTime), or 0: Sentinel starts no other before twice its timeout. */
    private volatile long lastFault;
    /** Set by {@link #close}: no server is started after it; guarded by {@code this}. */
    private boolean closed;
    /** One connection to each Sentinel for asking who is primary, each guarded by its own holder array. */
    private final Jedis[][] asking = {new Jedis[1], new Jedis[1], new Jedis[1]};

    private SentinelTopology(Slot slot, List<RedisNode> servers, List<StreamRelay> fronts, List<RedisNode> sentinels) {
        this.slot = slot;
        this.servers = servers;
        this.fronts = fronts;
        this.sentinels = sentinels;
    }

    /** Starts the five servers and returns once every Sentinel knows the primary, its replica and the other two. */
    static SentinelTopology start(Path home, StartupListener listener, BooleanSupplier calledOff)
            throws BackendException {
        Path bin = home.resolve("redis").resolve("bin");
        Slot slot = null;
        List<RedisNode> servers = new ArrayList<>();
        List<StreamRelay> fronts = new ArrayList<>();
        List<RedisNode> sentinels = new ArrayList<>();
        try {
            slot = Slot.acquire(home.resolve("redis-sentinel"));
            stopLeftovers(slot, bin, listener);
            listener.progress(Service.REDIS_SENTINEL, StartupListener.Stage.STARTING,
                    "Starting RaceLab's Redis primary, replica and three Sentinels…");
            Path binary = EmbeddedRedisServer.unpack(bin, listener);
            for (String name : SERVERS) {
                int port = FreePort.find();
                servers.add(new RedisNode(name, binary, bin, slot.dir().resolve(name), port));
                fronts.add(StreamRelay.inFrontOf(name, new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                        Background.threads("relay-" + name)));
            }
            SentinelTopology topology = new SentinelTopology(slot, servers, fronts, sentinels);
            servers.get(0).start(topology.serverArguments(0, -1));
            servers.get(1).start(topology.serverArguments(1, 0));
            for (String name : SENTINELS) {
                if (calledOff.getAsBoolean()) {
                    throw new IOException("RaceLab is shutting down");
                }
                int port = FreePort.find();
                RedisNode sentinel = new RedisNode(name, binary, bin, slot.dir().resolve(name), port);
                Files.createDirectories(sentinel.dir());
                Path conf = sentinel.dir().resolve("sentinel.conf");
                Files.writeString(conf, String.join("\n",
                        "port " + port, "bind 127.0.0.1", "protected-mode no", "dir " + sentinel.dir(),
                        "sentinel monitor " + MASTER + " 127.0.0.1 " + fronts.get(0).port() + " 2",
                        "sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER_MS,
                        "sentinel failover-timeout " + MASTER + " " + FAILOVER_TIMEOUT_MS,
                        "sentinel parallel-syncs " + MASTER + " 1", ""));
                sentinels.add(sentinel);
                sentinel.start(List.of(conf.toString(), "--sentinel"));
            }
            topology.awaitWhole(READY_WITHIN, calledOff);
            return topology;
        } catch (IOException | RuntimeException e) {
            boolean interrupted = calledOff.getAsBoolean();
            stopAll(slot, servers, fronts, sentinels);
            throw new BackendException(Service.REDIS_SENTINEL, interrupted
                    ? "The start of RaceLab's Redis with Sentinels was called off: RaceLab is shutting down"
                    : "RaceLab's Redis with Sentinels could not start: " + e.getMessage(), e);
        }
    }

    /** Data server {@code i}'s arguments, a replica of server {@code primary} (-1: none, a primary). */
    private List<String> serverArguments(int i, int primary) {
        List<String> args = new ArrayList<>(List.of("--port", String.valueOf(servers.get(i).port()),
                "--bind", "127.0.0.1", "--protected-mode", "no", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--dir", servers.get(i).dir().toString(), "--logfile", "",
                "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                "--replica-announce-ip", "127.0.0.1", "--replica-announce-port", String.valueOf(fronts.get(i).port())));
        if (primary >= 0) {
            args.addAll(List.of("--replicaof", "127.0.0.1", String.valueOf(fronts.get(primary).port())));
        }
        return args;
    }

    private static void stopLeftovers(Slot slot, Path bin, StartupListener listener) throws IOException {
        List<String> all = new ArrayList<>(SERVERS);
        all.addAll(SENTINELS);
        for (String name : all) {
            slot.stopLeftovers("Redis " + name, dir -> dir.resolve(name).resolve("redis.pid"), bin,
                    dir -> dir.resolve(name), note -> listener.progress(Service.REDIS_SENTINEL,
                            StartupListener.Stage.NOTE, note));
        }
    }

    /** The data servers' names, in order: {@code redis-a}, {@code redis-b}. */
    public List<String> serverNames() {
        return SERVERS;
    }

    /** Where clients reach data server {@code i}: its relay. */
    public RedisAddress address(int i) {
        return new RedisAddress("127.0.0.1", fronts.get(i).port(), 0, null, null, false);
    }

    /** Whether data server {@code i}'s process runs. */
    public boolean alive(int i) {
        return servers.get(i).alive();
    }

    /**
     * The data server the Sentinels name as primary now (the first that answers), or -1 if none
     * answers or it names neither.
     */
    public int primary() {
        for (RedisNode sentinel : sentinels) {
            Optional<Integer> named = masterNamedBy(sentinel);
            if (named.isPresent()) {
                return named.get();
            }
        }
        return -1;
    }

    /** What each Sentinel names as primary now (-1: it does not answer, or names neither), in order. */
    public List<Integer> sentinelsView() {
        List<Integer> view = new ArrayList<>();
        for (RedisNode sentinel : sentinels) {
            view.add(masterNamedBy(sentinel).orElse(-1));
        }
        return view;
    }

    /**
     * What Sentinel {@code sentinel} names as primary: the data server (-1: neither of ours), or
     * empty if it names none or does not answer. Asked over one kept connection per Sentinel, made
     * when first needed and made again after a failure: clients ask every 50 ms while they wait, and
     * a run's observer every 10 ms.
     */
    private Optional<Integer> masterNamedBy(RedisNode sentinel) {
        int at = sentinels.indexOf(sentinel);
        synchronized (asking[at]) {
            try {
                if (asking[at][0] == null) {
                    asking[at][0] = new Jedis("127.0.0.1", sentinel.port(), 500);
                }
                List<String> address = asking[at][0].sentinelGetMasterAddrByName(MASTER);
                if (address == null || address.size() < 2) {
                    return Optional.empty();
                }
                int port = Integer.parseInt(address.get(1));
                for (int i = 0; i < fronts.size(); i++) {
                    if (fronts.get(i).port() == port) {
                        return Optional.of(i);
                    }
                }
                return Optional.of(-1);
            } catch (JedisException | NumberFormatException e) {
                if (asking[at][0] != null) {
                    asking[at][0].close();
                    asking[at][0] = null;
                }
                return Optional.empty();
            }
        }
    }

    /** From now on the replica's stream stays in the relays, whichever server sends it. */
    public void holdReplication() {
        fronts.forEach(StreamRelay::hold);
    }

    /** Passes on what the relays held, and lets the stream through from now on. */
    public void releaseReplication() throws IOException {
        for (StreamRelay front : fronts) {
            front.release();
        }
    }

    public boolean replicationHeld() {
        return fronts.stream().anyMatch(StreamRelay::holding);
    }

    /** How many bytes of replication the relays hold now. */
    public long heldBytes() {
        return fronts.stream().mapToLong(StreamRelay::heldBytes).sum();
    }

    /** Kills data server {@code i} (SIGKILL): a primary that crashed. Sentinel will fail over. */
    public void kill(int i) {
        lastFault = System.nanoTime();
        servers.get(i).kill();
    }

    /** Freezes data server {@code i} (SIGSTOP) or lets it run again: a primary in a long pause. */
    public void freeze(int i, boolean frozen) {
        if (frozen) {
            lastFault = System.nanoTime();
        }
        servers.get(i).freeze(frozen);
    }

    /**
     * Makes the topology whole again after a fault: a killed server comes back as a replica of the
     * primary the Sentinels name, and the relays let the stream through. Then waits until it is
     * ready for the next failover ({@link #awaitWhole}), at most {@code within}.
     */
    public void heal(Duration within, BooleanSupplier stopping) throws IOException {
        releaseReplication();
        for (int i = 0; i < servers.size(); i++) {
            servers.get(i).freeze(false);
        }
        restore(within, stopping);
        awaitWhole(within, stopping);
    }

    /**
     * Brings a killed server back as a replica of the primary the Sentinels name once they name
     * another one (a failover takes seconds), at most {@code within}.
     */
    public void restore(Duration within, BooleanSupplier stopping) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        for (int i = 0; i < servers.size(); i++) {
            if (!servers.get(i).alive()) {
                int primary = awaitPrimaryOtherThan(i, deadline, stopping);
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                    servers.get(i).close();
                    servers.get(i).start(serverArguments(i, primary));
                }
            }
        }
    }

    /**
     * Waits until the Sentinels name a primary other than {@code i}, at most {@code within}.
     *
     * @return the new primary
     * @throws IOException if none was named in time
     */
    public int awaitPrimaryOtherThan(int i, Duration within, BooleanSupplier stopping) throws IOException {
        return awaitPrimaryOtherThan(i, System.nanoTime() + within.toNanos(), stopping);
    }

    private int awaitPrimaryOtherThan(int i, long deadline, BooleanSupplier stopping) throws IOException {
        while (true) {
            int primary = primary();
            if (primary >= 0 && primary != i) {
                return primary;
            }
            pause(deadline, stopping, "the Sentinels named no new primary");
        }
    }

    /**
     * Waits until every Sentinel names the same primary, which answers as one, with the other
     * server its replica, in sync and known to every Sentinel as up, and the Sentinels know one
     * another; and until Sentinel would start another failover (twice its timeout after the last).
     */
    private void awaitWhole(Duration within, BooleanSupplier stopping) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            Optional<String> missing = whatIsMissing();
            if (missing.isEmpty()) {
                break;
            }
            pause(deadline, stopping, missing.get());
        }
        long failoverAgain = lastFault + 2L * FAILOVER_TIMEOUT_MS * 1_000_000 + 500_000_000L;
        while (lastFault != 0 && System.nanoTime() < failoverAgain) {
            pause(deadline, stopping, "Sentinel would not fail over again so soon");
        }
    }

    private Optional<String> whatIsMissing() {
        List<Integer> view = sentinelsView();
        int primary = view.get(0);
        if (primary < 0 || view.stream().anyMatch(v -> v != primary)) {
            return Optional.of("the Sentinels do not agree on a primary: " + view);
        }
        int replica = 1 - primary;
        try (Jedis p = new Jedis("127.0.0.1", servers.get(primary).port(), 1000);
             Jedis r = new Jedis("127.0.0.1", servers.get(replica).port(), 1000)) {
            if (!p.info("replication").contains("role:master")) {
                return Optional.of(SERVERS.get(primary) + " is not a primary yet");
            }
            String info = r.info("replication");
            if (!info.contains("master_port:" + fronts.get(primary).port()) || !info.contains("master_link_status:up")) {
                return Optional.of(SERVERS.get(replica) + " is not in sync with " + SERVERS.get(primary));
            }
        } catch (JedisException e) {
            return Optional.of("a data server does not answer: " + e.getMessage());
        }
        for (RedisNode sentinel : sentinels) {
            try (Jedis s = new Jedis("127.0.0.1", sentinel.port(), 1000)) {
                Map<String, String> master = s.sentinelMaster(MASTER);
                if (!"master".equals(master.get("flags"))) {
                    return Optional.of(sentinel.name() + " sees the primary as " + master.get("flags"));
                }
                boolean replicaUp = s.sentinelReplicas(MASTER).stream().anyMatch(info ->
                        String.valueOf(fronts.get(replica).port()).equals(info.get("port"))
                                && "slave".equals(info.get("flags")));
                if (!replicaUp) {
                    return Optional.of(sentinel.name() + " does not see " + SERVERS.get(replica) + " as an up replica");
                }
                if (s.sentinelSentinels(MASTER).size() < SENTINELS.size() - 1) {
                    return Optional.of(sentinel.name() + " does not know the other Sentinels yet");
                }
            } catch (JedisException e) {
                return Optional.of(sentinel.name() + " does not answer: " + e.getMessage());
            }
        }
        return Optional.empty();
    }

    private static void pause(long deadline, BooleanSupplier stopping, String missing) throws IOException {
        if (System.nanoTime() > deadline) {
            throw new IOException(missing);
        }
        if (stopping.getAsBoolean()) {
            throw new IOException("stopped while " + missing);
        }
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + missing);
        }
    }

    /** Checks that the Sentinels answer and name a primary. */
    public void probe() throws BackendException {
        if (primary() < 0) {
            throw new BackendException(Service.REDIS_SENTINEL, "RaceLab's Sentinels do not answer or name no primary");
        }
    }

    @Override
    public String toString() {
        return "embedded Redis " + SERVERS.get(0) + " and " + SERVERS.get(1) + " (relays on 127.0.0.1:"
                + fronts.get(0).port() + " and :" + fronts.get(1).port() + "), three Sentinels";
    }

    /** Stops the Sentinels, the servers and the relays; a restore under way starts nothing after this. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Jedis[] kept : asking) {
            synchronized (kept) {
                if (kept[0] != null) {
                    kept[0].close();
                    kept[0] = null;
                }
            }
        }
        stopAll(slot, servers, fronts, sentinels);
    }

    private static void stopAll(Slot slot, List<RedisNode> servers, List<StreamRelay> fronts,
                                List<RedisNode> sentinels) {
        sentinels.forEach(RedisNode::close);
        servers.forEach(RedisNode::close);
        fronts.forEach(StreamRelay::close);
        if (slot != null) {
            try {
                slot.close();
            } catch (IOException ignored) {
                // The lock goes when the process ends.
            }
        }
    }
}
