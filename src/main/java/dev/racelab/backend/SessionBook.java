package dev.racelab.backend;

import java.util.Comparator;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The book a run's {@link PgSessions} keep of their sessions: each session's name by backend pid,
 * which worker uses it now, which workers believe they hold which advisory lock (and in which
 * session), and which lock call each worker has in flight (and on which session). Written by each
 * worker's thread for itself, read by the lock observer and the labs' oracles, through {@link
 * #live} or as of one moment ({@link #view}). Thread-safe.
 */
public final class SessionBook {

    /** Every session the run opened, by backend pid: its name without the prefix. */
    private final Map<Integer, String> names = new ConcurrentHashMap<>();
    /** Which worker uses each backend now: for its whole life (dedicated) or while it holds a lease (pooled). */
    private final Map<Integer, String> users = new ConcurrentHashMap<>();
    /**
     * Per advisory key a lab declared beliefs about, which workers believe they hold it. A key
     * stays here once declared (its map empty when nobody believes), so the observer knows the
     * lab keeps count of it.
     */
    private final Map<AdvisoryKey, Map<String, Belief>> beliefs = new ConcurrentHashMap<>();
    /** Per worker with a lock call in flight, what it asks for and on which session. */
    private final Map<String, Ask> asking = new ConcurrentHashMap<>();
    /** The workers waiting for the pool to lend them a session. */
    private final Set<String> awaitingPool = ConcurrentHashMap.newKeySet();
    private final View live = new View(names, users, beliefs, asking);

    /** A lock call in flight: for {@code key}, on the session with backend {@code pid}. */
    private record Ask(AdvisoryKey key, int pid) {
    }

    /**
     * What worker {@code worker} believes of one advisory lock: that it holds it {@code times} times
     * (a session lock taken n times needs n unlocks), at session or transaction level, in the
     * session with backend {@code pid} (where the server granted it).
     */
    public record Belief(String worker, int times, boolean transactionLevel, int pid) {
    }

    void named(int pid, String name) {
        names.put(pid, name);
    }

    void awaitsPool(String worker, boolean waits) {
        if (waits) {
            awaitingPool.add(worker);
        } else {
            awaitingPool.remove(worker);
        }
    }

    /** Whether {@code worker} waits for the pool to lend it a session now. */
    public boolean awaitsPool(String worker) {
        return awaitingPool.contains(worker);
    }

    void uses(int pid, String worker) {
        users.put(pid, worker);
    }

    /** {@code worker} no longer uses the session with backend {@code pid} (if it still did). */
    void gaveBack(int pid, String worker) {
        users.remove(pid, worker);
    }

    void believes(String worker, AdvisoryKey key, int pid, int times, boolean transactionLevel) {
        Map<String, Belief> of = beliefs.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
        if (times > 0) {
            of.put(worker, new Belief(worker, times, transactionLevel, pid));
        } else {
            of.remove(worker);
        }
    }

    void tracks(AdvisoryKey key) {
        beliefs.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
    }

    /** {@code worker}'s lock call for {@code key} is in flight on the session with backend {@code pid}; a null key: none is. */
    void asks(String worker, AdvisoryKey key, int pid) {
        if (key == null) {
            asking.remove(worker);
        } else {
            asking.put(worker, new Ask(key, pid));
        }
    }

    /** The backend pids of every session the run opened. */
    Set<Integer> pids() {
        return names.keySet();
    }

    /** The sessions read through: each answer is as of the moment it is asked. */
    public View live() {
        return live;
    }

    /**
     * The sessions as they are now, kept: who uses each, who believes they hold what, who asks.
     * For a reader that matches them with what the server said at about this moment, however long
     * the server takes to say it; the workers go on meanwhile. Copied in the order the workers
     * hand over (a session is borrowed before its lock is asked for, asked for before it is
     * believed in), so a worker between two steps is found at one of them, not at neither.
     */
    public View view() {
        Map<Integer, String> names = Map.copyOf(this.names);
        Map<Integer, String> users = Map.copyOf(this.users);
        Map<String, Ask> asking = Map.copyOf(this.asking);
        Map<AdvisoryKey, Map<String, Belief>> beliefs = new HashMap<>();
        this.beliefs.forEach((key, of) -> beliefs.put(key, Map.copyOf(of)));
        return new View(names, users, beliefs, asking);
    }

    /** The run's sessions: read through ({@link #live}) or as of one moment ({@link #view}). */
    public static final class View {
        private final Map<Integer, String> names;
        private final Map<Integer, String> users;
        private final Map<AdvisoryKey, Map<String, Belief>> beliefs;
        private final Map<String, Ask> asking;

        private View(Map<Integer, String> names, Map<Integer, String> users,
                     Map<AdvisoryKey, Map<String, Belief>> beliefs, Map<String, Ask> asking) {
            this.names = names;
            this.users = users;
            this.beliefs = beliefs;
            this.asking = asking;
        }

        /** The worker using the session with backend {@code pid}, or null. */
        public String userOf(int pid) {
            return users.get(pid);
        }

        /**
         * Whether the lab keeps count of who believes they hold advisory lock {@code key} ({@link
         * PgSessions.Session#believes}): then a session holding it that no worker believes it holds is an
         * orphan, even while some worker borrows that session for something else.
         */
        public boolean tracked(AdvisoryKey key) {
            return beliefs.containsKey(key);
        }

        /** The workers that believe they hold advisory lock {@code key} in the session with backend {@code pid}, by name. */
        public List<Belief> believers(AdvisoryKey key, int pid) {
            Map<String, Belief> of = beliefs.get(key);
            return of == null ? List.of() : of.values().stream().filter(b -> b.pid() == pid)
                    .sorted(Comparator.comparing(Belief::worker)).toList();
        }

        /**
         * The worker with a lock call for {@code key} in flight on the session with backend {@code
         * pid}, or null: a lock that session was granted a moment ago is that worker's, though it
         * has not said so yet. Asked by session, not by who used the session last: a worker that
         * gave a session back and asks on another is not the one granted a lock in the first.
         */
        public String askerOf(AdvisoryKey key, int pid) {
            for (Map.Entry<String, Ask> ask : asking.entrySet()) {
                if (ask.getValue().pid() == pid && ask.getValue().key().equals(key)) {
                    return ask.getKey();
                }
            }
            return null;
        }

        /** The name of the run's session with backend {@code pid} ({@code client-3}, {@code pool-4711}), or {@code pid N}. */
        public String nameOf(int pid) {
            return names.getOrDefault(pid, "pid " + pid);
        }

        /** The backends the named workers use now, each with its worker. */
        public Map<Integer, String> usedBy(Collection<String> workers) {
            Map<Integer, String> used = new HashMap<>();
            users.forEach((pid, worker) -> {
                if (workers.contains(worker)) {
                    used.put(pid, worker);
                }
            });
            return used;
        }

        /** The backend pids of every session the run opened. */
        public Set<Integer> pids() {
            return Set.copyOf(names.keySet());
        }
    }
}
