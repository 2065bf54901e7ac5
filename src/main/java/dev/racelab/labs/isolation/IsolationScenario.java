package dev.racelab.labs.isolation;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerWaits;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.TeachingSpec;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.run.IsolationFailure;
import dev.racelab.isolation.run.IsolationListener;
import dev.racelab.isolation.run.IsolationRun;
import dev.racelab.isolation.run.PermutationReport;
import dev.racelab.isolation.run.SpecRunner;
import dev.racelab.isolation.run.SpecSandbox;
import dev.racelab.isolation.run.TeachingOutcome;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One run of a spec in the lab: a scratch database made for it, the sessions connected, a
 * {@link Conductor} sending the steps, and at the end a verdict. A teaching spec is judged by its
 * check step (RACE when the anomaly happened; SAFE when it did not, saying so when a transaction
 * was refused); any other spec by its errors (DEADLOCK when PostgreSQL broke a deadlock, SAFE
 * otherwise, naming the steps that failed).
 */
final class IsolationScenario implements Scenario {

    private static final SpecRunner.Options OPTIONS = SpecRunner.Options.DEFAULTS
            .withStepTimeout(Duration.ofSeconds(60)).withFindBlockers(true);
    private static final long CONDUCTOR_END_SECONDS = 30;
    private static final String DEADLOCK_DETECTED = "40P01";

    private final SpecSource source;
    private final int number;
    private final boolean byHand;
    private final Conductor conductor;
    /** The sessions log in as the user's login ({@link IsolationLab#AS_LOGIN}), not confined. */
    private final boolean asLogin;
    private final SpecSandbox sandbox;
    private final SpecRunner runner;
    /** Set once {@link #release} ran: what the run made and could not drop. */
    private List<String> kept;
    private final Thread conductorThread;

    IsolationScenario(Postgres postgres, SpecSource source, IsolationStrategy strategy, RunSetup setup)
            throws Exception {
        this.source = source;
        int sessions = source.spec().sessions().size();
        if (setup.workers() != sessions) {
            throw new IllegalArgumentException("spec " + source.name() + " has " + sessions + " sessions: run it with "
                    + sessions + " workers, not " + setup.workers());
        }
        List<Permutation> offered = source.permutations();
        number = setup.get(IsolationLab.PERMUTATION);
        if (number > offered.size()) {
            throw new IllegalArgumentException("spec " + source.name() + " has " + offered.size()
                    + " permutation" + (offered.size() == 1 ? "" : "s") + ", not " + number);
        }
        byHand = strategy == IsolationStrategy.BY_HAND;
        conductor = new Conductor(source.spec(), offered.get(number - 1), byHand);
        ServerReach reach = ServerReach.of(source.spec());
        Optional<String> refused = IsolationRun.refusal(source.spec(), reach);
        if (refused.isPresent()) {
            throw new IsolationFailure(refused.get());
        }
        asLogin = setup.get(IsolationLab.AS_LOGIN);
        SpecSandbox.Access access = asLogin ? SpecSandbox.Access.AS_LOGIN : SpecSandbox.Access.CONFINED;
        SpecSandbox made = SpecSandbox.open(postgres, source.spec(), reach, access);
        SpecRunner connected = null;
        try {
            connected = SpecRunner.connect(made, source.spec(), conductor, OPTIONS);
            conductor.use(connected);
            setup.servers().watch(() -> {
                try {
                    postgres.probe();
                    return Optional.empty();
                } catch (BackendException e) {
                    return Optional.of(e.getMessage());
                }
            });
            conductorThread = setup.threads().start("conductor", conductor::run);
        } catch (IsolationFailure | RuntimeException e) {
            try {
                if (connected != null) {
                    connected.close();
                }
            } finally {
                List<String> left = made.release();
                if (!left.isEmpty()) {
                    // What stays on the user's server is said even when the run never started.
                    String sentences = String.join(" ", left.stream().map(IsolationScenario::sentence).toList());
                    if (e instanceof IsolationFailure failure) {
                        throw new IsolationFailure(failure.getMessage() + ". " + sentences, failure);
                    }
                    e.addSuppressed(new IsolationFailure(sentences));
                }
            }
            throw e;
        }
        sandbox = made;
        runner = connected;
    }

    @Override
    public LabWorker worker(WorkerContext context) {
        List<IsolationWorker.Note> notes = new ArrayList<>();
        if (context.index() == 0) {
            notes.add(IsolationWorker.Note.plain("scratch database " + sandbox.database() + ", dropped after the run"));
            if (asLogin) {
                notes.add(IsolationWorker.Note.plain("the sessions log in as your own login, with all of its rights "
                        + "(Run as my login)"));
            }
            notes.add(IsolationWorker.Note.about("spec " + source.name() + (source.title().equals(source.name()) ? ""
                    : ": " + source.title())));
            Permutation p = source.permutations().get(number - 1);
            String label = source.label(number).equals("permutation " + number) ? "" : " (" + source.label(number) + ")";
            if (!byHand) {
                notes.add(IsolationWorker.Note.about("permutation " + number + label + ": " + p));
                source.expectation(number).ifPresent(e -> notes.add(IsolationWorker.Note.about("stated: " + e.outcome()
                        + " — " + e.explanation())));
            } else {
                notes.add(IsolationWorker.Note.about("by hand: the steps of permutation " + number + label
                        + ", each session's in its own order, as you release them"));
            }
        }
        return new IsolationWorker(context, conductor, notes, source.teaching().isPresent());
    }

    /** A session waits where the runner found its step blocked, as isolationtester asks the server. */
    @Override
    public ServerWaits serverWaits() {
        return workers -> {
            Set<String> waiting = new HashSet<>();
            List<dev.racelab.isolation.Session> sessions = source.spec().sessions();
            for (int i = 0; i < sessions.size(); i++) {
                if (workers.contains(sessions.get(i).name()) && conductor.waiting(i)) {
                    waiting.add(sessions.get(i).name());
                }
            }
            return waiting;
        };
    }

    @Override
    public Outcome judge(RunSummary summary) throws Exception {
        if (!conductor.allScriptsDone()) {
            // Stopped part-way (by the user, or a worker failed): nothing more will be sent, and a
            // step still waiting would only wait out its timeout.
            conductor.stop();
        }
        conductorThread.join(CONDUCTOR_END_SECONDS * 1000);
        if (conductorThread.isAlive()) {
            return Outcome.error("the conductor did not finish", "The spec's steps did not finish within "
                    + CONDUCTOR_END_SECONDS + " s of the sessions' last step.");
        }
        List<String> left = release();
        List<PermutationReport.Outcome> outcomes = conductor.report().outcomes();
        Outcome outcome = outcomes.isEmpty() ? Outcome.error("nothing ran", "The spec's setup did not complete.")
                : judge(outcomes.get(outcomes.size() - 1));
        if (left.isEmpty()) {
            return outcome;
        }
        // Said with every run that leaves one: a role stays on the user's server until someone drops it.
        return new Outcome(outcome.verdict(), outcome.headline(), (outcome.explanation() + " "
                + left.stream().map(IsolationScenario::sentence).collect(Collectors.joining(" "))).strip(),
                outcome.violations(), outcome.metrics(), outcome.places());
    }

    /**
     * Ends the sessions, then drops the sandbox (the scratch database, then the roles), the second
     * in a {@code finally} of the first. Once only.
     *
     * @return what the run made and could not drop, as sentences
     */
    private synchronized List<String> release() {
        if (kept != null) {
            return kept;
        }
        kept = List.of();
        try {
            runner.close();
        } finally {
            kept = sandbox.release();
        }
        return kept;
    }

    private Outcome judge(PermutationReport.Outcome run) {
        List<PermutationReport.StepOutcome> failed = run.steps().stream().filter(PermutationReport.StepOutcome::failed)
                .toList();
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("steps", run.steps().size());
        metrics.put("waited", run.steps().stream().filter(PermutationReport.StepOutcome::waited).count());
        metrics.put("failed", failed.size());
        String problems = conductor.problems().isEmpty() ? "" : " " + String.join(" ", conductor.problems());
        PermutationReport.StepOutcome first = failed.isEmpty() ? null : failed.get(0);
        String firstFailure = first == null ? null : first.session() + " · " + first.step() + ": " + first.errorText();

        TeachingOutcome observed = TeachingOutcome.of(run);
        if (source.teaching().isPresent() && observed.anomaly() != null) {
            // By hand the order is the user's: the spec's stated outcome is for its own order.
            Optional<TeachingSpec.Expectation> stated = byHand ? Optional.empty() : source.expectation(number);
            String why = stated.filter(observed::matches).map(TeachingSpec.Expectation::explanation)
                    .orElse(stated.map(e -> "The spec states " + e.outcome() + " here, and this run showed "
                            + observed.outcome() + ".").orElse(""));
            String title = source.title();
            String explanation = (sentence(why) + " " + checked(run)).strip() + problems;
            return switch (observed.kind()) {
                case ANOMALY -> new Outcome(Verdict.RACE, "anomaly: " + title, explanation,
                        Map.of("anomaly", 1L), metrics, List.of());
                case REJECTED -> new Outcome(Verdict.SAFE, "no anomaly: " + firstFailure, explanation,
                        Map.of(), metrics, List.of());
                case SAFE -> new Outcome(Verdict.SAFE, "no anomaly: " + title, explanation, Map.of(), metrics,
                        List.of());
            };
        }
        Optional<PermutationReport.StepOutcome> deadlock = failed.stream()
                .filter(s -> s.error() != null && DEADLOCK_DETECTED.equals(s.error().sqlState())).findFirst();
        if (deadlock.isPresent()) {
            return new Outcome(Verdict.DEADLOCK, "PostgreSQL broke a deadlock: " + deadlock.get().session() + " · "
                    + deadlock.get().step() + " was refused (40P01)", "The sessions waited for each other in a "
                    + "cycle; after deadlock_timeout the server cancelled one of them." + problems,
                    Map.of(), metrics, List.of());
        }
        String headline = run.steps().size() + " steps, " + metrics.get("waited") + " waited, "
                + (first == null ? "none refused" : failed.size() + " refused (first " + first.session() + " · "
                + first.step() + ", " + (first.error() == null ? "connection lost" : first.error().sqlState()) + ")");
        String why = first == null ? "" : first.session() + " · " + first.step() + ": " + first.errorText() + ". ";
        return new Outcome(Verdict.SAFE, headline, why + "Every step ran as the server answered it: errors are part "
                + "of the spec's story, as in PostgreSQL's expected output." + problems, Map.of(), metrics, List.of());
    }

    /** What the check step saw, in words: "The check saw balance 120, should_be 130." */
    private static String checked(PermutationReport.Outcome run) {
        for (PermutationReport.StepOutcome step : run.steps()) {
            if (!step.step().equals("check")) {
                continue;
            }
            for (var result : step.results()) {
                if (result.rows().size() == 1) {
                    List<String> parts = new ArrayList<>();
                    for (int c = 0; c < result.columns().size(); c++) {
                        if (!result.columns().get(c).equals("anomaly")) {
                            parts.add(result.columns().get(c) + " " + result.rows().get(0).get(c));
                        }
                    }
                    return "The check saw " + String.join(", ", parts) + ".";
                }
            }
        }
        return "";
    }

    private static String sentence(String text) {
        if (text.isEmpty()) {
            return text;
        }
        String capital = Character.toUpperCase(text.charAt(0)) + text.substring(1);
        return capital.endsWith(".") ? capital : capital + ".";
    }

    @Override
    public String explain(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof IsolationFailure isolation) {
                return isolation.getMessage();
            }
        }
        return Scenario.super.explain(failure);
    }

    @Override
    public void close() throws Exception {
        try {
            conductor.stop();
            conductorThread.join(CONDUCTOR_END_SECONDS * 1000);
        } finally {
            release();
        }
    }
}
