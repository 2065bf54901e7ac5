package dev.racelab.labs.jobqueue;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How the lab's consumers call its claim statements ({@code claim-by-token}, {@code
 * claim-skip-locked} in {@code jobqueue.sql}) and read the job ids they answer; shared with the
 * job-queue benchmark, so that it claims exactly as the lab does.
 */
public final class JobClaims {

    private JobClaims() {
    }

    /** Binds a claim's parameters: the run, the claim's token, the consumer, its lease (0: none), the batch. */
    public static void bind(PreparedStatement claim, String runId, long token, String consumer, int leaseMs,
                            int batch) throws SQLException {
        claim.setString(1, runId);
        claim.setLong(2, token);
        claim.setString(3, consumer);
        claim.setInt(4, leaseMs);
        claim.setInt(5, batch);
    }

    /** The job ids a statement answers, one a row, in its order. */
    public static List<Integer> ids(PreparedStatement ps) throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getInt(1));
            }
        }
        return ids;
    }
}
