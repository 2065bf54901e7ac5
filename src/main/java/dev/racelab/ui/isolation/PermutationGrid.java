package dev.racelab.ui.isolation;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Backends;
import dev.racelab.isolation.run.IsolationFailure;
import dev.racelab.isolation.run.IsolationListener;
import dev.racelab.isolation.run.IsolationRun;
import dev.racelab.isolation.run.PermutationReport;
import dev.racelab.isolation.run.SpecRunner;
import dev.racelab.isolation.run.SpecSandbox;
import dev.racelab.isolation.run.TeachingOutcome;
import dev.racelab.isolation.TeachingSpec;
import dev.racelab.labs.isolation.SpecSource;
import dev.racelab.tasks.Background;
import javafx.application.Platform;
import javafx.css.PseudoClass;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.HBox;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Every permutation of a spec as a cell, coloured by what it showed once run: green ✓ every step
 * went through (for a teaching spec: no anomaly), orange ⊘ a transaction was refused with an
 * error (the tooltip names it), red ✕ the anomaly happened. A click on a cell replays that
 * permutation as a run in the window.
 *
 * <p>"Run every permutation" runs the spec once, whole, as {@code racelab isolation} does (one
 * scratch database for all its permutations), on a thread of its own; each cell is filled on the
 * FX thread as its permutation ends. Choosing another spec, or running again, stops a run still
 * going.
 */
public final class PermutationGrid extends FlowPane {

    /** What a cell shows. */
    public enum Shown {
        NOT_RUN(null, ""), OK("ok", "✓"), REFUSED("refused", "⊘"), ANOMALY("anomaly", "✕");

        private final PseudoClass pseudoClass;
        private final String symbol;

        Shown(String pseudoClass, String symbol) {
            this.pseudoClass = pseudoClass == null ? null : PseudoClass.getPseudoClass(pseudoClass);
            this.symbol = symbol;
        }
    }

    private static final PseudoClass MARKED = PseudoClass.getPseudoClass("shown");
    private static final SpecRunner.Options OPTIONS = SpecRunner.Options.DEFAULTS.withStepTimeout(Duration.ofSeconds(30));

    private final Backends backends;
    private final IntConsumer replay;
    private final Label status = new Label();
    private final List<Label> cells = new ArrayList<>();
    private final List<Shown> shown = new ArrayList<>();
    private SpecSource source;
    private volatile IsolationRun running;
    /** Which sweep the FX thread shows: a stopped sweep's late results are dropped. */
    private int generation;

    PermutationGrid(Backends backends, IntConsumer replay) {
        this.backends = backends;
        this.replay = replay;
        getStyleClass().add("permutation-grid");
        setId("permutation-grid");
        status.getStyleClass().add("bench-status");
    }

    Label status() {
        return status;
    }

    /** A line saying what the colours mean. */
    HBox legend() {
        HBox legend = new HBox(12);
        legend.getStyleClass().add("permutation-legend");
        for (Shown kind : List.of(Shown.OK, Shown.REFUSED, Shown.ANOMALY)) {
            Label cell = new Label(kind.symbol);
            cell.getStyleClass().add("permutation-cell");
            cell.pseudoClassStateChanged(kind.pseudoClass, true);
            Label words = new Label(switch (kind) {
                case OK -> "went through";
                case REFUSED -> "refused (an error)";
                default -> "anomaly";
            });
            words.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
            legend.getChildren().add(new HBox(4, cell, words));
        }
        return legend;
    }

    /** Empty cells for {@code next}'s permutations; a sweep still running stops. */
    void show(SpecSource next) {
        stop();
        source = next;
        generation++;
        cells.clear();
        shown.clear();
        getChildren().clear();
        for (int n = 1; n <= next.permutations().size(); n++) {
            int number = n;
            Label cell = new Label(String.valueOf(n));
            cell.getStyleClass().add("permutation-cell");
            cell.setId("permutation-" + n);
            cell.setTooltip(new Tooltip(next.label(n) + ": " + next.permutations().get(n - 1) + "\nnot run yet"));
            cell.setOnMouseClicked(e -> replay.accept(number));
            cells.add(cell);
            shown.add(Shown.NOT_RUN);
        }
        getChildren().setAll(cells);
        status.setText("");
    }

    /** What cell {@code number} (1-based) shows now. */
    public Shown shown(int number) {
        return shown.get(number - 1);
    }

    /** Outlines the cell of the permutation the window plays now. */
    void mark(int number) {
        for (int i = 0; i < cells.size(); i++) {
            cells.get(i).pseudoClassStateChanged(MARKED, i + 1 == number);
        }
    }

    /** Runs every permutation of {@code spec} in the background, filling the cells as they end. */
    void runEvery(SpecSource spec, SpecSandbox.Access access) {
        show(spec);
        int sweep = generation;
        int total = spec.permutations().size();
        status.setText("running " + total + " permutation" + (total == 1 ? "" : "s") + "…");
        Background.run("isolation-grid", () -> sweep(spec, sweep, access), e -> ended(sweep, "failed: " + Background.said(e)));
    }

    private void sweep(SpecSource spec, int sweep, SpecSandbox.Access access) {
        PermutationReport report = new PermutationReport();
        IsolationListener filled = new IsolationListener() {
            @Override
            public void permutationFinished(String names) {
                List<PermutationReport.Outcome> outcomes = report.outcomes();
                int number = outcomes.size();
                PermutationReport.Outcome outcome = outcomes.get(number - 1);
                Platform.runLater(() -> fill(sweep, number, outcome));
            }
        };
        String end;
        IsolationRun run = null;
        try {
            run = new IsolationRun(backends.postgres(), spec.spec(), IsolationListener.all(report, filled), OPTIONS,
                    access);
            running = run;
            // The offered ones: all of a spec's own, or the first interleavings of one with too many.
            run.run(spec.permutationCount() > spec.permutations().size() ? spec.permutations() : List.of());
            end = "every permutation ran: click a cell to play it";
        } catch (IsolationFailure e) {
            end = "stopped: " + e.getMessage();
        } catch (BackendException e) {
            end = e.getMessage();
        } catch (RuntimeException e) {
            // A fault of RaceLab's own: said, with what the sweep left on the server (an Error
            // reaches the Background's handler, which says it too).
            end = "failed: " + Background.said(e);
        } finally {
            running = null;
        }
        if (run != null && !run.kept().isEmpty()) {
            end = end + " — " + String.join("; ", run.kept());
        }
        ended(sweep, end);
    }

    /** Says how sweep {@code sweep} ended, if it is still the grid's; a fault of RaceLab's own too, so the grid never sits at "running…". */
    private void ended(int sweep, String said) {
        Platform.runLater(() -> {
            if (sweep == generation) {
                status.setText(said);
            }
        });
    }

    private void fill(int sweep, int number, PermutationReport.Outcome outcome) {
        if (sweep != generation || number > cells.size()) {
            return;
        }
        Shown kind;
        String said;
        TeachingOutcome judged = TeachingOutcome.of(outcome);
        if (source.teaching().isPresent() && judged.anomaly() != null) {
            kind = judged.kind() == TeachingSpec.Kind.ANOMALY ? Shown.ANOMALY
                    : judged.kind() == TeachingSpec.Kind.REJECTED ? Shown.REFUSED : Shown.OK;
        } else {
            kind = outcome.failed() ? Shown.REFUSED : Shown.OK;
        }
        PermutationReport.StepOutcome failure = outcome.firstFailure();
        said = kind == Shown.ANOMALY ? "the anomaly happened"
                : failure != null ? failure.session() + " · " + failure.step() + ": " + failure.errorText()
                : "every step went through";
        Label cell = cells.get(number - 1);
        for (Shown other : Shown.values()) {
            if (other.pseudoClass != null) {
                cell.pseudoClassStateChanged(other.pseudoClass, other == kind);
            }
        }
        cell.setText(number + " " + kind.symbol);
        cell.getTooltip().setText(source.label(number) + ": " + outcome.permutation() + "\n" + said);
        shown.set(number - 1, kind);
    }

    /** Stops a sweep still running (its database is dropped on its thread). */
    void stop() {
        IsolationRun run = running;
        if (run != null) {
            run.stop();
        }
    }
}
