package dev.racelab.ui.recordings;

import dev.racelab.engine.RunRecord;
import dev.racelab.ui.model.Session;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.FormatStyle;

/**
 * The strip under the controls while an opened recording is shown: which file, which run of it,
 * when and against which servers it was recorded, and the one action that runs its settings again
 * against the servers now. Hidden during live runs.
 */
public final class RecordingBar extends HBox {

    public static final String STYLE = "recording-bar";
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofLocalizedDateTime(FormatStyle.MEDIUM)
            .withZone(ZoneId.systemDefault());

    private final Session session;
    private final RecordingFiles files;
    private final Label file = new Label();
    private final Label facts = new Label();
    private final Button runAgain = new Button("Run these settings again");
    private final Button close = new Button("Close recording");

    public RecordingBar(Session session, RecordingFiles files) {
        this.session = session;
        this.files = files;
        getStyleClass().add(STYLE);
        setAlignment(Pos.CENTER_LEFT);
        Label tag = new Label("RECORDING");
        tag.getStyleClass().add("recording-tag");
        tag.setMinWidth(Region.USE_PREF_SIZE);
        file.getStyleClass().add("recording-file");
        file.setId("recording-file");
        file.setMinWidth(Region.USE_PREF_SIZE);
        facts.getStyleClass().add("recording-facts");
        facts.setId("recording-facts");
        facts.setMinWidth(0);
        HBox.setHgrow(facts, Priority.ALWAYS);
        facts.setMaxWidth(Double.MAX_VALUE);
        runAgain.getStyleClass().add("run-again");
        runAgain.setId("run-again-button");
        runAgain.setTooltip(new Tooltip("Run the recording's settings live against the servers (Ctrl+Shift+R)"));
        runAgain.setMinWidth(Region.USE_PREF_SIZE);
        runAgain.setOnAction(e -> session.runAgain());
        runAgain.disableProperty().bind(session.commands().canRunAgain().not());
        close.setTooltip(new Tooltip("Leave the recording: its settings stay, ready for a live run (Ctrl+R)"));
        close.setMinWidth(Region.USE_PREF_SIZE);
        close.setOnAction(e -> session.reset());
        getChildren().addAll(tag, file, facts, runAgain, close);
        visibleProperty().bind(session.replayingProperty());
        managedProperty().bind(visibleProperty());
        session.recordProperty().addListener((o, a, b) -> update());
        files.sourceProperty().addListener((o, a, b) -> update());
    }

    private void update() {
        RunRecord record = session.record();
        if (record == null || !session.replayingProperty().get()) {
            return;
        }
        RecordingFiles.Source source = files.sourceProperty().get();
        file.setText(source == null ? "" : source.file().getFileName().toString());
        file.setTooltip(source == null ? null : new Tooltip(source.file().toAbsolutePath().toString()));
        String servers = record.backend().isEmpty() ? "servers not noted"
                : "against " + String.join(" and ", record.backend().values());
        facts.setText((source == null || source.runs() == 1 ? "" : "run " + source.run() + " of " + source.runs() + " · ")
                + "recorded " + WHEN.format(record.header().startedAt()) + " · " + servers);
        facts.setTooltip(new Tooltip(facts.getText()));
    }
}
