package dev.racelab.isolation.run;

import dev.racelab.backend.wire.WireResult;
import dev.racelab.isolation.RoleNames;
import dev.racelab.isolation.RoleStatement;

import java.util.List;

/**
 * What a spec's SQL becomes on its way to the server ({@link SpecRunner} sends it): its role names
 * as the run made them, and its role statements carried out by RaceLab ({@link SpecRoles}).
 */
public interface SpecSql {

    /** A spec that creates no role: its SQL goes as written, and it has no role statement to carry out. */
    SpecSql AS_WRITTEN = new SpecSql() {
        @Override
        public String step(String sql) {
            return sql;
        }

        @Override
        public List<RoleNames.Piece> block(String sql) {
            return List.of(new RoleNames.Sql(sql));
        }

        @Override
        public WireResult carryOut(RoleStatement statement) throws IsolationFailure {
            throw new IsolationFailure("a role statement where the spec creates no role");
        }
    };

    /** The text a session sends for a step. */
    String step(String sql);

    /** A setup or teardown block as pieces, in order: SQL the session sends, role statements RaceLab carries out. */
    List<RoleNames.Piece> block(String sql) throws IsolationFailure;

    /**
     * Carries out one of the spec's role statements, as the server answered it.
     *
     * @throws IsolationFailure if RaceLab's own connection failed
     */
    WireResult carryOut(RoleStatement statement) throws IsolationFailure;
}
