package dev.racelab.cli;

import dev.racelab.engine.Gate;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Switch;

import java.io.PrintStream;
import java.util.List;

/** What {@code racelab --help} and {@code racelab list} print. */
final class Help {

    static final String TEXT = """
            RaceLab: see, provoke and fix concurrency bugs against real PostgreSQL and Redis.

            usage:
              racelab                          start the window
              racelab list [--json]            labs, their strategies, gates and defaults
              racelab run LAB [options]        one headless run: a summary, or --json
              racelab replay FILE [--json]     the summary of a recorded run, with no server
              racelab rerun FILE [options]     run a recording's settings again (options add or replace)

            run options:
              --strategy NAME     default: the lab's broken strategy
              --workers N         number of workers
              --ops N             operations per worker
              --delay GATE=MS     delay at a gate; MS may be a range LO-HI; GATE=MS@WORKER for one
                                  worker (repeatable), e.g. --delay after-read=5 --delay after-read=2-20@client-3
              --set NAME=VALUE    a lab switch (racelab list names each lab's), repeatable
              --runs N            repeat on fresh state; the summary counts verdicts
              --seed N            seed for random delays (run i uses N + i)
              --timeout SECONDS   how long without progress before the run is judged STUCK (a cycle of
                                  waits is named DEADLOCK after a quiet second)
              --record FILE       save every run, complete, for replay and the window's Open
              --pg-url URL        an existing PostgreSQL (else RACELAB_PG_URL, else embedded)
              --redis-url URL     an existing Redis (else RACELAB_REDIS_URL, else embedded)
              --expect VERDICT    exit 3 unless every run ends with VERDICT
              --json              print one JSON object instead of the summary

            exit codes: 0 ran, 1 a server failed, 2 bad usage, 3 --expect mismatch
            """;

    private Help() {
    }

    static String version() {
        String version = Help.class.getPackage().getImplementationVersion();
        return version == null ? "development build" : version;
    }

    static void printLabs(List<Lab> labs, PrintStream out) {
        for (Lab lab : labs) {
            out.printf("%s — %s%n  %s%n", lab.id(), lab.title(), lab.story());
            out.printf("  needs: %s · workers: %d (up to %d) × %d ops%n",
                    String.join(", ", lab.services().stream().sorted().map(s -> s.displayName()).toList()),
                    lab.defaultWorkers(), lab.maxWorkers(), lab.defaultOps());
            out.println("  strategies:");
            for (Strategy s : lab.strategies()) {
                out.printf("    %-20s %s%s%n", s.id(), s.broken() ? "[races] " : "", s.summary());
            }
            out.println("  gates:");
            for (Gate g : lab.gates()) {
                out.printf("    %-20s %s%s%n", g.id(), g.isFault() ? "[fault] " : "", g.description());
            }
            if (!lab.switches().isEmpty()) {
                out.println("  switches (--set NAME=VALUE):");
                for (Switch<?> sw : lab.switches()) {
                    out.printf("    %-20s %s; %s, default %s%n", sw.name(), sw.description(), sw.accepted(),
                            sw.defaultText());
                }
            }
            out.println();
        }
    }
}
