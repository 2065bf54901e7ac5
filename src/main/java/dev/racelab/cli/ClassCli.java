package dev.racelab.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.classroom.ClassHost;
import dev.racelab.classroom.ClassMember;
import dev.racelab.classroom.JoinLine;
import dev.racelab.classroom.Ledger;
import dev.racelab.engine.Printable;
import dev.racelab.engine.Service;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;
import dev.racelab.record.RecordingWriter;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code class host} and {@code class join}, headless: the host prints the join line on standard
 * error as soon as the class is open and the run's summary when it ends (with {@code --json}, the
 * usual object and each participant's part); a participant prints its progress on standard error
 * and the host's verdict on standard output.
 */
final class ClassCli {

    private static final Gson JSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

    private final Map<String, String> env;
    private final Path home;
    private final PrintStream out;
    private final PrintStream err;

    ClassCli(Map<String, String> env, Path home, PrintStream out, PrintStream err) {
        this.env = env;
        this.home = home;
        this.out = out;
        this.err = err;
    }

    int host(String labId, RunFlags given, long participants, long joinWithin, String addressText, boolean keepDelays)
            throws Exception {
        if (given.workers != null || given.runs != null || given.sweep != null) {
            throw new UsageException("class host runs one run, each participant with its own workers (class join "
                    + "--workers): --workers, --runs and --sweep do not apply");
        }
        if (participants < 1 || participants > 200) {
            throw new UsageException("--participants " + participants + ": give 1 to 200");
        }
        if (joinWithin < 1 || joinWithin > 86_400) {
            throw new UsageException("--join-within " + joinWithin + ": give 1 to 86400 seconds");
        }
        java.net.InetAddress address = null;
        if (addressText != null) {
            try {
                address = java.net.InetAddress.getByName(addressText);
            } catch (java.net.UnknownHostException e) {
                throw new UsageException("--address " + Printable.line(addressText) + ": not an address of this machine");
            }
        }
        Backends backends = new Backends(BackendSettings.embedded(), home, new StartupProgress(err));
        try (backends; Interruption interruption = new Interruption(backends)) {
            Labs labs = new Labs(backends);
            Lab lab = Cli.pick(labs, labId);
            if (!lab.classReady()) {
                throw new UsageException("a class cannot run the " + lab.id() + " lab yet: it runs " + labs.classLabs());
            }
            RunOptions options = RunOptions.of(lab, given, lab.defaults());
            try {
                backends.use(BackendSettings.resolve(options.pgUrl(), options.redisUrl(), env));
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            Outputs.forceNeeds("--record", options.record(), given.force);
            try (RecordingWriter recording = options.record() == null ? null
                    : RecordingWriter.create(Outputs.check(options.record(), given.force, "record to", err))) {
                backends.ensure(Service.POSTGRES);
                backends.ensure(Service.REDIS);
                long began = System.nanoTime();
                try (ClassHost host = ClassHost.open(backends, home, address, said -> err.println(Printable.line(said)))) {
                    host.keepingDelays(keepDelays);
                    interruption.stopping(host::stop);
                    err.println("join " + host.joinLine().text());
                    err.flush();
                    var seats = host.awaitJoins((int) participants, Duration.ofSeconds(joinWithin));
                    err.println("The run starts");
                    ClassHost.Hosted hosted = host.run(lab.id(), options.spec(), seats);
                    long elapsedMs = (System.nanoTime() - began) / 1_000_000;
                    Summary summary = new Summary(lab);
                    summary.planned(hosted.record().header().spec());
                    summary.add(hosted.record());
                    summary.times(elapsedMs, 0, interruption.signalled());
                    summary.batch(1, null);
                    if (options.json()) {
                        Map<String, Object> json = new LinkedHashMap<>(summary.toJson());
                        json.put("participants", parts(hosted.parts()));
                        out.println(JSON.toJson(json));
                    } else {
                        summary.print(out);
                    }
                    if (recording != null) {
                        recording.write(hosted.lab(), hosted.record());
                        recording.commit(elapsedMs, 0, interruption.signalled());
                    }
                    return Cli.OK;
                } catch (IllegalStateException e) {
                    err.println("racelab: " + e.getMessage());
                    return Cli.BACKEND_FAILURE;
                }
            }
        }
    }

    /** {@code RACELAB_CLASS_SKEW_MS}: a wall clock this far ahead, for the class benchmark's check of the estimate. */
    private long skewMillis() throws UsageException {
        String skew = env.get("RACELAB_CLASS_SKEW_MS");
        if (skew == null || skew.isBlank()) {
            return 0;
        }
        try {
            return Long.parseLong(skew.strip());
        } catch (NumberFormatException e) {
            throw new UsageException("RACELAB_CLASS_SKEW_MS='" + Printable.line(skew) + "' is not a number of milliseconds");
        }
    }

    private static List<Map<String, Object>> parts(List<Ledger.Part> parts) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (Ledger.Part p : parts) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", p.name());
            one.put("workers", p.workers());
            one.put("ops", p.ops());
            one.put("lost", p.lost());
            one.put("overwrote", p.overwrote());
            one.put("unfinished", p.unfinished());
            if (p.neverBegan() != null) {
                one.put("couldNotBegin", p.neverBegan());
            }
            all.add(one);
        }
        return all;
    }

    int join(String lineText, String name, long workers, List<String> delays, boolean headless)
            throws UsageException, BackendException, InterruptedException {
        if (!headless) {
            throw new UsageException("joining in the window is not built yet: give --headless");
        }
        if (workers < 1 || workers > 16) {
            throw new UsageException("--workers " + workers + ": a participant runs 1 to 16");
        }
        if ("-".equals(lineText)) {
            // From standard input: a line on the command line is there for every user of the machine to read.
            try {
                lineText = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                        java.nio.charset.StandardCharsets.UTF_8)).readLine();
            } catch (java.io.IOException e) {
                throw new UsageException("the join line could not be read from standard input: " + e.getMessage());
            }
        }
        JoinLine line;
        try {
            line = JoinLine.parse(lineText);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        String who = name != null ? name : System.getProperty("user.name", "student");
        long skew = skewMillis() * 1_000_000L;
        // The host's words, or the servers': printed, never their controls.
        ClassMember.Ending ending = new ClassMember(line, who, (int) workers, home, skew,
                said -> err.println(Printable.line(said)))
                .withDelays(delays)
                .onVerdict(verdict -> {
                    out.println(Printable.line(verdict.verdict() + ": " + verdict.headline()));
                    out.println(Printable.line(verdict.explanation()));
                    out.flush();
                })
                .take();
        if (!ending.judged()) {
            err.println("racelab: " + Printable.line(ending.headline() + ". " + ending.explanation()));
            return Cli.BACKEND_FAILURE;
        }
        return Cli.OK;
    }
}
