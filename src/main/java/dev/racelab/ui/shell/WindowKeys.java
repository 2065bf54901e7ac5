package dev.racelab.ui.shell;

import dev.racelab.ui.walkthrough.WalkthroughBar;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.ComboBoxBase;
import javafx.scene.control.Spinner;
import javafx.scene.control.TextInputControl;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.KeyEvent;
import javafx.stage.Window;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * The window's keys. The ones a teacher presses in front of a class (Run, Step, the walkthrough's
 * Next and Back as a presentation clicker sends them) act wherever the keyboard focus happens to
 * be: a filter on the scene catches them before the focused control sees them. As accelerators
 * they came last, after the lab list had taken Page Down to choose the next lab and F2 to edit a
 * cell, and after the menu bar, which puts its own F10 among the scene's accelerators, had opened
 * the File menu with the Step key. What a key does in a text field (←, →, B) it keeps there. A
 * button fires only while it is enabled. Owned by the FX thread.
 */
final class WindowKeys {

    /**
     * What the keys do: the window's commands.
     *
     * @param openWalkthrough the walkthrough of the lab shown (F2)
     * @param closeWalkthrough closes the walkthrough and lets go of what it pointed at (Esc)
     * @param walkMarks walks the timeline's violations, -1 or +1 (F7, F8)
     * @param presenting whether presenter mode is on: B blanks the screen then
     * @param blank blanks the screen, or brings it back (B in presenter mode)
     */
    record Commands(Runnable openWalkthrough, Runnable closeWalkthrough, IntConsumer walkMarks,
            BooleanSupplier presenting, Runnable blank) {
    }

    private final ControlBar controls;
    private final WalkthroughBar walkthrough;
    private final Commands commands;
    private final IntConsumer stepWorker;

    WindowKeys(ControlBar controls, WalkthroughBar walkthrough, IntConsumer stepWorker, Commands commands) {
        this.controls = controls;
        this.walkthrough = walkthrough;
        this.stepWorker = stepWorker;
        this.commands = commands;
    }

    /** The keys and what each does, in the order the shortcuts dialog lists them. */
    private Map<KeyCombination, Runnable> keys() {
        Map<KeyCombination, Runnable> keys = new LinkedHashMap<>();
        keys.put(new KeyCodeCombination(KeyCode.F5), controls.run::fire);
        keys.put(new KeyCodeCombination(KeyCode.F6), controls.pause::fire);
        keys.put(new KeyCodeCombination(KeyCode.F10), controls.step::fire);
        // A clicker's "next": the walkthrough's next step when one is open, else Step.
        keys.put(new KeyCodeCombination(KeyCode.PAGE_DOWN), () -> {
            if (walkthrough.isOpen()) {
                walkthrough.move(1);
            } else {
                controls.step.fire();
            }
        });
        for (int n = 1; n <= 9; n++) {
            int index = n - 1;
            keys.put(new KeyCodeCombination(KeyCode.getKeyCode(String.valueOf(n)), KeyCombination.ALT_DOWN),
                    () -> stepWorker.accept(index));
        }
        keys.put(new KeyCodeCombination(KeyCode.F5, KeyCombination.SHIFT_DOWN), controls.stop::fire);
        keys.put(new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN), controls.reset::fire);
        keys.put(new KeyCodeCombination(KeyCode.F7), () -> commands.walkMarks().accept(-1));
        keys.put(new KeyCodeCombination(KeyCode.F8), () -> commands.walkMarks().accept(1));
        keys.put(new KeyCodeCombination(KeyCode.F2), commands.openWalkthrough());
        return keys;
    }

    /** Catches the keys on {@code scene} before any control does. */
    void install(Scene scene) {
        Map<KeyCombination, Runnable> keys = keys();
        scene.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            for (Map.Entry<KeyCombination, Runnable> key : keys.entrySet()) {
                if (key.getKey().match(e)) {
                    key.getValue().run();
                    e.consume();
                    return;
                }
            }
            if (onlyWhere(e)) {
                e.consume();
            }
        });
    }

    /**
     * Whether the user is typing: into a text field, an editable spinner or combo box (whose editor
     * hands its key events to the control), or a table cell being edited; the arrows, B and Esc
     * are then theirs (the cursor, a letter, cancelling the edit).
     */
    private static boolean typing(KeyEvent e) {
        Node focus = e.getSource() instanceof Scene scene ? scene.getFocusOwner() : null;
        return typingInto(e.getTarget()) || typingInto(focus);
    }

    private static boolean typingInto(Object control) {
        return control instanceof TextInputControl
                || control instanceof Spinner<?> spinner && spinner.isEditable()
                || control instanceof ComboBoxBase<?> box && box.isEditable();
    }

    /** The keys that act only in some states, and not on a text field's own keys; whether {@code e} was one. */
    private boolean onlyWhere(KeyEvent e) {
        boolean typing = typing(e);
        boolean plain = !e.isShortcutDown() && !e.isAltDown() && !e.isShiftDown();
        if (walkthrough.isOpen() && e.getCode() == KeyCode.PAGE_UP && plain) {
            walkthrough.move(-1);
            return true;
        }
        if (walkthrough.isOpen() && !typing && plain && (e.getCode() == KeyCode.RIGHT || e.getCode() == KeyCode.LEFT)) {
            walkthrough.move(e.getCode() == KeyCode.RIGHT ? 1 : -1);
            return true;
        }
        if (walkthrough.isOpen() && !typing && e.getCode() == KeyCode.ESCAPE) {
            commands.closeWalkthrough().run();
            return true;
        }
        // B blanks the screen in presenter mode, as presentation software does (clickers send it too).
        if (commands.presenting().getAsBoolean() && !typing && plain && e.getCode() == KeyCode.B) {
            commands.blank().run();
            return true;
        }
        return false;
    }

    /** The list of keys, for Help ▸ Keyboard shortcuts. */
    static void showAll(Window owner) {
        Alert alert = new Alert(Alert.AlertType.INFORMATION);
        alert.initOwner(owner);
        alert.setTitle("Keyboard shortcuts");
        alert.setHeaderText("Keyboard shortcuts");
        alert.setContentText("""
                F5 — Run / Resume / Run again
                F6 — Pause (every worker halts at its next gate)
                F10 or Page Down — Step the selected worker (clickers send Page Down)
                Alt+1 … Alt+9 — Step worker 1 … 9
                Shift+F5 — Stop        Ctrl+R — Reset
                F2 — Walkthrough of this lab: Page Down / Page Up or → / ← move through it, Esc closes it
                Ctrl+O — Open a recording (or drop it on the window)    Ctrl+S — Save the run shown
                Ctrl+Shift+R — Run these settings again (a recording's, live)
                F7 / F8 — Previous / next violation on the timeline
                Ctrl+0 — Whole run     Ctrl+L — Follow live
                Ctrl + mouse wheel — Zoom      Shift + mouse wheel or drag — Pan
                Ctrl+= / Ctrl+- — Larger / smaller text    Ctrl+Shift+P — Presenter size
                Ctrl+Shift+H — Host a class    Ctrl+Shift+J — Join a class (then F5, F6, Shift+F5 drive the class)
                (Run, Step and the walkthrough's keys work wherever the keyboard focus is.)""");
        alert.show();
    }
}
