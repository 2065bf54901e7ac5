package dev.racelab.engine.view;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Ink;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.ServerObserver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Follows a run's record, event by event, and keeps what most views want to show: the actors,
 * the run's phase and progress, each worker's state and last values, who holds and who waits for
 * each lock (as the workers report it and as the server reports it), the tokens handed out, the
 * server's own values, and the violations so far.
 *
 * <p>It reads nothing but the {@link RunHeader} and the events, so it shows the same live and
 * when a recording is opened with no server. Labs build their {@link LabView} on one of these;
 * the window keeps one for the banner and the gates table. Owned by the thread that feeds it.
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

        /** The gate the worker is halted at now, or null. */
        public String haltedAt() {
            return state == ActorState.AT_GATE ? subject : null;
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

    private final RunHeader header;
    private final List<Actor> actors = new ArrayList<>();
    private final List<Integer> workerActors = new ArrayList<>();
    private final Map<Integer, WorkerInfo> workers = new TreeMap<>();
    private final Map<String, Integer> holders = new LinkedHashMap<>();
    private final Map<String, LinkedHashSet<Integer>> queues = new HashMap<>();
    private final Map<String, Long> serverValues = new LinkedHashMap<>();
    /** Per server value, the verdict's metric that measured it at the end ({@link #finalValue}). */
    private final Map<String, String> finalMetrics = new HashMap<>();
    /** The verdict's metrics, once the view was told the run's outcome. */
    private Map<String, Number> concluded = Map.of();
    private final LinkedHashSet<Integer> serverWaiting = new LinkedHashSet<>();
    private final Map<String, Long> violations = new LinkedHashMap<>();
    private RunPhase phase = RunPhase.READY;
    private String serverOrphans;
    private long opsDone;
    private long maxToken = -1;
    private int maxTokenHolder = -1;
    private long tokens;
    private long accepted;
    private long rejected;
    private long version;

    public RunTracker(RunHeader header) {
        this.header = header;
    }

    public RunHeader header() {
        return header;
    }

    /** Takes one event; returns whether anything this tracker shows changed. */
    public boolean accept(Event e) {
        WorkerInfo w = e.kind() == EventKind.ACTOR || e.actor() == Actor.RUN_ID ? null : worker(e.actor());
        boolean changed = true;
        switch (e.kind()) {
            case ACTOR -> addActor(e);
            case RUN_PREPARING -> phase = RunPhase.PREPARING;
            case RUN_STARTED -> phase = phase == RunPhase.PAUSED ? RunPhase.PAUSED : RunPhase.RUNNING;
            case RUN_PAUSED -> phase = e.value() == 1 ? RunPhase.PAUSED : RunPhase.RUNNING;
            case RUN_STOPPING -> phase = RunPhase.STOPPING;
            case RUN_ENDED -> phase = RunPhase.ENDED;
            case STATE -> {
                w.state = e.state();
                w.subject = e.subject();
            }
            case OP_END -> {
                w.opsDone++;
                opsDone++;
            }
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
            case LOCK_REQUESTED -> queue(e.subject()).add(e.actor());
            case LOCK_ACQUIRED -> {
                queue(e.subject()).remove(e.actor());
                holders.put(e.subject(), e.actor());
            }
            case LOCK_RELEASED -> holders.remove(e.subject(), e.actor());
            case VIOLATION -> violations.merge(e.subject(), e.value(), Long::sum);
            case SERVER_VALUE -> changed = e.value() == ServerObserver.GONE ? serverValues.remove(e.subject()) != null
                    : !Long.valueOf(e.value()).equals(serverValues.put(e.subject(), e.value()));
            case SERVER_HOLDS -> worker((int) e.value()).serverHolds = e.subject();
            case SERVER_WAITS -> {
                worker((int) e.value()).serverWaits = e.subject();
                if (e.subject() == null) {
                    serverWaiting.remove((int) e.value());
                } else {
                    serverWaiting.add((int) e.value());
                }
            }
            case SERVER_ORPHANS -> serverOrphans = e.subject();
            default -> changed = false;
        }
        if (changed) {
            version++;
        }
        return changed;
    }

    private void addActor(Event e) {
        Actor actor = new Actor(e.actor(), e.subject(), Actor.Kind.values()[(int) e.value()]);
        while (actors.size() <= actor.id()) {
            actors.add(null);
        }
        actors.set(actor.id(), actor);
        if (actor.kind() == Actor.Kind.WORKER) {
            workerActors.add(actor.id());
        }
    }

    private LinkedHashSet<Integer> queue(String lock) {
        return queues.computeIfAbsent(lock, k -> new LinkedHashSet<>());
    }

    /** Changes whenever something this tracker shows changes. */
    public long version() {
        return version;
    }

    /** Where the run is, as its record says. */
    public RunPhase phase() {
        return phase;
    }

    /** Operations finished so far, summed over workers. */
    public long opsDone() {
        return opsDone;
    }

    /** Operations the run is to do: workers × operations each. */
    public long opsPlanned() {
        return (long) header.spec().workers() * header.spec().ops();
    }

    /** What is known of the worker with actor id {@code actor}. */
    public WorkerInfo worker(int actor) {
        return workers.computeIfAbsent(actor, a -> new WorkerInfo());
    }

    /** The worker with index {@code index} (0-based), or null before the record announced it. */
    public WorkerInfo workerByIndex(int index) {
        return index < workerActors.size() ? worker(workerActors.get(index)) : null;
    }

    /** Actor ids of the run's workers, in order. */
    public List<Integer> workerActors() {
        return workerActors;
    }

    /** Every actor announced so far, by id. */
    public List<Actor> actors() {
        return actors.stream().filter(a -> a != null).toList();
    }

    public String name(int actor) {
        Actor known = actor >= 0 && actor < actors.size() ? actors.get(actor) : null;
        return known == null ? "?" : known.name();
    }

    /** Who holds {@code lock}, as the workers report it, or -1. */
    public int holder(String lock) {
        return holders.getOrDefault(lock, -1);
    }

    /** Who waits for {@code lock}, in the order they asked. */
    public Set<Integer> waiting(String lock) {
        return queue(lock);
    }

    /**
     * The server's own value of {@code subject}, as last observed; for a run that did not observe
     * it, once ended, the value its verdict measured at the end (declared with {@link #finalValue});
     * else null.
     */
    public Long serverValue(String subject) {
        Long seen = serverValues.get(subject);
        if (seen != null) {
            return seen;
        }
        Number known = concluded.get(finalMetrics.getOrDefault(subject, ""));
        return known == null ? null : known.longValue();
    }

    /**
     * Declares that the verdict's metric {@code metric} is server value {@code subject} at the
     * run's end: a run recorded without observing (before the command line observed for a
     * recording) still knew it, and a picture shows it rather than "—".
     */
    public void finalValue(String subject, String metric) {
        finalMetrics.put(subject, metric);
    }

    /** The run ended with {@code outcome}: its metrics stand in for server values never observed. */
    public void concluded(Outcome outcome) {
        concluded = outcome.metrics();
        version++;
    }

    /** Workers the server reports as waiting, in the order they started waiting. */
    public Set<Integer> serverWaiting() {
        return serverWaiting;
    }

    /** Locks the server reports held by sessions no worker owns, in words, or null. */
    public String serverOrphans() {
        return serverOrphans;
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
        for (int actor : workerActors) {
            counts.merge(worker(actor).state(), 1, Integer::sum);
        }
        return counts;
    }

    // Panels most labs show, built from what is tracked.

    /** "Workers": how many are in each state. */
    public Panel workersPanel() {
        List<Panel.Value> rows = new ArrayList<>();
        stateCounts().forEach((state, count) -> rows.add(new Panel.Value(state.label(), String.valueOf(count),
                state.ink())));
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

    /** What the server's own lock table says: holders, locks nobody owns, then waiters in order. */
    public Panel serverLocksPanel(String title) {
        List<Panel.Item> items = new ArrayList<>();
        for (int actor : workerActors) {
            String holds = worker(actor).serverHolds();
            if (holds != null) {
                items.add(new Panel.Item(name(actor) + " holds " + holds, Ink.HOLDING));
            }
        }
        if (serverOrphans != null) {
            items.add(new Panel.Item(serverOrphans, Ink.RACE));
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
        for (int actor : workerActors) {
            WorkerInfo w = worker(actor);
            if (w.token() >= 0) {
                rows.add(List.of(name(actor), String.valueOf(w.token()), w.state().label()));
            }
        }
        return new Panel.Table(title, List.of("worker", "token", "state"), rows);
    }
}
