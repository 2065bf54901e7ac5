package dev.racelab.labs.file;

import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;
import dev.racelab.labfile.BlockText;
import dev.racelab.labfile.LabFile;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The values a lab file's invariants check, read from the servers while the run is live, on one
 * server lane: each invariant's query or command as it would answer now ({@code "lost increment"
 * = 11}), recorded when it changes. The picture of the invariant, with no Java written for the
 * lab: the counter climbing to 11 where 20 was due.
 *
 * <p>Reading must not change the race it shows. Only an invariant that can be read without
 * changing anything is read while the run goes: a PostgreSQL block of one query ({@code SELECT},
 * {@code WITH}, {@code VALUES}, {@code TABLE}), run in a read-only transaction that is rolled back,
 * waiting at most {@link #LOCK_WAIT_MS} for a lock (a worker that holds a table's lock is not
 * queued behind); a Redis block whose every command only reads. Any other is judged at the end
 * only. An invariant the server refuses to read is said once on the lane and not read again; a
 * server that stops answering fails the read, as for every observer.
 */
final class InvariantObserver implements ServerObserver {

    static final String LANE = "Invariants";
    private static final int REDIS_TIMEOUT_MILLIS = 10_000;
    /** How long a read waits for a lock a worker holds before it gives this poll up. */
    static final int LOCK_WAIT_MS = 20;
    private static final int STATEMENT_MS = 2_000;
    /** Redis commands that change nothing: an invariant made only of them can be read at any moment. */
    private static final Set<String> READS = Set.of("GET", "MGET", "STRLEN", "EXISTS", "TYPE", "TTL", "PTTL", "HGET",
            "HLEN", "HEXISTS", "HMGET", "LLEN", "LINDEX", "SCARD", "SISMEMBER", "ZCARD", "ZSCORE", "ZRANK", "ZCOUNT",
            "GETRANGE", "BITCOUNT", "PFCOUNT", "XLEN", "PING", "TIME", "ECHO");
    /** One query that reads: the only SQL read while the run goes. */
    private static final Pattern QUERY = Pattern.compile("(?is)\\s*(SELECT|WITH|VALUES|TABLE)\\b[^;]*;?\\s*");
    /** What says the server went away or stopped a read that took too long: no reading this time. */
    private static final Set<String> NOT_NOW = Set.of("55P03", "57014");

    private final List<LabFile.Invariant> invariants;
    private final FileSteps steps;
    private final Postgres postgres;
    private final Redis redis;
    private final Map<String, String> values;
    private final Long[] last;
    /** Invariants read while the run is live. */
    private final boolean[] watched;
    private volatile Connection pg;
    private volatile Jedis keys;

    /** @param postgres the sandbox, as the run's sessions reach it; null without PostgreSQL */
    InvariantObserver(List<LabFile.Invariant> invariants, FileSteps steps, Postgres postgres, Redis redis,
                      String runId) {
        this.invariants = List.copyOf(invariants);
        this.steps = steps;
        this.postgres = postgres;
        this.redis = redis;
        this.values = Map.of("run", runId);
        this.last = new Long[invariants.size()];
        this.watched = new boolean[invariants.size()];
        for (int i = 0; i < invariants.size(); i++) {
            watched[i] = readsOnly(invariants.get(i).block());
        }
    }

    /** What the lane calls an invariant's value: its name, which no other invariant has. */
    static String subject(LabFile.Invariant invariant) {
        return "\"" + invariant.verdict() + "\"";
    }

    /** Whether {@code block} can be read at any moment without changing anything. */
    static boolean readsOnly(LabFile.Block block) {
        if (block.server() == LabFile.Server.PG) {
            // An advisory lock outlives a rolled-back transaction: a query that takes one is not read early.
            return QUERY.matcher(block.text()).matches() && !block.text().toLowerCase(Locale.ROOT).contains("advisory");
        }
        List<List<BlockText.Arg>> commands = BlockText.redisCommands(block.text());
        return !commands.isEmpty() && commands.stream()
                .allMatch(c -> READS.contains(c.get(0).text().toUpperCase(Locale.ROOT)));
    }

    @Override
    public List<String> lanes() {
        return List.of(LANE);
    }

    @Override
    public void connect() throws Exception {
        boolean usesPg = false;
        boolean usesRedis = false;
        for (int i = 0; i < invariants.size(); i++) {
            usesPg |= watched[i] && invariants.get(i).block().server() == LabFile.Server.PG;
            usesRedis |= watched[i] && invariants.get(i).block().server() == LabFile.Server.REDIS;
        }
        if (usesPg && pg == null && postgres != null) {
            Connection session = postgres.control("invariants");
            try (Statement st = session.createStatement()) {
                st.execute("SET lock_timeout = " + LOCK_WAIT_MS + "; SET statement_timeout = " + STATEMENT_MS);
                // Each read a transaction of its own that the driver begins READ ONLY with the query: one round trip.
                session.setAutoCommit(false);
                session.setReadOnly(true);
            } catch (SQLException e) {
                session.close();
                throw e;
            }
            pg = session;
        }
        if (usesRedis && keys == null && redis != null) {
            keys = redis.open("invariants", REDIS_TIMEOUT_MILLIS);
        }
    }

    @Override
    public void poll(LaneSink sink) throws Exception {
        connect();
        for (int i = 0; i < invariants.size(); i++) {
            if (watched[i]) {
                read(i, sink);
            }
        }
    }

    private void read(int i, LaneSink sink) throws SQLException {
        LabFile.Invariant invariant = invariants.get(i);
        String value;
        try {
            if (invariant.block().server() == LabFile.Server.PG) {
                try {
                    value = steps.run(invariant.block(), pg, null, values);
                } finally {
                    pg.rollback();
                }
            } else {
                value = steps.run(invariant.block(), null, keys, values);
            }
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (NOT_NOW.contains(state)) {
                return;
            }
            if (state.startsWith("08")) {
                throw e;
            }
            stopReading(i, sink, e.getMessage());
            return;
        } catch (JedisConnectionException e) {
            throw e;
        } catch (JedisException | IllegalArgumentException e) {
            stopReading(i, sink, e.getMessage());
            return;
        }
        BigDecimal number = FileValues.number(value);
        if (number == null) {
            return;
        }
        long whole;
        try {
            whole = number.longValueExact();
        } catch (ArithmeticException e) {
            // Not a whole number, or too large for the lane: the verdict still judges it.
            return;
        }
        if (last[i] == null || last[i] != whole) {
            last[i] = whole;
            sink.record(0, EventKind.SERVER_VALUE, subject(invariant), whole);
        }
    }

    /** The server refused to read invariant {@code i}: said once on the lane, judged at the end only. */
    private void stopReading(int i, LaneSink sink, String why) {
        watched[i] = false;
        sink.record(0, EventKind.NOTE, subject(invariants.get(i)) + " is judged at the end only: reading it while "
                + "the run goes failed (" + why + ")", 0);
    }

    @Override
    public void abort() throws Exception {
        Connection open = pg;
        if (open != null) {
            open.abort(Runnable::run);
        }
        Jedis jedis = keys;
        if (jedis != null) {
            jedis.getConnection().close();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (keys != null) {
                keys.close();
            }
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
    }
}
