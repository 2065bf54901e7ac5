package dev.racelab.ui.shell;

import dev.racelab.engine.Service;
import dev.racelab.ui.model.Session;
import dev.racelab.ui.exports.ExportFiles;
import dev.racelab.ui.recordings.RecordingFiles;
import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.RadioMenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.ToggleGroup;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;

/**
 * The window's menu bar (File, View, Class, Help): each item hands its command to the window or to the
 * part of it that does the job. Its presenter and dark-theme items are bound to the window's
 * {@link Presentation}.
 */
final class WindowMenu extends MenuBar {

    WindowMenu(MainView window, Session session, ControlBar controls, WalkthroughSteps walkthroughs) {
        RecordingFiles recordings = window.recordings();
        ExportFiles exports = window.exports();
        MenuItem open = new MenuItem("Open recording…");
        open.setAccelerator(new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN));
        open.setOnAction(e -> recordings.chooseAndOpen());
        open.disableProperty().bind(recordings.busyProperty());
        MenuItem openLab = new MenuItem("Open lab file…");
        openLab.setAccelerator(new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN));
        openLab.setOnAction(e -> window.labFiles().chooseAndOpen());
        MenuItem save = new MenuItem("Save recording…");
        save.setAccelerator(new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN));
        save.setOnAction(e -> recordings.chooseAndSave());
        save.disableProperty().bind(session.commands().canSave().not().or(recordings.busyProperty()));
        MenuItem again = new MenuItem("Run these settings again");
        again.setAccelerator(new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN));
        again.setOnAction(e -> session.runAgain());
        again.disableProperty().bind(session.commands().canRunAgain().not());
        MenuItem batchOfRuns = new MenuItem("Batch of runs…");
        batchOfRuns.setAccelerator(new KeyCodeCombination(KeyCode.B, KeyCombination.SHORTCUT_DOWN));
        batchOfRuns.setOnAction(e -> controls.batch.fire());
        MenuItem explore = new MenuItem("Explore every interleaving…");
        explore.setAccelerator(new KeyCodeCombination(KeyCode.E, KeyCombination.SHORTCUT_DOWN));
        explore.setOnAction(e -> controls.explore.fire());
        Menu export = exportMenu(exports);
        MenuItem servers = new MenuItem("PostgreSQL server…");
        servers.setOnAction(e -> window.askForServer(Service.POSTGRES, null));
        MenuItem redis = new MenuItem("Redis server…");
        redis.setOnAction(e -> window.askForServer(Service.REDIS, null));
        MenuItem quit = new MenuItem("Quit");
        quit.setAccelerator(new KeyCodeCombination(KeyCode.Q, KeyCombination.SHORTCUT_DOWN));
        quit.setOnAction(e -> window.getScene().getWindow().hide());
        Menu file = new Menu("File", null, open, openLab, save, again, batchOfRuns, explore, new SeparatorMenuItem(), export,
                new SeparatorMenuItem(), servers, redis,
                new SeparatorMenuItem(), quit);

        MenuItem larger = new MenuItem("Larger text");
        larger.setAccelerator(new KeyCodeCombination(KeyCode.EQUALS, KeyCombination.SHORTCUT_DOWN));
        Presentation looks = window.presentation();
        larger.setOnAction(e -> looks.setTextScale(looks.textScale() * 1.15));
        MenuItem smaller = new MenuItem("Smaller text");
        smaller.setAccelerator(new KeyCodeCombination(KeyCode.MINUS, KeyCombination.SHORTCUT_DOWN));
        smaller.setOnAction(e -> looks.setTextScale(looks.textScale() / 1.15));
        CheckMenuItem presenter = new CheckMenuItem("Presenter mode (projector)");
        presenter.setAccelerator(new KeyCodeCombination(KeyCode.P, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN));
        presenter.selectedProperty().bindBidirectional(looks.presenter());
        presenter.setId("presenter-mode");
        CheckMenuItem dark = new CheckMenuItem("Dark theme");
        dark.setAccelerator(new KeyCodeCombination(KeyCode.D, KeyCombination.SHORTCUT_DOWN,
                KeyCombination.SHIFT_DOWN));
        dark.selectedProperty().bindBidirectional(looks.dark());
        MenuItem blank = new MenuItem("Blank the screen (B in presenter mode)");
        blank.setOnAction(e -> looks.blank());
        MenuItem fit = new MenuItem("Show the whole run");
        fit.setAccelerator(new KeyCodeCombination(KeyCode.DIGIT0, KeyCombination.SHORTCUT_DOWN));
        fit.setOnAction(e -> window.timeline().fit());
        MenuItem follow = new MenuItem("Follow live");
        follow.setAccelerator(new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN));
        follow.setOnAction(e -> window.timeline().followLiveProperty().set(true));
        Menu viewMenu = new Menu("View", null, presenter, dark, blank, new SeparatorMenuItem(), larger, smaller,
                new SeparatorMenuItem(), fit, follow);

        MenuItem host = new MenuItem("Host a class…");
        host.setAccelerator(new KeyCodeCombination(KeyCode.H, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
        host.setOnAction(e -> window.openHost());
        MenuItem join = new MenuItem("Join a class…");
        join.setAccelerator(new KeyCodeCombination(KeyCode.J, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
        join.setOnAction(e -> window.openJoin());
        Menu classes = new Menu("Class", null, host, join);

        MenuItem keys = new MenuItem("Keyboard shortcuts");
        keys.setAccelerator(new KeyCodeCombination(KeyCode.F1));
        keys.setOnAction(e -> WindowKeys.showAll(window.getScene().getWindow()));
        MenuItem guide = new MenuItem("Walkthrough of this lab");
        guide.setAccelerator(new KeyCodeCombination(KeyCode.F2));
        guide.setOnAction(e -> window.openWalkthrough(session.lab() == null ? null : session.lab().id()));
        MenuItem guideFile = new MenuItem("Open a walkthrough file…");
        guideFile.setOnAction(e -> walkthroughs.choose());
        Menu help = new Menu("Help", null, guide, guideFile, new SeparatorMenuItem(), keys);
        getMenus().addAll(file, viewMenu, classes, help);
        setUseSystemMenuBar(true);
    }

    /**
     * File ▸ Export: the timeline (as shown, or whole) and the lab's picture as PNG or SVG, the
     * events as CSV, the run as a Chrome trace; PNG's scale. What the shown run cannot give is
     * greyed when the menu opens.
     */
    private static Menu exportMenu(ExportFiles exports) {
        Menu menu = new Menu("Export");
        for (ExportFiles.Kind kind : ExportFiles.Kind.values()) {
            MenuItem item = new MenuItem(kind.words());
            item.setOnAction(e -> exports.chooseAndExport(kind));
            item.setUserData(kind);
            menu.getItems().add(item);
            if (kind == ExportFiles.Kind.PICTURE_SVG) {
                menu.getItems().add(new SeparatorMenuItem());
            }
        }
        menu.getItems().add(new SeparatorMenuItem());
        ToggleGroup scales = new ToggleGroup();
        Menu scale = new Menu("PNG scale");
        for (int pixels = 1; pixels <= 4; pixels++) {
            int chosen = pixels;
            RadioMenuItem item = new RadioMenuItem(pixels + "×" + (pixels == 2 ? " (sharp on most projectors)" : ""));
            item.setToggleGroup(scales);
            item.setSelected(pixels == exports.scale());
            item.setOnAction(e -> exports.scale(chosen));
            scale.getItems().add(item);
        }
        menu.getItems().add(scale);
        menu.setOnShowing(e -> menu.getItems().forEach(item -> {
            if (item.getUserData() instanceof ExportFiles.Kind kind) {
                item.setDisable(exports.busyProperty().get() || !exports.canExport(kind));
            }
        }));
        return menu;
    }
}
