package dev.racelab.engine;

import java.time.Instant;

/**
 * What a run was, before anything happened in it: which lab, with which settings, when. With the
 * event log and the outcome it makes the {@link RunRecord}.
 *
 * @param lab       the lab's id
 * @param spec      the settings the run started with (the gates may change during the run; the
 *                  log says when)
 * @param startedAt when the run was made, by the wall clock
 */
public record RunHeader(String lab, RunSpec spec, Instant startedAt) {
}
