package dev.racelab.ui.shell;

import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Verdict;
import dev.racelab.ui.model.Session;
import javafx.collections.ListChangeListener;
import javafx.css.PseudoClass;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;

/**
 * The strip under the controls that keeps the last run of each strategy of the lab one click away:
 * a teacher runs the broken strategy, then a fix, and shows either again — before and after —
 * without running it again. A click shows the kept record as an opened recording is shown (no
 * server needed), so Run (F5) from there runs its settings again. Hidden until a run has ended.
 */
public final class LastRuns extends HBox {

    public static final String STYLE = "last-runs";
    private static final PseudoClass SHOWN = PseudoClass.getPseudoClass("shown");
    private static final PseudoClass SAFE = PseudoClass.getPseudoClass("safe");

    private final Session session;

    public LastRuns(Session session) {
        this.session = session;
        getStyleClass().add(STYLE);
        setAlignment(Pos.CENTER_LEFT);
        session.lastRuns().addListener((ListChangeListener<RunRecord>) change -> rebuild());
        session.recordProperty().addListener((o, a, b) -> markShown());
        visibleProperty().bind(javafx.beans.binding.Bindings.isNotEmpty(session.lastRuns()));
        managedProperty().bind(visibleProperty());
    }

    private void rebuild() {
        Label title = new Label("Last run of each strategy:");
        title.getStyleClass().add("last-runs-title");
        title.setMinWidth(Region.USE_PREF_SIZE);
        getChildren().setAll(title);
        Lab lab = session.lab();
        for (RunRecord record : session.lastRuns()) {
            String strategy = lab.strategy(record.header().spec().strategy()).map(Strategy::title)
                    .orElse(record.header().spec().strategy());
            Button show = new Button(strategy + ":  " + record.outcome().banner());
            // A banner may name a step like a_off: its underscore is text, not a keyboard mnemonic.
            show.setMnemonicParsing(false);
            show.setId("last-run-" + record.header().spec().strategy());
            show.setUserData(record);
            show.getStyleClass().add("last-run");
            show.pseudoClassStateChanged(SAFE, record.outcome().verdict() == Verdict.SAFE);
            show.setMinWidth(0);
            show.setTooltip(new Tooltip("Show this run again, as it ended (nothing runs): " + strategy + ", "
                    + record.header().spec().workers() + " workers × " + record.header().spec().ops()
                    + " operations. Run (F5) then runs these settings again."));
            show.setOnAction(e -> {
                if (session.record() != record) {
                    session.open(record);
                }
            });
            getChildren().add(show);
        }
        markShown();
    }

    private void markShown() {
        getChildren().forEach(node -> node.pseudoClassStateChanged(SHOWN, node.getUserData() != null
                && node.getUserData() == session.record()));
    }
}
