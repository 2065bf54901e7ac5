package dev.racelab.ui.classroom;

import dev.racelab.backend.Backends;
import dev.racelab.classroom.ClassHost;
import dev.racelab.engine.Run;
import dev.racelab.ui.look.Themes;
import dev.racelab.ui.model.Session;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextField;
import javafx.scene.image.ImageView;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.util.Duration;

import java.nio.file.Path;

/**
 * Class ▸ Host a class: the class's code, large, its join line and a QR code of it for the
 * students; who joined, with their clocks, and once a run goes, the leaderboard ({@link
 * Leaderboard}); Start, Pause, Stop and End the class. The run itself shows in the main window,
 * whose run commands go to the class while it is hosted ({@link Session#host}); presenter mode
 * shows it on the projector. Closing this window ends the class. Owned by the FX thread.
 */
public final class HostWindow implements HostedClass.Listener {

    private static final int QR_PIXELS = 320;

    private final Stage stage = new Stage();
    private final Session session;
    private final String classLabs;
    private final Label code = new Label("······");
    private final TextField line = new TextField();
    private final Button copy = new Button("Copy");
    private final ImageView qr = new ImageView();
    private final Leaderboard board = new Leaderboard();
    private final Button start = new Button("Start the run");
    private final Button pause = new Button("Pause");
    private final Button stop = new Button("Stop");
    private final CheckBox keepDelays = new CheckBox("Only the host's delays count");
    private final Button end = new Button("End the class");
    private final Label status = new Label("Opening the class on the servers…");
    private final ProgressIndicator busy = new ProgressIndicator();
    private final Timeline follow;
    private final HostedClass hosted;
    private ClassHost host;
    /** Each participant's part in the run going on, or the last one. */
    private java.util.List<dev.racelab.classroom.Ledger.Part> lastParts = java.util.List.of();
    private boolean notReadySaid;
    private boolean closed;

    /**
     * @param classLabs the labs a class can run, in words
     */
    public HostWindow(Window owner, Session session, Backends servers, Path home,
                      String classLabs) {
        this.session = session;
        this.classLabs = classLabs;
        stage.initOwner(owner);
        stage.setTitle("Class — RaceLab");
        code.getStyleClass().add("class-code");
        code.setId("class-code");
        line.setEditable(false);
        line.setId("class-join-line");
        line.setPromptText("the join line appears once the class is open");
        HBox.setHgrow(line, Priority.ALWAYS);
        copy.setDisable(true);
        copy.setOnAction(e -> {
            ClipboardContent content = new ClipboardContent();
            content.putString(line.getText());
            Clipboard.getSystemClipboard().setContent(content);
            status.setText("The join line is on the clipboard: pass it to the students");
        });
        Label how = new Label("Students join with RaceLab's Class ▸ Join a class…, pasting this line or scanning the code:");
        how.setWrapText(true);
        VBox joining = new VBox(10, labelled("Class", code), how, new HBox(8, line, copy), qr);
        joining.setPadding(new Insets(16));
        joining.setMinWidth(QR_PIXELS + 40);
        joining.setPrefWidth(460);

        Label heading = new Label("Who joined, and who lost whose update");
        heading.getStyleClass().add("lab-heading");
        VBox people = new VBox(8, heading, board);
        VBox.setVgrow(board, Priority.ALWAYS);
        people.setPadding(new Insets(16));
        HBox.setHgrow(people, Priority.ALWAYS);

        start.setId("class-start");
        start.setDefaultButton(true);
        start.setOnAction(e -> session.start());
        pause.setId("class-pause");
        pause.setOnAction(e -> {
            if (session.stateProperty().get() == dev.racelab.engine.RunPhase.PAUSED) {
                session.start();
            } else {
                session.pause();
            }
        });
        stop.setId("class-stop");
        stop.setOnAction(e -> session.stop());
        end.setId("class-end");
        end.setOnAction(e -> stage.hide());
        busy.setPrefSize(22, 22);
        Region gap = new Region();
        HBox.setHgrow(gap, Priority.ALWAYS);
        HBox buttons = new HBox(10, start, pause, stop, keepDelays, gap, busy, end);
        buttons.setAlignment(Pos.CENTER_LEFT);
        status.setId("class-status");
        status.setWrapText(true);
        VBox bottom = new VBox(8, buttons, status);
        bottom.setPadding(new Insets(10, 16, 14, 16));
        bottom.getStyleClass().add("control-bar");

        BorderPane root = new BorderPane(people, null, null, bottom, joining);
        root.getStyleClass().add("main-view");
        Scene scene = new Scene(root, 1180, 640);
        Themes.follow(scene, owner.getScene());
        stage.setScene(scene);
        stage.setOnHidden(e -> close());
        hosted = HostedClass.open(servers, home, () -> session.lab().id(), this);
        keepDelays.setOnAction(e -> hosted.keepDelays(keepDelays.isSelected()));
        session.host(hosted);
        follow = new Timeline(new KeyFrame(Duration.millis(250), e -> refresh()));
        follow.setCycleCount(Timeline.INDEFINITE);
        follow.play();
        refresh();
    }

    private static VBox labelled(String what, Label value) {
        Label caption = new Label(what);
        caption.getStyleClass().add("strategy-summary");
        return new VBox(0, caption, value);
    }

    public void show() {
        stage.show();
        stage.toFront();
    }

    public Stage stage() {
        return stage;
    }

    /** The class once it is open (the tests read its join line); null before and after. */
    public ClassHost host() {
        return host;
    }

    /** The leaderboard's rows as shown. */
    public Leaderboard leaderboard() {
        return board;
    }

    private void refresh() {
        boolean open = host != null && !closed;
        boolean running = open && hosted.running();
        var phase = session.stateProperty().get();
        boolean live = running && phase != null && phase.live();
        // The ledger is walked while a run goes on; an ended run's parts are kept as it ended.
        if (running) {
            lastParts = host.parts();
        }
        board.show(open ? host.participants() : java.util.List.of(), lastParts);
        boolean classReady = session.lab() != null && session.lab().classReady();
        start.setDisable(!open || running || board.getItems().isEmpty() || !classReady);
        start.setText(session.lab() == null ? "Start the run" : "Start the run: " + session.lab().title()
                + ", " + session.strategyProperty().get().title());
        pause.setDisable(!live);
        pause.setText(phase == dev.racelab.engine.RunPhase.PAUSED ? "Resume" : "Pause");
        stop.setDisable(!live);
        keepDelays.setDisable(!open || running);
        busy.setVisible(!closed && (host == null || running));
        // Said once when it becomes so: the status keeps what else was said meanwhile.
        if (open && !running && !classReady && !notReadySaid) {
            status.setText("A class runs " + classLabs + ": choose one in the main window");
        }
        notReadySaid = open && !running && !classReady;
    }

    @Override
    public void opened(ClassHost opened) {
        if (closed) {
            return;
        }
        host = opened;
        code.setText(opened.code().toString());
        line.setText(opened.joinLine().text());
        copy.setDisable(false);
        qr.setImage(QrImage.of(opened.joinLine().text(), QR_PIXELS));
        status.setText("The class is open: students join with the line or the code on the left");
        refresh();
    }

    @Override
    public void said(String what) {
        status.setText(what);
    }

    @Override
    public void started(Run run) {
        if (closed) {
            return;
        }
        session.watch(run, false);
    }

    @Override
    public void ended(ClassHost.Hosted ended) {
        lastParts = ended.parts();
        long unnamed = ended.unnamed();
        status.setText(ended.record().outcome().banner() + (unnamed == 0 ? ""
                : " (" + Math.abs(unnamed) + (unnamed > 0 ? " not named" : " named too many")
                        + " on the leaderboard: some events did not reach the host)"));
        refresh();
    }

    @Override
    public void closed(String why) {
        closed = true;
        host = null;
        session.hostEnded(hosted);
        follow.stop();
        refresh();
        if (why != null) {
            status.setText(why);
            code.setText("—");
            line.clear();
            qr.setImage(null);
        } else {
            stage.hide();
        }
    }

    /** Ends the class (closing the window does too): a run going on is stopped and judged first. */
    public void close() {
        closed = true;
        session.hostEnded(hosted);
        hosted.close();
    }

    /** Waits up to {@code within} for the class to be gone from the servers (quitting); whether it is. */
    public boolean awaitGone(java.time.Duration within) throws InterruptedException {
        return hosted.awaitGone(within);
    }
}
