package dev.racelab.isolation.run;

import dev.racelab.backend.wire.WireConnection;
import dev.racelab.backend.wire.WireException;
import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.RoleNames;

import java.time.Duration;

/** A spec's setup and teardown blocks, run on a connection as isolationtester's {@code PQexec} runs them. */
final class SetupBlocks {

    private final SpecSql sql;
    private final IsolationListener listener;
    /** How long one statement of a block may take: twice a step's timeout, as isolationtester allows. */
    private final Duration bound;

    SetupBlocks(SpecSql sql, IsolationListener listener, Duration bound) {
        this.sql = sql;
        this.listener = listener;
        this.bound = bound;
    }

    /**
     * A setup or teardown block, as {@code PQexec} would run it, piece by piece ({@link
     * SpecSql#block}): the SQL on the connection, the role statements carried out by RaceLab; the
     * first failure ends the block, as it ends a statement list. Returns the last result.
     *
     * @param what the block's name, for a setup; null for a teardown, whose lost connection is a
     *             failed result, not the end of the spec (isolationtester goes on after a teardown)
     */
    WireResult run(WireConnection c, String block, String what) throws IsolationFailure {
        WireResult last = null;
        for (RoleNames.Piece piece : sql.block(block)) {
            if (piece instanceof RoleNames.OnBehalf role) {
                last = sql.carryOut(role.statement());
            } else {
                String text = ((RoleNames.Sql) piece).text();
                last = what == null ? execTolerant(c, text) : exec(c, text, what);
            }
            if (last != null && last.failed()) {
                break;
            }
        }
        return last;
    }

    /** {@code PQexec} of a setup: a connection problem ends the spec. */
    private WireResult exec(WireConnection c, String sql, String what) throws IsolationFailure {
        try {
            return c.exec(sql, bound);
        } catch (WireException e) {
            listener.problem(what + " failed: " + e.getMessage() + "\n");
            throw new IsolationFailure("the " + what + " failed: " + e.getMessage(), e);
        }
    }

    /** {@code PQexec} of a teardown: isolationtester does not stop for a failed teardown. */
    private WireResult execTolerant(WireConnection c, String sql) throws IsolationFailure {
        try {
            return c.exec(sql, bound);
        } catch (WireException.Timeout e) {
            throw new IsolationFailure("a teardown did not finish within " + bound.toSeconds() + " s", e);
        } catch (WireException e) {
            return WireResult.lost(e.getMessage() + "\n");
        }
    }
}
