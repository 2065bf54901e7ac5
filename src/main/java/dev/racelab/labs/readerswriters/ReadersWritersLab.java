package dev.racelab.labs.readerswriters;

import dev.racelab.backend.Backends;
import dev.racelab.engine.KeyFigure;
import dev.racelab.engine.Gate;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.LockPanelsView;
import dev.racelab.labs.support.ProfiledLab;
import dev.racelab.labs.support.RedisFixture;

import java.util.List;
import java.util.Set;

/**
 * Readers and writers: a document kept in Redis as two keys that a writer sets one after the
 * other, so a reader that reads while a writer writes can find them disagreeing. A monitor built
 * from the Redis constructs lets readers in together and writers in alone.
 *
 * <p>The last quarter of the clients (at least one) are writers, the rest readers: with six
 * clients, client-1 … client-5 read and client-6 writes. The article's monitor prefers readers:
 * a writer gets in only when no reader is left, which a steady stream of readers never allows.
 */
public final class ReadersWritersLab extends ProfiledLab<ReadersWritersStrategy> {

    static final Gate BEFORE_REQUEST = new Gate("before-request",
            "before the client asks to read or to write (its time away from the document)");
    static final Gate AFTER_WAKE = new Gate("after-wake",
            "woken by a signal, before taking the monitor's mutex again: anyone may get in first here");
    static final Gate BETWEEN_READS = new Gate("between-reads",
            "a reader that has read the document's first part and not yet its second");
    static final Gate BETWEEN_WRITES = new Gate("between-writes",
            "a writer that has written the document's first part and not yet its second");

    private final Backends backends;

    public ReadersWritersLab(Backends backends) {
        super(ReadersWritersStrategy.class, new LabProfile("readers-writers", "Readers and writers",
                "Readers share a Redis document, writers need it alone; the article's monitor starves the writers.",
                Set.of(Service.REDIS), List.of(ReadersWritersStrategy.values()),
                List.of(BEFORE_REQUEST, AFTER_WAKE, BETWEEN_READS, BETWEEN_WRITES),
                new LabProfile.Crew("client", 6, 2, RedisFixture.MOST_WORKERS), 10));
        this.backends = backends;
    }

    /** How many of {@code workers} clients write: the last quarter, at least one. */
    static int writers(int workers) {
        return Math.max(1, workers / 4);
    }

    /**
     * Four each: a writer is starved when more than two reads per reader go ahead of it while it
     * waits, so the readers must come back to the document more than twice.
     */
    @Override
    public int exploredOps() {
        return 4;
    }

    @Override
    protected Scenario open(ReadersWritersStrategy strategy, RunSetup setup) throws Exception {
        return new ReadersWritersScenario(backends.redis(), strategy, setup);
    }

    /** The monitor's mutex: who is inside the monitor, who queues to get in. */
    @Override
    protected LabView view(ReadersWritersStrategy strategy, RunHeader header) {
        return new LockPanelsView(header, List.of("monitor"),
                "what Redis holds for it: see the server lane");
    }

    @Override
    public KeyFigure keyFigure() {
        return new KeyFigure("longestWriterWaitMs", "longest writer wait, ms");
    }
}
