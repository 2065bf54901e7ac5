package dev.racelab.labs.redisfailover;

import dev.racelab.engine.Event;
import dev.racelab.engine.Ink;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The redis-failover lab's state, as the servers and the clients each tell it: which server the
 * Sentinels name primary and what each server says it is, what the relays hold back; which clients
 * believe they hold the lock (two at once in the race's colour), and from which server; the faults
 * inflicted; what became of the writes.
 */
final class RedisFailoverView implements LabView {

    private static final String SENTINELS_NAMING = "Sentinels naming ";

    private final RunTracker tracker;
    /** Each server lane's values as last reported, by lane name, then value name. */
    private final Map<String, Map<String, Long>> lanes = new HashMap<>();
    /** Per client actor: the lock it believes it holds, in words ("the lock on redis-a"). */
    private final Map<Integer, String> believes = new TreeMap<>();
    private final Map<Integer, Long> tokens = new HashMap<>();
    private final List<String> faults = new ArrayList<>();
    private long accepted;
    private long rejected;
    private long stale;
    private long duplicates;
    private long twoHolders;
    private long changes;

    RedisFailoverView(RunHeader header) {
        this.tracker = new RunTracker(header);
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
        switch (event.kind()) {
            case SERVER_VALUE -> {
                Map<String, Long> values = lanes.computeIfAbsent(tracker.name(event.actor()), k -> new LinkedHashMap<>());
                if (event.value() == ServerObserver.GONE) {
                    values.remove(event.subject());
                } else {
                    values.put(event.subject(), event.value());
                }
            }
            case LOCK_ACQUIRED -> believes.put(event.actor(), event.subject());
            case LOCK_RELEASED -> believes.remove(event.actor());
            case TOKEN -> tokens.put(event.actor(), event.value());
            case FAULT -> faults.add(tracker.name(event.actor()) + ": " + event.subject());
            case WRITE_ACCEPTED -> accepted++;
            case WRITE_REJECTED -> rejected++;
            case TWO_HOLDERS -> twoHolders++;
            case VIOLATION -> {
                if (RedisFailoverScenario.STALE.equals(event.subject())) {
                    stale++;
                } else if (RedisFailoverScenario.DUPLICATE.equals(event.subject())) {
                    duplicates++;
                }
            }
            default -> {
                return;
            }
        }
        changes++;
    }

    @Override
    public void concluded(Outcome outcome) {
        tracker.concluded(outcome);
        changes++;
    }

    @Override
    public long version() {
        return tracker.version() + changes;
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        List<Panel.Value> servers = new ArrayList<>();
        for (String lane : List.of(TopologyObserver.SENTINELS, "redis-a", "redis-b", TopologyObserver.RELAYS)) {
            servers.add(new Panel.Value(lane, said(lane), Ink.TEXT));
        }
        panels.add(new Panel.Values("Servers, as they say", servers));
        List<Panel.Item> holders = new ArrayList<>();
        believes.forEach((actor, lock) -> holders.add(new Panel.Item(tracker.name(actor) + " · " + lock
                + (tokens.containsKey(actor) ? " · token " + tokens.get(actor) : ""),
                believes.size() > 1 ? Ink.RACE : Ink.HOLDING)));
        panels.add(new Panel.Items("Who believes it holds the lock", holders, "nobody"));
        List<Panel.Item> inflicted = new ArrayList<>();
        faults.forEach(f -> inflicted.add(new Panel.Item(f, Ink.HIGHLIGHT)));
        panels.add(new Panel.Items("Faults", inflicted, "none yet"));
        panels.add(new Panel.Values("The record (PostgreSQL)", List.of(
                new Panel.Value("writes accepted", String.valueOf(accepted), Ink.TEXT),
                new Panel.Value("writes rejected", String.valueOf(rejected), Ink.TEXT),
                new Panel.Value("two holders at once", String.valueOf(twoHolders), twoHolders > 0 ? Ink.WAITING : Ink.TEXT),
                new Panel.Value(RedisFailoverScenario.DUPLICATE, String.valueOf(duplicates),
                        duplicates > 0 ? Ink.RACE : Ink.SAFE),
                new Panel.Value(RedisFailoverScenario.STALE, String.valueOf(stale), stale > 0 ? Ink.RACE : Ink.SAFE))));
        return panels;
    }

    /** What a server lane says now, in words: "down", "primary, offset 1162", "not read". */
    private String said(String lane) {
        Map<String, Long> values = lanes.get(lane);
        if (values == null || values.isEmpty()) {
            return "not read";
        }
        List<String> words = new ArrayList<>();
        values.forEach((name, value) -> words.add(value == ServerObserver.NAME_ONLY ? name
                : name.startsWith(SENTINELS_NAMING) ? name.substring(SENTINELS_NAMING.length()) + " (" + value + " of 3)"
                : name.equals("bytes held") ? value + " bytes held" : name + " " + value));
        return String.join(" · ", words);
    }
}
