package dev.racelab.classroom;

import dev.racelab.backend.Redis;
import dev.racelab.engine.Event;
import dev.racelab.engine.Run;
import dev.racelab.tasks.Background;
import redis.clients.jedis.exceptions.JedisException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A participant's workers' events on their way to the host: every {@link #EVERY_MILLIS} the events
 * its run recorded since, those of its workers' lanes that travel ({@link EventBatch#TRAVELS}), from
 * the instant the class went on, posted as one batch on the class's event stream. Closing sends
 * what is left.
 */
final class MemberFeed implements AutoCloseable {

    /** A projector's timeline lags a frame or two anyway; forty participants' feeds at this pace cost the host little. */
    static final long EVERY_MILLIS = 50;
    /** The most events in one entry: a batch stays well under a megabyte. */
    private static final int PER_BATCH = 2_000;

    private final Run run;
    private final ClassChannel channel;
    private final String member;
    private final String classRun;
    private final ClassClock clock;
    private final Map<Integer, Integer> workerOfActor = new HashMap<>();
    private final Thread thread;
    private volatile long from = Long.MAX_VALUE;
    private volatile boolean stopped;
    private long next;
    private boolean finished;

    private MemberFeed(Run run, ClassChannel channel, String member, String classRun, ClassClock clock) {
        this.classRun = classRun;
        this.run = run;
        this.channel = channel;
        this.member = member;
        this.clock = clock;
        for (int i = 0; i < run.spec().workers(); i++) {
            workerOfActor.put(run.workerActor(i), i);
        }
        this.thread = Background.threads("class-feed").newThread(this::pump);
    }

    static MemberFeed start(Run run, Redis redis, ClassCode code, String member, String classRun, ClassClock clock) {
        MemberFeed feed = new MemberFeed(run, new ClassChannel(redis.open("class-feed", 5_000), code), member, classRun,
                clock);
        feed.thread.start();
        return feed;
    }

    /** Events from {@code nanos} on (this machine's clock) travel; those before are the preparing. */
    void from(long nanos) {
        from = nanos;
    }

    boolean finished() {
        return finished;
    }

    private void pump() {
        while (!stopped) {
            try {
                Thread.sleep(EVERY_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            send();
        }
    }

    /** Sends what the run recorded since the last batch. */
    private synchronized void send() {
        List<Event> batch = new ArrayList<>();
        List<Integer> workers = new ArrayList<>();
        while (true) {
            Event e = run.recorder().get(next);
            if (e == null) {
                break;
            }
            next++;
            Integer worker = workerOfActor.get(e.actor());
            if (worker != null && e.nanos() >= from && EventBatch.TRAVELS.contains(e.kind())) {
                batch.add(e);
                workers.add(worker);
                if (batch.size() == PER_BATCH) {
                    post(batch, workers);
                    batch.clear();
                    workers.clear();
                }
            }
        }
        if (!batch.isEmpty()) {
            post(batch, workers);
        }
    }

    private void post(List<Event> batch, List<Integer> workers) {
        try {
            channel.post(ClassChannel.EVENTS, Map.of("member", member, "run", classRun,
                    "e", EventBatch.encode(batch, workers.stream().mapToInt(Integer::intValue).toArray(), clock)));
        } catch (JedisException e) {
            // The class's Redis is out of reach: the host sees this machine gone.
        }
    }

    /** Sends what is left and stops. */
    @Override
    public synchronized void close() {
        if (finished) {
            return;
        }
        stopped = true;
        thread.interrupt();
        send();
        finished = true;
        channel.close();
    }
}
