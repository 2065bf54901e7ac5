package dev.racelab.labs.fencing;

import dev.racelab.backend.PgSessions;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.PgFixture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One run of the fencing lab. Every operation is one price update by one client: take a token,
 * (check it), write the price. Each client wants its own price, distinct from everyone else's,
 * so the final price says whose write stood.
 *
 * <p>The oracle: the final price must be the price of the client that got the highest token, and
 * no write may replace a write with a newer token (the book's trigger reports the token each
 * write replaced).
 */
final class FencingScenario implements Scenario {

    static final String BOOK = "book";
    static final String STALE = "stale writes applied";
    static final String WRONG_PRICE = "wrong final price";
    static final String PRICE = "price";
    static final String BOOK_TOKEN = "book token";
    static final String LATEST_TOKEN = "latest token";

    private static final SqlFile SQL = SqlFile.load(FencingScenario.class, "fencing.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("fencing", 1, SQL);
    /** Up to 64 clients each have a session; the article's 1000 clients share 32, as behind an application server. */
    private static final PgSessions.Mode SESSIONS = PgSessions.Mode.dedicatedUpTo(64, 32);

    /**
     * Index: token. Value: the price its holder wrote, who held it, and the sequence number plus
     * one of the WRITE event of the write that carried it (0: not written, or not recorded yet).
     */
    private final AtomicLongArray priceOfToken;
    /** Who took each token: the name of its worker's lane. */
    private final AtomicReferenceArray<String> holderOfToken;
    /** A class's participant's last accepted token, by the host's lane: the write its next price is for. */
    private final Map<Integer, Long> acceptedBy = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicLongArray writeOfToken;
    private final AtomicLong maxToken = new AtomicLong();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder staleApplied = new LongAdder();

    private final FencingStrategy strategy;
    private final RunSetup setup;
    private final PgFixture pg;

    FencingScenario(Postgres postgres, FencingStrategy strategy, RunSetup setup) throws SQLException {
        this.strategy = strategy;
        this.setup = setup;
        // A class's participant takes tokens among the whole class's.
        int tokens = setup.classWorkers() * setup.ops() + 1;
        this.priceOfToken = new AtomicLongArray(tokens);
        this.holderOfToken = new AtomicReferenceArray<>(tokens);
        this.writeOfToken = new AtomicLongArray(tokens);
        this.pg = new PgFixture(postgres, setup, TABLES, SESSIONS);
    }

    /**
     * The price client {@code index} (0-based) wants in operation {@code n}: distinct for every
     * operation, a class's participants' included.
     */
    long priceFor(int index, int n) {
        return 100 + (long) n * setup.classWorkers() + setup.classIndex(index) + 1;
    }

    /**
     * Whether {@code token} is one of this run's: it indexes the arrays of tokens (one handed out
     * beyond them came from someone else's rows, or over the network, and is not kept).
     */
    private boolean known(long token) {
        return token > 0 && token < priceOfToken.length();
    }

    /**
     * A class's participant's step, as its events tell it: who took which token, which writes were
     * accepted (and at what price) or rejected, and which replaced a newer token's write (stale, as
     * the class's {@code Ledger} counts them). Its values came over the network: a token out of
     * bounds, one another lane holds, or a write with a token its lane does not hold is left out.
     */
    @Override
    public void relayed(WorkerContext worker, EventKind kind, String subject, long value) {
        boolean aToken = known(value);
        switch (kind) {
            case TOKEN -> {
                if (aToken && holderOfToken.compareAndSet((int) value, null, worker.name())) {
                    maxToken.accumulateAndGet(value, Math::max);
                }
            }
            case WRITE_ACCEPTED -> {
                if (aToken && worker.name().equals(holderOfToken.get((int) value))) {
                    accepted.increment();
                    acceptedBy.put(worker.index(), value);
                }
            }
            case REPLACED -> {
                Long mine = acceptedBy.get(worker.index());
                if (mine != null && value > mine) {
                    staleApplied.increment();
                }
            }
            case WRITE -> {
                Long token = acceptedBy.remove(worker.index());
                if (token != null) {
                    priceOfToken.set(token.intValue(), value);
                }
            }
            case WRITE_REJECTED -> rejected.increment();
            default -> {
                // Drawn on the lane; nothing to count.
            }
        }
    }

    @Override
    public LabWorker worker(WorkerContext context) throws SQLException {
        return new Client(context, pg.session(context));
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(
                pg.lockObserver(new PgFixture.Row("the book row", "book-xmax"),
                        new PgFixture.Row("the token row", "tokens-xmax")),
                pg.valueObserver("book row", "observe-book", List.of(PRICE, BOOK_TOKEN)),
                pg.valueObserver("fencing_tokens", "observe-tokens", List.of(LATEST_TOKEN)));
    }

    @Override
    public Outcome judge(RunSummary summary) throws SQLException {
        long finalPrice;
        long finalToken;
        try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("read-book"))) {
            ps.setString(1, setup.runId());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                finalPrice = rs.getLong(1);
                finalToken = rs.getLong(2);
            }
        }
        long max = maxToken.get();
        long expected = max == 0 ? 0 : priceOfToken.get((int) max);
        long stale = staleApplied.sum();
        boolean wrong = finalPrice != expected;
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("finalPrice", finalPrice);
        metrics.put("finalToken", finalToken);
        metrics.put("maxToken", max);
        metrics.put("expectedPrice", expected);
        metrics.put("acceptedWrites", accepted.sum());
        metrics.put("rejectedWrites", rejected.sum());
        metrics.put("staleWritesApplied", stale);
        Map<String, Long> violations = new LinkedHashMap<>();
        if (stale > 0) {
            violations.put(STALE, stale);
        }
        if (wrong) {
            violations.put(WRONG_PRICE, 1L);
        }
        String staleText = stale + (stale == 1 ? " stale write" : " stale writes");
        if (wrong) {
            return new Outcome(Verdict.RACE, staleText + " applied; final price " + finalPrice + ", not token "
                    + max + "'s " + expected,
                    "Token " + max + " belongs to " + holder(max) + (expected == 0 ? ", who never wrote its price"
                            : ", who wrote " + expected) + ", but the last "
                            + "write to land carried token " + finalToken + " (" + holder(finalToken) + "). "
                            + staleText + " with an older token replaced a newer price.",
                    violations, metrics, List.of());
        }
        if (stale > 0) {
            return new Outcome(Verdict.RACE, staleText + " applied",
                    "The final price " + finalPrice + " is right, but " + staleText + " with an older token "
                            + "replaced a newer price on the way: a reader in between saw a price going back in time.",
                    violations, metrics, List.of());
        }
        long rejectedCount = rejected.sum();
        return new Outcome(Verdict.SAFE, "final price " + finalPrice + " is the price of token " + max,
                "The highest token's write stood" + (rejectedCount > 0
                        ? "; " + rejectedCount + (rejectedCount == 1 ? " stale write was" : " stale writes were")
                                + " rejected."
                        : "; no write arrived out of order."),
                violations, metrics, List.of());
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg);
    }

    private String holder(long token) {
        String holder = known(token) ? holderOfToken.get((int) token) : null;
        return holder == null ? "nobody" : holder;
    }

    /** One client updating the book's price, once per operation. */
    private final class Client implements LabWorker {

        private final WorkerContext context;
        private final PgSessions.Session session;

        Client(WorkerContext context, PgSessions.Session session) {
            this.context = context;
            this.session = session;
        }

        @Override
        public void operation(int n) throws Exception {
            long price = priceFor(context.index(), n);
            context.gate(FencingLab.BEFORE_TOKEN);
            try (PgSessions.Lease lease = session.borrow()) {
                Connection c = lease.connection();
                long token = takeToken(c, price);
                context.gate(FencingLab.AFTER_TOKEN);
                if (strategy == FencingStrategy.CHECK_THEN_WRITE && !isLatest(c, token)) {
                    reject(token);
                    return;
                }
                context.gate(FencingLab.AFTER_CHECK);
                context.gate(FencingLab.BEFORE_WRITE);
                write(c, price, token);
            }
        }

        private long takeToken(Connection c, long price) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL.get("next-token"))) {
                ps.setString(1, setup.runId());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long token = rs.getLong(1);
                    // A token beyond the run's (someone else's rows, in a class) is written on, not kept.
                    if (known(token)) {
                        priceOfToken.set((int) token, price);
                        holderOfToken.set((int) token, context.name());
                    }
                    maxToken.accumulateAndGet(token, Math::max);
                    context.mark(EventKind.TOKEN, "fencing token", token);
                    return token;
                }
            }
        }

        /** The source article's check: is my token still the latest one handed out? */
        private boolean isLatest(Connection c, long token) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL.get("latest-token"))) {
                ps.setString(1, setup.runId());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long latest = rs.getLong(1);
                    context.mark(EventKind.READ, "latest token", latest);
                    return latest <= token;
                }
            }
        }

        private void write(Connection c, long price, long token) throws SQLException {
            boolean fenced = strategy == FencingStrategy.FENCED_CAS;
            try (PreparedStatement ps = c.prepareStatement(SQL.get(fenced ? "write-price-if-newer" : "write-price"))) {
                ps.setLong(1, price);
                ps.setLong(2, token);
                ps.setString(3, setup.runId());
                if (fenced) {
                    ps.setLong(4, token);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        reject(token);
                        return;
                    }
                    accepted.increment();
                    long replaced = rs.getLong(1);
                    context.mark(EventKind.WRITE_ACCEPTED, BOOK, token);
                    // Which write this one replaced, as the book's trigger saw it: the writes in the
                    // order PostgreSQL committed them, whatever order their replies came back in.
                    context.mark(EventKind.REPLACED, null, replaced);
                    Event written = context.mark(EventKind.WRITE, BOOK, price);
                    if (written != null && known(token)) {
                        writeOfToken.set((int) token, written.seq() + 1);
                    }
                    if (replaced > token) {
                        staleApplied.increment();
                        context.violation(STALE, replaced);
                        pointAtClobbered(replaced);
                    }
                }
            }
        }

        /**
         * Points this stale write at the newer write it replaced (the one that carried token
         * {@code replaced}), so the timeline draws an arrow from the ✕ back to it. That write
         * committed before this one ran, and its worker records it right after; one not recorded
         * yet (its worker stalled in between) goes without an arrow, as in the counter lab.
         */
        private void pointAtClobbered(long replaced) {
            long seqPlusOne = known(replaced) ? writeOfToken.get((int) replaced) : 0;
            if (seqPlusOne > 0) {
                context.mark(EventKind.OVERWROTE, BOOK, seqPlusOne - 1);
            }
        }

        private void reject(long token) {
            rejected.increment();
            context.mark(EventKind.WRITE_REJECTED, BOOK, token);
        }

        @Override
        public void abort() {
            session.abort();
        }

        @Override
        public void close() throws SQLException {
            session.close();
        }
    }
}
