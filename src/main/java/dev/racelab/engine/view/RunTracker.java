package dev.racelab.engine.view;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.Run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Follows a run's events and keeps what most labs want to show: each worker's state and last
 * values, who holds and who waits for each lock (as the workers report it and as the server
 * reports it), the tokens handed out, the server's own values, and the violations so far.
 *
 * <p>Labs build their {@link LabView} on one of these; it is owned by the view's thread.
 */
public class RunTracker {

    /** What is known of one worker. */
    public static final class WorkerInfo {
        private ActorState state = ActorState.IDLE;
        private String subject;
        private long token = -1;
        private long lastRead = Long.MIN_VALUE;
        private long lastWrite = Long.MIN_VALUE;
        private long opsDone;
        private String serverHolds;
        private String serverWaits;

        public ActorState state() {
            return state;
        }

        /** What the current state concerns: a gate, a lock. */
        public String subject() {
            return subject;
        }

        /** The last token it got, or -1. */
        public long token() {
            return token;
        }

        public boolean hasRead() {
            return lastRead != Long.MIN_VALUE;
        }

        public long lastRead() {
            return lastRead;
        }

        public boolean hasWritten() {
            return lastWrite != Long.MIN_VALUE;
        }

        public long lastWrite() {
            return lastWrite;
        }

        public long opsDone() {
            return opsDone;
        }

        /** What the server says this worker's session holds, or null. */
        public String serverHolds() {
            return serverHolds;
        }

        /** What the server says this worker's session waits for, or null. */
        public String serverWaits() {
            return serverWaits;
        }
    }

    private final Run run;
    private final Map<Integer, WorkerInfo> workers = new TreeMap<>();
    private final Map<String, Integer> holders = new LinkedHashMap<>();
    private final Map<String, LinkedHashSet<Integer>> queues = new HashMap<>();
    private final Map<String, Long> serverValues = new LinkedHashMap<>();
    private final LinkedHashSet<Integer> serverWaiting = new LinkedHashSet<>();
    private final Map<String, Long> violations = new LinkedHashMap<>();
    private long maxToken = -1;
    private int maxTokenHolder = -1;
    private long tokens;
    private long accepted;
    private long rejected;
    private long version;

    public RunTracker(Run run) {
        this.run = run;
    }

    public Run run() {
        return run;
    }

    /** Takes one event; returns whether anything this tracker shows changed. */
    public boolean accept(Event e) {
        WorkerInfo w = e.actor() == Run.RUN_ACTOR ? null : worker(e.actor());
        boolean changed = true;
        switch (e.kind()) {
            case STATE -> {
                w.state = e.state();
                w.subject = e.subject();
            }
            case OP_END -> w.opsDone++;
            case READ -> w.lastRead = e.value();
            case WRITE -> w.lastWrite = e.value();
            case TOKEN -> {
                w.token = e.value();
                tokens++;
                if (e.value() > maxToken) {
                    maxToken = e.value();
                    maxTokenHolder = e.actor();
                }
            }
            case WRITE_ACCEPTED -> accepted++;
            case WRITE_REJECTED -> rejected++;
            case LOCK_REQUESTED -> queues.computeIfAbsent(e.subject(), k -> new LinkedHashSet<>()).add(e.actor());
            case LOCK_ACQUIRED -> {
                queue(e.subject()).remove(e.actor());
                holders.put(e.subject(), e.actor());
            }
            case LOCK_RELEASED -> holders.remove(e.subject(), e.actor());
            case VIOLATION -> violations.merge(e.subject(), e.value(), Long::sum);
            case SERVER_VALUE -> changed = !Long.valueOf(e.value()).equals(serverValues.put(e.subject(), e.value()));
            case SERVER_HOLDS -> worker((int) e.value()).serverHolds = e.subject();
            case SERVER_WAITS -> {
                worker((int) e.value()).serverWaits = e.subject();
                if (e.subject() == null) {
                    serverWaiting.remove((int) e.value());
                } else {
                    serverWaiting.add((int) e.value());
                }
            }
            default -> changed = false;
        }
        if (changed) {
            version++;
        }
        return changed;
    }

    private LinkedHashSet<Integer> queue(String lock) {
        return queues.computeIfAbsent(lock, k -> new LinkedHashSet<>());
    }

    /** Changes whenever something this tracker shows changes. */
    public long version() {
        return version;
    }

    /** What is known of the worker with actor id {@code actor}. */
    public WorkerInfo worker(int actor) {
        return workers.computeIfAbsent(actor, a -> new WorkerInfo());
    }

    /** Actor ids of the run's workers, in order. */
    public List<Integer> workerActors() {
        List<Integer> ids = new ArrayList<>();
        for (Actor actor : run.actors()) {
            if (actor.kind() == Actor.Kind.WORKER) {
                ids.add(actor.id());
            }
        }
        return ids;
    }

    public String name(int actor) {
        List<Actor> actors = run.actors();
        return actor >= 0 && actor < actors.size() ? actors.get(actor).name() : "?";
    }

    /** Who holds {@code lock}, as the workers report it, or -1. */
    public int holder(String lock) {
        return holders.getOrDefault(lock, -1);
    }

    /** Who waits for {@code lock}, in the order they asked. */
    public Set<Integer> waiting(String lock) {
        return queue(lock);
    }

    /** The server's own value of {@code subject}, or null if it has not reported one. */
    public Long serverValue(String subject) {
        return serverValues.get(subject);
    }

    /** Workers the server reports as waiting, in the order they started waiting. */
    public Set<Integer> serverWaiting() {
        return serverWaiting;
    }

    public long maxToken() {
        return maxToken;
    }

    /** Actor id of the worker holding the highest token, or -1. */
    public int maxTokenHolder() {
        return maxTokenHolder;
    }

    public long tokensIssued() {
        return tokens;
    }

    public long accepted() {
        return accepted;
    }

    public long rejected() {
        return rejected;
    }

    public Map<String, Long> violations() {
        return violations;
    }

    /** Counts of workers per state, in state order, leaving out states nobody is in. */
    public Map<ActorState, Integer> stateCounts() {
        Map<ActorState, Integer> counts = new TreeMap<>();
        for (int actor : workerActors()) {
            counts.merge(worker(actor).state(), 1, Integer::sum);
        }
        return counts;
    }

    // Panels most labs show, built from what is tracked.

    /** "Workers": how many are in each state. */
    public Panel workersPanel() {
        List<Panel.Value> rows = new ArrayList<>();
        stateCounts().forEach((state, count) -> rows.add(new Panel.Value(state.label(), String.valueOf(count),
                Ink.of(state))));
        return new Panel.Values("Workers", rows);
    }

    /** Holder and queue of {@code lock} as the workers see them. */
    public Panel lockPanel(String title, String lock) {
        List<Panel.Item> items = new ArrayList<>();
        int holder = holder(lock);
        if (holder >= 0) {
            items.add(new Panel.Item("holds: " + name(holder), Ink.HOLDING));
        }
        int place = 1;
        for (int actor : waiting(lock)) {
            items.add(new Panel.Item(place++ + ". " + name(actor) + " waits", Ink.WAITING));
        }
        return new Panel.Items(title, items, "free, nobody waiting");
    }

    /** What the server's own lock table says: holders, then waiters in order. */
    public Panel serverLocksPanel(String title) {
        List<Panel.Item> items = new ArrayList<>();
        for (int actor : workerActors()) {
            String holds = worker(actor).serverHolds();
            if (holds != null) {
                items.add(new Panel.Item(name(actor) + " holds " + holds, Ink.HOLDING));
            }
        }
        int place = 1;
        for (int actor : serverWaiting) {
            items.add(new Panel.Item(place++ + ". " + name(actor) + " waits " + worker(actor).serverWaits(),
                    Ink.WAITING));
        }
        return new Panel.Items(title, items, "no lock held or awaited");
    }

    /** Each worker's last token, highest marked. */
    public Panel tokensPanel(String title) {
        List<List<String>> rows = new ArrayList<>();
        for (int actor : workerActors()) {
            WorkerInfo w = worker(actor);
            if (w.token() >= 0) {
                rows.add(List.of(name(actor), String.valueOf(w.token()), w.state().label()));
            }
        }
        return new Panel.Table(title, List.of("worker", "token", "state"), rows);
    }
}
