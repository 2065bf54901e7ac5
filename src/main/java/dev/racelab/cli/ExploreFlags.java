package dev.racelab.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The options {@code explore} has beyond a run's: how schedules are picked, how many, how long, where failures go. */
final class ExploreFlags {

    @Option(names = "--method", paramLabel = "METHOD", order = 20, description = {
        "all: every interleaving of the gates; bounded (the default): every one with at most --preemptions "
                + "preemptions; pct: PCT with --depth, seeded by --seed; random: a random worker at each gate, seeded"})
    String method = "bounded";

    @Option(names = "--preemptions", paramLabel = "K", order = 21, converter = Values.WholeNumber.class,
            description = "bounded: the most times a worker that could go on is made to wait (default 2)")
    Long preemptions;

    @Option(names = "--depth", paramLabel = "D", order = 22, converter = Values.WholeNumber.class,
            description = "pct: the bug depth it aims at, D - 1 priority changes a schedule (default 3)")
    Long depth;

    @Option(names = "--schedules", paramLabel = "N", order = 23, converter = Values.WholeNumber.class,
            description = "stop after N schedules (default 100000)")
    Long schedules;

    @Option(names = "--time", paramLabel = "SECONDS", order = 24, converter = Values.WholeNumber.class,
            description = "stop after this long, whichever comes first (default 60; shrinking takes up to as long again)")
    Long time;

    @Option(names = "--record-failing", paramLabel = "DIR", order = 25, description = "save the first failing "
            + "schedule and the shrunk one as recordings in DIR (LAB-STRATEGY-first.racelab, "
            + "LAB-STRATEGY-shrunk.racelab), for rerun and replay; made if missing, --force replaces")
    Path recordFailing;
}
