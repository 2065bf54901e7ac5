package dev.racelab.labs.file;

import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.ServerObserver;
import dev.racelab.labfile.LabFile;
import redis.clients.jedis.Jedis;

import java.math.BigDecimal;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

/**
 * The values a lab file's invariants check, read from the servers while the run is live, on one
 * server lane: each invariant's query or command as it would answer now ({@code SELECT value FROM
 * counter = 11}), recorded when it changes. The picture of the invariant, with no Java written for
 * the lab: the counter climbing to 11 where 20 was due.
 */
final class InvariantObserver implements ServerObserver {

    static final String LANE = "Invariants";
    private static final int REDIS_TIMEOUT_MILLIS = 10_000;
    private static final int LONGEST = 44;

    private final List<LabFile.Invariant> invariants;
    private final FileSteps steps;
    private final Postgres postgres;
    private final Redis redis;
    private final Map<String, String> values;
    private final Long[] last;
    /** Invariants read while the run is live: a Redis command that only reads, any SQL (in a read-only session). */
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
            LabFile.Block block = invariants.get(i).block();
            watched[i] = block.server() == LabFile.Server.PG || READS.contains(firstWord(block.text()));
        }
    }

    /** Redis commands that change nothing: an invariant that is one of them can be read at any moment. */
    private static final java.util.Set<String> READS = java.util.Set.of("GET", "STRLEN", "EXISTS", "TYPE", "TTL", "PTTL",
            "HGET", "HLEN", "HEXISTS", "LLEN", "LINDEX", "SCARD", "SISMEMBER", "ZCARD", "ZSCORE", "ZRANK", "ZCOUNT",
            "GETRANGE", "BITCOUNT", "PFCOUNT", "XLEN");

    private static String firstWord(String text) {
        String[] words = text.strip().split("\\s+", 2);
        return words[0].toUpperCase(java.util.Locale.ROOT);
    }

    /** What the lane calls an invariant's value: its query or command, in one short line. */
    static String subject(LabFile.Invariant invariant) {
        String text = invariant.block().text().strip().replaceAll("\\s+", " ");
        return text.length() <= LONGEST ? text : text.substring(0, LONGEST - 1) + "…";
    }

    @Override
    public List<String> lanes() {
        return List.of(LANE);
    }

    @Override
    public void connect() throws Exception {
        boolean usesPg = invariants.stream().anyMatch(i -> i.block().server() == LabFile.Server.PG);
        boolean usesRedis = invariants.stream().anyMatch(i -> i.block().server() == LabFile.Server.REDIS);
        if (usesPg && pg == null && postgres != null) {
            Connection session = postgres.control("invariants");
            // Read at any moment, so it must change nothing: a write in an invariant is refused here.
            try (java.sql.Statement st = session.createStatement()) {
                st.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
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
            LabFile.Invariant invariant = invariants.get(i);
            if (!watched[i]) {
                continue;
            }
            BigDecimal number;
            try {
                number = FileValues.number(steps.run(invariant.block(), pg, keys, values));
            } catch (java.sql.SQLException e) {
                if (!"25006".equals(e.getSQLState())) {
                    throw e;
                }
                // It writes: judged at the end only, never read while the run is live.
                watched[i] = false;
                continue;
            }
            if (number == null) {
                continue;
            }
            long value;
            try {
                value = number.longValueExact();
            } catch (ArithmeticException e) {
                // Not a whole number, or too large for the lane: the verdict still judges it.
                continue;
            }
            if (last[i] == null || last[i] != value) {
                last[i] = value;
                sink.record(0, EventKind.SERVER_VALUE, subject(invariant), value);
            }
        }
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
