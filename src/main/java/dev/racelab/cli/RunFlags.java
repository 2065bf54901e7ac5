package dev.racelab.cli;

import dev.racelab.engine.Verdict;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@code run} and {@code rerun} as the parser reads them: typed, each given at
 * most once (only {@code --delay} and {@code --set} repeat), an option left out is null. What
 * they mean for a lab (its strategies, gates, switches, how many workers it takes) is
 * {@link RunOptions}' to check.
 */
final class RunFlags {

    @Option(names = "--strategy", paramLabel = "NAME", order = 1,
            description = "default: the lab's broken strategy")
    String strategy;

    @Option(names = "--workers", paramLabel = "N", order = 2, converter = Values.WholeNumber.class,
            description = "number of workers")
    Long workers;

    @Option(names = "--ops", paramLabel = "N", order = 3, converter = Values.WholeNumber.class,
            description = "operations per worker")
    Long ops;

    @Option(names = "--delay", paramLabel = "GATE=MS", order = 4, description = {
        "delay at a gate; MS may be a range LO-HI; GATE=MS@WORKER for one worker (repeatable), e.g. "
                + "--delay after-read=5 --delay after-read=2-20@client-3"})
    List<String> delays = new ArrayList<>();

    @Option(names = "--set", paramLabel = "NAME=VALUE", order = 5,
            description = "a lab switch (racelab list names each lab's), repeatable")
    List<String> sets = new ArrayList<>();

    @Option(names = "--runs", paramLabel = "N", order = 6, converter = Values.WholeNumber.class,
            description = "repeat on fresh state; the summary counts verdicts (a server that fails ends the batch)")
    Long runs;

    @Option(names = "--sweep", paramLabel = "GATE=LO-HI/STEP", order = 7, description = {
        "a batch of --runs at each delay from LO to HI ms in steps of STEP at a gate (race probability vs delay); "
                + "GATE=LO-HI/STEP@WORKER for one worker, e.g. --sweep after-read=0-20/5 --runs 20"})
    String sweep;

    @Option(names = "--seed", paramLabel = "N", order = 8, converter = Values.WholeNumber.class,
            description = "seed for random delays (run i uses N + i)")
    Long seed;

    @Option(names = "--timeout", paramLabel = "SECONDS", order = 9, converter = Values.WholeNumber.class,
            description = "how long without progress before the run is judged STUCK (a cycle of waits is named "
                    + "DEADLOCK after a quiet second)")
    Long timeout;

    @Option(names = "--record", paramLabel = "FILE", order = 10,
            description = "save every run, complete, for replay and the window's Open (a new file; written only "
                    + "as a regular file, never a device, FIFO or folder)")
    Path record;

    @Option(names = "--force", order = 10,
            description = "let --record replace a file that exists (through a symbolic link: the file it leads to)")
    boolean force;

    @Option(names = "--pg-url", paramLabel = "URL", order = 11,
            description = "an existing PostgreSQL (else RACELAB_PG_URL, else embedded)")
    String pgUrl;

    @Option(names = "--pg-standby-url", paramLabel = "URL", order = 11,
            description = "a hot standby of --pg-url's server, for replica-read (else RACELAB_PG_STANDBY_URL, else "
                    + "RaceLab's own primary and standby)")
    String pgStandbyUrl;

    @Option(names = "--redis-url", paramLabel = "URL", order = 12,
            description = "an existing Redis (else RACELAB_REDIS_URL, else embedded)")
    String redisUrl;

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", order = 13, converter = Values.WholeNumber.class,
            description = "how long a server may take to let RaceLab in, connecting and logging in (default: 10 "
                    + "for PostgreSQL, 5 for Redis); longer on a heavily loaded machine, where a healthy server is slow")
    Long connectTimeout;

    @Option(names = "--expect", paramLabel = "VERDICT", order = 14, converter = Values.VerdictName.class,
            description = "exit 3 unless every run ends with VERDICT (SAFE, RACE, DEADLOCK, STUCK, ERROR)")
    Verdict expect;

    @Option(names = "--json", order = 15, description = "print one JSON object instead of the summary")
    boolean json;
}
