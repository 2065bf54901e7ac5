package dev.racelab.classroom;

import dev.racelab.backend.Redis;
import dev.racelab.tasks.Background;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.resps.StreamEntry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The host's end of a class's run: it hands each participant's workers' events to the lanes that
 * stand for them ({@link ProxyWorker}), hears who is ready and who is done, and watches who is
 * still there (a participant whose alive key lapsed has left). One thread reads; the lanes take.
 */
final class ClassHub implements AutoCloseable {

    /** How often the hub asks who is still there. */
    private static final long WATCH_MILLIS = 250;
    /** The most events waiting for one lane: a participant that floods the host is counted out. */
    private static final int INBOX = 200_000;
    /** The longest batch, or reason, the hub reads: a RaceLab's are far shorter. */
    private static final int LONGEST_BATCH = 1 << 20;
    private static final int LONGEST_WHY = 300;
    private static final int MOST_HEARD = 100_000;

    /** The pump's: it reads. */
    private final ClassChannel channel;
    /** The run's: it tells. */
    private final ClassChannel telling;
    private final ClassClock clock;
    private final List<ClassPlan.Seat> seats;
    private final Map<String, ClassPlan.Seat> byMember = new HashMap<>();
    private final Map<String, List<LinkedBlockingQueue<EventBatch.Relayed>>> inboxes = new HashMap<>();
    private final Set<String> ready = ConcurrentHashMap.newKeySet();
    private final Set<String> done = ConcurrentHashMap.newKeySet();
    private final Set<String> left = ConcurrentHashMap.newKeySet();
    /** Why a participant's workers could not begin, by participant. */
    private final Map<String, String> failed = new ConcurrentHashMap<>();
    private final List<Heard> heard = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;
    private volatile boolean stopped;
    /** The run whose entries count: set before its plan goes out; every other run's are left out. */
    private volatile String run;
    private StreamEntryID rollAfter;
    private StreamEntryID eventsAfter;

    /** The seats of the run this hub serves. */
    List<ClassPlan.Seat> seats() {
        return seats;
    }

    /**
     * A hub for one run of the class with these {@code seats}: it reads what is posted from now on
     * (an earlier run's entries are not this run's).
     */
    ClassHub(Redis redis, ClassCode code, List<ClassPlan.Seat> seats) {
        this(redis, code, seats, null);
    }

    /**
     * A hub that only reads, with {@code watcherClock} (null: the host's own hub, which tells): a
     * participant's copy of the class's run for its window ({@link ClassMirror}), which never tells
     * anyone anything.
     */
    ClassHub(Redis redis, ClassCode code, List<ClassPlan.Seat> seats, ClassClock watcherClock) {
        this.channel = new ClassChannel(redis.open("class-hub", 5_000), code);
        this.telling = watcherClock == null ? new ClassChannel(redis.open("class-tell", 5_000), code) : null;
        this.clock = watcherClock == null ? telling.clock() : watcherClock;
        this.seats = List.copyOf(seats);
        this.rollAfter = channel.last(ClassChannel.ROLL);
        this.eventsAfter = channel.last(ClassChannel.EVENTS);
        for (ClassPlan.Seat seat : seats) {
            byMember.put(seat.member(), seat);
            List<LinkedBlockingQueue<EventBatch.Relayed>> boxes = new ArrayList<>();
            for (int w = 0; w < seat.workers(); w++) {
                boxes.add(new LinkedBlockingQueue<>(INBOX));
            }
            inboxes.put(seat.member(), boxes);
        }
        this.thread = Background.threads("class-hub").newThread(this::pump);
        this.thread.start();
    }

    /** The run whose entries count from now on: its id, as its plan gives it. */
    void run(String id) {
        this.run = id;
    }

    ClassClock clock() {
        return clock;
    }

    /** How long a word of the host's took to reach a participant, as it said on hearing it. */
    record Heard(String member, String what, long nanos) {
    }

    /**
     * Posts {@code fields} on the control stream, for every participant, stamped with the server's
     * time it was sent: each participant says how long it took to hear it ({@link #heard}).
     */
    synchronized void tell(Map<String, String> fields) {
        if (telling == null) {
            throw new IllegalStateException("a participant's copy of the class's run tells nobody anything");
        }
        Map<String, String> stamped = new java.util.LinkedHashMap<>(fields);
        stamped.put("sent", String.valueOf(clock.serverNow()));
        telling.post(ClassChannel.CONTROL, stamped);
    }

    /** What the participants said of how long the host's words took to reach them, so far. */
    List<Heard> heard() {
        synchronized (heard) {
            return List.copyOf(heard);
        }
    }

    /** The next event of {@code member}'s worker {@code worker}, waiting up to {@code millis}; null if none came. */
    EventBatch.Relayed next(String member, int worker, long millis) throws InterruptedException {
        return inboxes.get(member).get(worker).poll(millis, TimeUnit.MILLISECONDS);
    }

    boolean ready(String member) {
        return ready.contains(member);
    }

    /** Whether {@code member} said its run ended: what it sent is all there will be. */
    boolean done(String member) {
        return done.contains(member);
    }

    /** Whether {@code member} left: its machine stopped saying it is there. */
    boolean left(String member) {
        return left.contains(member);
    }

    /** Why {@code member}'s workers could not begin, or null. */
    String failure(String member) {
        return failed.get(member);
    }

    /** Counts {@code member} out from now: it was not ready in time. */
    void leaveOut(String member) {
        left.add(member);
    }

    private void pump() {
        long watched = 0;
        while (!stopped) {
            try {
                for (StreamEntry entry : channel.read(ClassChannel.EVENTS, eventsAfter, 20, 500)) {
                    eventsAfter = entry.getID();
                    deliver(entry.getFields());
                }
                for (StreamEntry entry : channel.read(ClassChannel.ROLL, rollAfter, 0, 500)) {
                    rollAfter = entry.getID();
                    try {
                        roll(entry.getFields());
                    } catch (RuntimeException notOne) {
                        // Not a participant's RaceLab's word: left out.
                    }
                }
                // A participant's copy follows the host's word of who is out, not the alive keys itself.
                if (telling != null && System.nanoTime() - watched > TimeUnit.MILLISECONDS.toNanos(WATCH_MILLIS)) {
                    watched = System.nanoTime();
                    watch();
                }
            } catch (JedisException e) {
                if (stopped) {
                    return;
                }
                try {
                    Thread.sleep(WATCH_MILLIS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** One word of a participant's, of this run and from one of its seats; any other is left out. */
    private void roll(Map<String, String> f) {
        String member = f.get("member");
        if (member == null || !byMember.containsKey(member) || run == null || !run.equals(f.get("run"))) {
            return;
        }
        switch (f.getOrDefault("type", "")) {
            case "ready" -> ready.add(member);
            case "heard" -> {
                if (heard.size() < MOST_HEARD) {
                    heard.add(new Heard(member, String.valueOf(f.get("what")), Long.parseLong(f.get("nanos"))));
                }
            }
            case "failed" -> {
                String why = String.valueOf(f.get("why"));
                failed.put(member, why.length() > LONGEST_WHY ? why.substring(0, LONGEST_WHY) + "…" : why);
                left.add(member);
            }
            case "done" -> {
                // Its events were all posted before it said so: all read before it counts as done.
                drainEvents();
                done.add(member);
            }
            default -> {
                // A word of a newer RaceLab's: nothing this one does with it.
            }
        }
    }

    private void drainEvents() {
        List<StreamEntry> entries;
        do {
            entries = channel.read(ClassChannel.EVENTS, eventsAfter, 0, 500);
            for (StreamEntry entry : entries) {
                eventsAfter = entry.getID();
                deliver(entry.getFields());
            }
        } while (!entries.isEmpty());
    }

    private void deliver(Map<String, String> fields) {
        ClassPlan.Seat seat = byMember.get(fields.get("member"));
        String batch = fields.get("e");
        if (seat == null || run == null || !run.equals(fields.get("run")) || batch == null
                || batch.length() > LONGEST_BATCH || left.contains(seat.member())) {
            return;
        }
        for (EventBatch.Relayed e : EventBatch.decode(batch, seat.workers())) {
            if (!inboxes.get(seat.member()).get(e.worker()).offer(e)) {
                // More than a lane can take: this participant is counted out, not the host's memory.
                failed.put(seat.member(), "it sent more events than the host takes");
                left.add(seat.member());
                return;
            }
        }
    }

    private void watch() {
        List<String> members = seats.stream().map(ClassPlan.Seat::member).toList();
        List<Boolean> alive = channel.alive(members);
        if (alive.contains(false)) {
            // What a machine posted before it went is all read before it counts as gone.
            drainEvents();
        }
        for (int i = 0; i < members.size(); i++) {
            if (!alive.get(i) && !done.contains(members.get(i)) && left.add(members.get(i))) {
                // Gone, or cut off: if it is still there, it stops rather than write what nobody counts.
                tell(Map.of("type", "out", "member", members.get(i)));
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        channel.close();
        if (telling != null) {
            telling.close();
        }
    }
}
