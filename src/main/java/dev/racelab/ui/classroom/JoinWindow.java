package dev.racelab.ui.classroom;

import dev.racelab.classroom.ClassMember;
import dev.racelab.classroom.JoinLine;
import dev.racelab.engine.Printable;
import dev.racelab.tasks.Background;
import dev.racelab.ui.controls.NumberSpinner;
import dev.racelab.ui.look.Themes;
import dev.racelab.ui.model.Session;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;

import java.nio.file.Path;

/**
 * Class ▸ Join a class: the join line the host shows, a name, how many workers; then this
 * machine's workers take part in the class's runs, and the main window shows each whole run as it
 * goes, everyone's lanes on it (the host starts, pauses and stops it), with what the host says and
 * each run's verdict here. Closing the window leaves the class. Owned by the FX thread.
 */
public final class JoinWindow {

    private final Stage stage = new Stage();
    private final Session session;
    private final Path home;
    private final TextField line = new TextField();
    private final TextField name = new TextField(System.getProperty("user.name", "student"));
    private final NumberSpinner workers = new NumberSpinner("Workers", "");
    private final TextField delays = new TextField();
    private final Button join = new Button("Join");
    private final Button leave = new Button("Leave");
    private final ListView<String> heard = new ListView<>();
    private final Label verdict = new Label();
    private ClassMember member;

    public JoinWindow(Window owner, Session session, Path home) {
        this.session = session;
        this.home = home;
        stage.initOwner(owner);
        stage.setTitle("Join a class — RaceLab");
        line.setPromptText("racelab://CODE:PASSWORD@HOST:PORT/?redis=HOST:PORT, as the host shows it");
        line.setId("join-line");
        name.setId("join-name");
        workers.setRange(1, 16, 1);
        delays.setId("join-delays");
        delays.setPromptText("optional, at your own workers' gates: after-read=10-30  before-write=5@client-2");
        join.setId("join-button");
        join.setDefaultButton(true);
        join.setOnAction(e -> join());
        leave.setId("join-leave");
        leave.setDisable(true);
        leave.setOnAction(e -> leave());
        GridPane form = new GridPane();
        form.setHgap(10);
        form.setVgap(8);
        form.addRow(0, new Label("Join line"), line);
        form.addRow(1, new Label("Your name"), name);
        form.addRow(2, new Label("Workers"), workers);
        form.addRow(3, new Label("Your delays"), delays);
        GridPane.setHgrow(line, Priority.ALWAYS);
        HBox buttons = new HBox(10, join, leave);
        buttons.setAlignment(Pos.CENTER_LEFT);
        verdict.setId("join-verdict");
        verdict.getStyleClass().add("lab-heading");
        verdict.setWrapText(true);
        heard.setId("join-heard");
        heard.setPlaceholder(new Label("What the host says appears here"));
        VBox root = new VBox(12, form, buttons, verdict, heard);
        VBox.setVgrow(heard, Priority.ALWAYS);
        root.setPadding(new Insets(16));
        root.getStyleClass().add("main-view");
        Scene scene = new Scene(root, 720, 460);
        Themes.follow(scene, owner.getScene());
        stage.setScene(scene);
        stage.setOnHidden(e -> leave());
    }

    public void show() {
        stage.show();
        stage.toFront();
    }

    public Stage stage() {
        return stage;
    }

    /** What the host said, and this machine's progress, oldest first. */
    public java.util.List<String> heard() {
        return java.util.List.copyOf(heard.getItems());
    }

    /** Joins with the line, name and workers typed; a line that is not one is said, and nothing happens. */
    public void join() {
        if (member != null) {
            return;
        }
        JoinLine parsed;
        try {
            parsed = JoinLine.parse(line.getText());
        } catch (IllegalArgumentException e) {
            say(e.getMessage());
            return;
        }
        String who = name.getText().strip().isEmpty() ? "student" : name.getText().strip();
        ClassMember joining = new ClassMember(parsed, who, workers.getValue(), home, this::sayLater)
                .withDelays(java.util.Arrays.stream(delays.getText().split("[\\s,]+")).filter(d -> !d.isEmpty()).toList())
                .watching(run -> Platform.runLater(() -> session.watch(run, true)))
                .onVerdict(ending -> Platform.runLater(() -> verdict.setText(Printable.line(ending.verdict() + " — "
                        + ending.headline()))));
        member = joining;
        join.setDisable(true);
        leave.setDisable(false);
        line.setDisable(true);
        delays.setDisable(true);
        say("Joining class " + parsed.code() + "…");
        Background.run("class-join", () -> {
            ClassMember.Ending ending = joining.take();
            Platform.runLater(() -> left(ending.judged() ? "The class ended" : ending.headline() + ". "
                    + ending.explanation()));
        }, e -> Platform.runLater(() -> left("Could not join: " + Background.said(e))));
    }

    /** Fills the form as a student would: for the tests and the screenshot tour. */
    public void fill(String joinLine, String participant, int count) {
        line.setText(joinLine);
        name.setText(participant);
        workers.show(count);
    }

    private void leave() {
        if (member != null) {
            member.leave();
        }
    }

    private void left(String why) {
        member = null;
        say(why);
        join.setDisable(false);
        leave.setDisable(true);
        line.setDisable(false);
        delays.setDisable(false);
    }

    private void sayLater(String what) {
        Platform.runLater(() -> say(what));
    }

    private void say(String what) {
        heard.getItems().add(Printable.line(what));
        heard.scrollTo(heard.getItems().size() - 1);
    }
}
