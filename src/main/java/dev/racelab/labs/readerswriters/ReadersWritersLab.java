package dev.racelab.labs.readerswriters;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.LabProfile;
import dev.racelab.labs.support.LockPanelsView;
import dev.racelab.labs.support.RedisLab;

import java.util.List;

/**
 * Readers and writers: a document kept in Redis as two keys that a writer sets one after the
 * other, so a reader that reads while a writer writes can find them disagreeing. A monitor built
 * from the Redis constructs lets readers in together and writers in alone.
 *
 * <p>The last quarter of the clients (at least one) are writers, the rest readers: with six
 * clients, client-1 … client-5 read and client-6 writes. The article's monitor prefers readers:
 * a writer gets in only when no reader is left, which a steady stream of readers never allows.
 */
public final class ReadersWritersLab extends RedisLab {

    static final Gate BEFORE_REQUEST = new Gate("before-request",
            "before the client asks to read or to write (its time away from the document)");
    static final Gate AFTER_WAKE = new Gate("after-wake",
            "woken by a signal, before taking the monitor's mutex again: anyone may get in first here");
    static final Gate BETWEEN_READS = new Gate("between-reads",
            "a reader that has read the document's first part and not yet its second");
    static final Gate BETWEEN_WRITES = new Gate("between-writes",
            "a writer that has written the document's first part and not yet its second");

    static final Strategy READER_PREFERENCE = new Strategy("reader-preference", "Readers first (article)",
            "the article's monitor: readers get in whenever no writer is writing, so a steady stream of readers "
                    + "keeps a writer waiting for as long as it lasts", true);
    static final Strategy MESA_IF = new Strategy("mesa-if", "Readers first, if not while",
            "the article's monitor with 'if' where it needs 'while': a woken writer does not check again, and a "
                    + "reader that slipped in after the signal reads while it writes", true);
    static final Strategy WRITER_PREFERENCE = new Strategy("writer-preference", "Writers first",
            "a waiting writer holds back new readers (hardened constructs): writers no longer starve, readers "
                    + "can instead", false);
    static final Strategy FAIR = new Strategy("fair", "Arrival order",
            "everyone first passes a turnstile, a FIFO mutex; a writer keeps it while waiting for the readers "
                    + "inside to leave, so readers who came later queue behind it (hardened constructs)", false);

    public ReadersWritersLab(Backends backends) {
        super(backends, new LabProfile("readers-writers", "Readers and writers",
                "Readers share a Redis document, writers need it alone; the article's monitor starves the writers.",
                SERVICES, List.of(READER_PREFERENCE, MESA_IF, WRITER_PREFERENCE, FAIR),
                List.of(BEFORE_REQUEST, AFTER_WAKE, BETWEEN_READS, BETWEEN_WRITES),
                new LabProfile.Crew("client", 6, 2, MOST_WORKERS), 10));
    }

    /** How many of {@code workers} clients write: the last quarter, at least one. */
    static int writers(int workers) {
        return Math.max(1, workers / 4);
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return new ReadersWritersScenario(backends.redis(), setup);
    }

    /** The monitor's mutex: who is inside the monitor, who queues to get in. */
    @Override
    public LabView view(Run run) {
        return new LockPanelsView(run, List.of("monitor"));
    }
}
