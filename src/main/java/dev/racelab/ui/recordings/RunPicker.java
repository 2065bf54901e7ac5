package dev.racelab.ui.recordings;

import dev.racelab.engine.RunRecord;
import dev.racelab.record.Recording;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Dialog;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.stage.Window;

import java.nio.file.Path;
import java.util.List;

/**
 * Asks which run of a recording with several to show (the command line's {@code --runs N
 * --record}), listing each run's verdict; the last is chosen unless the user picks another.
 */
final class RunPicker extends Dialog<RunRecord> {

    static final ButtonType OPEN = new ButtonType("Open", ButtonBar.ButtonData.OK_DONE);

    RunPicker(Window owner, Path file, Recording recording) {
        initOwner(owner);
        List<RunRecord> runs = recording.runs();
        setTitle("Open a recording");
        setHeaderText(file.getFileName() + " holds " + runs.size() + " runs. Which one should RaceLab show?");
        getDialogPane().getStyleClass().add("run-picker");
        getDialogPane().getButtonTypes().addAll(OPEN, ButtonType.CANCEL);

        ListView<RunRecord> list = new ListView<>();
        list.getItems().setAll(runs);
        list.setCellFactory(view -> new ListCell<>() {
            @Override
            protected void updateItem(RunRecord run, boolean empty) {
                super.updateItem(run, empty);
                setText(empty || run == null ? null
                        : "Run " + (getIndex() + 1) + " — " + run.outcome().banner());
            }
        });
        list.setPrefHeight(Math.min(12, runs.size()) * 28 + 6);
        list.setPrefWidth(560);
        list.getSelectionModel().selectLast();
        list.scrollTo(runs.size() - 1);
        list.setOnMouseClicked(e -> {
            if (e.getClickCount() == 2 && list.getSelectionModel().getSelectedItem() != null) {
                setResult(list.getSelectionModel().getSelectedItem());
                close();
            }
        });
        getDialogPane().lookupButton(OPEN).disableProperty().bind(list.getSelectionModel().selectedItemProperty()
                .isNull());
        getDialogPane().setContent(list);
        setResultConverter(button -> button == OPEN ? list.getSelectionModel().getSelectedItem() : null);
        setOnShown(e -> list.requestFocus());
    }
}
