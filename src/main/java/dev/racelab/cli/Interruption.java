package dev.racelab.cli;

import dev.racelab.backend.Backends;
import dev.racelab.files.PartialFile;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a signal (Ctrl-C, SIGTERM) does to a command that runs labs: the run in progress is
 * stopped and, as the command's own thread ends it, recorded, summed up and printed; a server
 * still starting is called off (it stops what it started) and the command sums up no run; no run or
 * server starts after the signal; then the servers stop.
 *
 * <p>The JVM runs its shutdown hooks while the command's thread still runs, and ends when the
 * hooks end. So the hook stops the run, waits (at most {@link #GRACE_SECONDS}) for the command to
 * finish its recording and summary, and only then removes any temporary file left unfinished and
 * stops the servers: a run needs its servers to be stopped cleanly and judged.
 */
final class Interruption implements AutoCloseable {

    /** How long a signalled command may take to stop its run and write what it has. */
    static final long GRACE_SECONDS = 20;

    private final Backends backends;
    private final Thread hook;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean signalled;
    /** Stops what runs now: a lab's run, or a spec's. */
    private volatile Runnable current;

    Interruption(Backends backends) {
        this.backends = backends;
        this.hook = new Thread(this::signal, "racelab-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether a signal came: the command starts nothing more. */
    boolean signalled() {
        return signalled;
    }

    /** What stops the work in progress now (a batch of runs, an isolation spec's run); a signal calls it (also one that came just before). */
    void stopping(Runnable stop) {
        current = stop;
        if (signalled) {
            stop.run();
        }
    }

    private void signal() {
        signalled = true;
        // A server still starting is called off: it stops what it started, and the command,
        // which waited for it, sums up what there was (no run) at once.
        backends.stopStarting();
        Runnable stop = current;
        if (stop != null) {
            stop.run();
        }
        try {
            finished.await(GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // The command has committed its recording by now, or never will: no temporary file stays.
            PartialFile.abandonAll();
            backends.close();
        }
    }

    /** The command is done with its runs, its recording and its summary. */
    @Override
    public void close() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running: it stops the servers now that the command is done.
        }
    }
}
