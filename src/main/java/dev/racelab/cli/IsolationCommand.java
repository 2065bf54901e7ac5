package dev.racelab.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.racelab.backend.BackendException;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.files.OutputFile;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecReader;
import dev.racelab.isolation.TeachingSpec;
import dev.racelab.isolation.run.IsolationRun;
import dev.racelab.isolation.run.PermutationReport;
import dev.racelab.isolation.run.SpecSandbox;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.function.Consumer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code racelab isolation SPEC… [--permutation "s1a s2b …"] [--out DIR] [--pg-url URL] [--json]}:
 * runs PostgreSQL isolation specs and prints each one's transcript as isolationtester prints it.
 *
 * <p>Everything the user gave is checked before a server starts: every spec is read (a malformed
 * one is refused with its line and column), the permutation is read against each, the output
 * folder is made and each transcript's file checked ({@link Outputs}: a new regular file, or one
 * {@code --force} replaces). Then each spec runs in a sandbox of its own ({@link IsolationRun}): a
 * scratch database, its sessions logged in as a role made for it (or, with {@code --as-login}, as
 * the user's login); several side by side ({@link SpecLanes}, {@code --jobs}; one per core unless
 * given: {@link #defaultLanes}), reported in the
 * order given. A step's SQL error is part of the transcript, not a failure. Exit codes: 0 the
 * specs ran; 2 a bad spec, permutation, file or option; 1 a server problem (it cannot be reached,
 * its login may not create databases and roles, its pg_hba.conf turns the spec's role away, a spec
 * needs more rights than its role has, or a spec stopped part-way: a setup failed, a step outlived
 * every bound). A spec with a statement RaceLab cannot confine to its scratch database ({@link
 * dev.racelab.isolation.ServerReach}) is refused as a bad spec. A spec that stops does not stop the
 * others; its transcript up to there is printed (or written) all the same.
 */
final class IsolationCommand {

    private static final Gson JSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().serializeNulls()
            .create();
    /** The most lanes {@link #defaultLanes} gives, whatever the cores. */
    static final int MOST_DEFAULT_LANES = 4;

    private final Map<String, String> env;
    private final Path home;
    private final PrintStream out;
    private final PrintStream err;

    IsolationCommand(Map<String, String> env, Path home, PrintStream out, PrintStream err) {
        this.env = env;
        this.home = home;
        this.out = out;
        this.err = err;
    }

    int run(List<Path> files, String permutationText, Path outDir, boolean force, String pgUrl, boolean json,
            SpecSandbox.Access access, int jobs) throws UsageException, BackendException {
        if (pgUrl != null && pgUrl.isBlank()) {
            throw new UsageException("--pg-url is empty: give an address like postgresql://user@localhost:5432/mydb, "
                    + "or leave the option out");
        }
        BackendSettings settings;
        try {
            settings = BackendSettings.resolve(pgUrl, null, env);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<Spec> specs = new ArrayList<>();
        Map<Spec, List<Permutation>> chosen = new LinkedHashMap<>();
        for (Path file : files) {
            Spec spec = read(file);
            specs.add(spec);
            List<Permutation> only = new ArrayList<>();
            if (permutationText != null) {
                try {
                    only.add(SpecReader.permutation(spec, "--permutation", permutationText));
                } catch (SpecException e) {
                    throw new UsageException(e.getMessage() + " (in " + file + ")");
                }
            }
            chosen.put(spec, only);
        }
        Map<Spec, OutputFile> outputs = outDir == null ? Map.of() : outputs(outDir, specs, force);

        Backends backends = new Backends(BackendSettings.embedded(), home, new StartupProgress(err));
        try (backends; Interruption interruption = new Interruption(backends)) {
            long started = System.nanoTime();
            Postgres server;
            try {
                server = server(settings, backends);
            } catch (BackendException e) {
                return notStarted(e, json, interruption.signalled(), started);
            }
            List<Object> reports = new ArrayList<>();
            boolean allRan = true;
            boolean noted = false;
            boolean printing = outDir == null && !json;
            Consumer<String> live = piece -> {
                out.print(piece);
                out.flush();
            };
            int laneCount = Math.max(1, Math.min(jobs == 0 ? defaultLanes() : jobs, specs.size()));
            try (SpecLanes lanes = new SpecLanes(laneCount, specs, chosen, server, access, printing ? live : null,
                    kept -> err.println("racelab: warning: " + kept))) {
                interruption.stopping(lanes::stop);
                for (int i = 0; i < specs.size(); i++) {
                    SpecLanes.Ended ended = lanes.next(i);
                    if (ended == null) {
                        // Never started: the user stopped, or the server failed an earlier spec.
                        allRan = false;
                        continue;
                    }
                    Spec spec = ended.spec();
                    IsolationRun run = ended.run();
                    if (printing && laneCount > 1) {
                        live.accept(ended.transcript());
                    }
                    if (!noted && !run.notes().isEmpty()) {
                        // The scratch database's settings are the server's: the same for every spec, said once.
                        noted = true;
                        run.notes().forEach(note -> err.println("racelab: note: " + note));
                    }
                    // A role left on the user's server is said for every spec that leaves one.
                    ended.kept().forEach(kept -> err.println("racelab: " + spec.name() + ": warning: " + kept));
                    if (outDir != null) {
                        write(outputs.get(spec), ended.transcript());
                    }
                    if (ended.failure() != null) {
                        allRan = false;
                        err.println("racelab: " + spec.name() + ": " + ended.failure());
                    }
                    reports.add(json(spec, ended.report(), ended.failure(), run, ended.kept()));
                }
                if (lanes.finish()) {
                    // A scratch database or role stayed on the server (said above): a server problem.
                    allRan = false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                allRan = false;
            }
            interruption.stopping(() -> { });
            if (json) {
                Map<String, Object> all = new LinkedHashMap<>();
                all.put("server", server.describe());
                all.put("specs", reports);
                all.put("elapsedMs", (System.nanoTime() - started) / 1_000_000);
                out.println(JSON.toJson(all));
            }
            return allRan ? Cli.OK : Cli.BACKEND_FAILURE;
        }
    }

    /**
     * Lanes when the user gives no {@code --jobs}: one per core, at most {@value #MOST_DEFAULT_LANES}.
     * Specs mostly wait for the server (locks, sleeps), so lanes side by side use the cores the
     * server has; more lanes than that gained nothing on a 2-core machine, and each lane's login
     * holds up to twice the most sessions a spec has, from the server's connection limit.
     */
    static int defaultLanes() {
        return Math.min(MOST_DEFAULT_LANES, Runtime.getRuntime().availableProcessors());
    }

    /**
     * No spec ran: the server could not be started or reached, or a signal called its start off.
     * With {@code --json} the one object still goes to standard output (no specs, and why); a
     * server's failure is the one line on standard error, exit 1.
     */
    private int notStarted(BackendException failure, boolean json, boolean signalled, long started) {
        if (json) {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("server", null);
            all.put("specs", List.of());
            all.put("elapsedMs", (System.nanoTime() - started) / 1_000_000);
            all.put(signalled ? "interrupted" : "failure", signalled ? true : failure.getMessage());
            out.println(JSON.toJson(all));
        }
        if (signalled) {
            err.println("racelab: stopped before the server was up; no spec ran");
            return Cli.OK;
        }
        err.println("racelab: " + failure.getMessage());
        return Cli.BACKEND_FAILURE;
    }

    /** A spec file, or, when there is no such file, one of RaceLab's teaching specs by name. */
    private static Spec read(Path file) throws UsageException {
        Spec spec = readSpec(file);
        Optional<String> refused = IsolationRun.refusal(spec);
        if (refused.isPresent()) {
            throw new UsageException(file + ": " + refused.get());
        }
        return spec;
    }

    private static Spec readSpec(Path file) throws UsageException {
        try {
            return SpecReader.read(file);
        } catch (NoSuchFileException e) {
            Optional<TeachingSpec> bundled = TeachingSpec.find(file.toString());
            if (bundled.isPresent()) {
                return bundled.get().spec();
            }
            throw new UsageException("cannot read " + file + ": no such file, nor a teaching spec of that name ("
                    + String.join(", ", TeachingSpec.all().stream().map(TeachingSpec::id).toList()) + ")");
        } catch (IOException e) {
            throw new UsageException("cannot read " + file + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (SpecException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * The server to run on: a named one is only reached, since a spec needs nothing in its
     * database (only the right to create one of its own); else the embedded one, started now.
     */
    private static Postgres server(BackendSettings settings, Backends backends) throws BackendException {
        Optional<PgAddress> named = settings.postgres();
        return named.isPresent() ? Postgres.reach(named.get()) : backends.postgres();
    }

    /**
     * The file each spec's transcript goes to, {@code DIR/<spec>.out}, each checked as every output
     * is ({@link Outputs}); the folder is made if it is not there. Two specs of one name would
     * write one file: refused.
     */
    private Map<Spec, OutputFile> outputs(Path outDir, List<Spec> specs, boolean force) throws UsageException {
        Outputs.folder("--out", outDir);
        Map<Spec, OutputFile> outputs = new LinkedHashMap<>();
        Map<String, Spec> byName = new HashMap<>();
        for (Spec spec : specs) {
            Path file = outDir.resolve(spec.name() + ".out");
            if (byName.putIfAbsent(spec.name(), spec) != null) {
                throw new UsageException("cannot write " + file + ": spec " + spec.name()
                        + " is given twice, and each would write it");
            }
            outputs.put(spec, Outputs.check(file, force, "write", err));
        }
        return outputs;
    }

    private static void write(OutputFile target, String text) throws UsageException {
        try {
            target.write(stream -> stream.write(text.getBytes(StandardCharsets.UTF_8)));
        } catch (OutputFile.Failed e) {
            throw new UsageException(e.getMessage());
        }
    }

    private static Map<String, Object> json(Spec spec, PermutationReport report, String failure, IsolationRun run,
                                            List<String> kept) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("spec", spec.name());
        map.put("scratchDatabase", run.scratchName());
        map.put("rolesKept", kept);
        map.put("sessions", spec.sessions().stream().map(s -> s.name()).toList());
        map.put("permutations", report.outcomes().stream().map(PermutationReport.Outcome::toJson).toList());
        map.put("completed", failure == null);
        if (failure != null) {
            map.put("failure", failure);
        }
        return map;
    }
}
