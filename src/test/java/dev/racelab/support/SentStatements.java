package dev.racelab.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts the statements pgjdbc puts on the wire, by the name of the thread that sends them, while
 * open: its protocol log at FINEST has one {@code Execute} (or {@code SimpleQuery}) per statement,
 * the {@code BEGIN} it slips in before a transaction's first statement included.
 */
public final class SentStatements extends Handler implements AutoCloseable {

    private final Logger wire = Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");
    private final Map<String, LongAdder> byThread = new ConcurrentHashMap<>();

    public SentStatements() {
        wire.setUseParentHandlers(false);
        wire.addHandler(this);
        wire.setLevel(Level.FINEST);
    }

    /** How many statements the thread called {@code thread} has sent so far. */
    public long sentBy(String thread) {
        LongAdder count = byThread.get(thread);
        return count == null ? 0 : count.sum();
    }

    @Override
    public void publish(LogRecord record) {
        String message = record.getMessage();
        if (message != null && (message.startsWith(" FE=> Execute(") || message.startsWith(" FE=> SimpleQuery("))) {
            byThread.computeIfAbsent(Thread.currentThread().getName(), k -> new LongAdder()).increment();
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        wire.setLevel(null);
        wire.removeHandler(this);
        wire.setUseParentHandlers(true);
    }
}
