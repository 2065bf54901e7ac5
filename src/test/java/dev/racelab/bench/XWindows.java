package dev.racelab.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The X display's windows as a user meets them, through {@code xdotool}: which windows are shown
 * under a title, the keyboard given to one of them, keys pressed and text typed there. Without a
 * window manager (Xvfb) no window gets the keyboard by being under the pointer or clicked, so a
 * window is focused explicitly before keys are sent to it, as a window manager would on a click.
 * Titles are matched as POSIX regular expressions by {@code xdotool search}; only shown (viewable)
 * windows count.
 */
final class XWindows {

    /** Whether {@code xdotool} is on the PATH. */
    static boolean available() {
        try {
            return run("xdotool", "version").exit == 0;
        } catch (IOException | InterruptedException missing) {
            if (missing instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return false;
        }
    }

    /** The shown windows whose title matches {@code titleRegex}, as X window ids. */
    List<String> shown(String titleRegex) throws IOException, InterruptedException {
        Result r = run("xdotool", "search", "--onlyvisible", "--name", titleRegex);
        List<String> ids = new ArrayList<>();
        // Exit 1 with no output: nothing matched.
        for (String line : r.out.split("\n")) {
            if (!line.isBlank()) {
                ids.add(line.trim());
            }
        }
        return ids;
    }

    /** Gives {@code window} the keyboard and waits until the server says it has it. */
    void focus(String window) throws IOException, InterruptedException {
        check(run("xdotool", "windowfocus", "--sync", window), "focus window " + window);
    }

    /** Presses and releases each of {@code keys} ({@code ctrl+o}, {@code Return}) in the focused window. */
    void key(String... keys) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("xdotool", "key", "--clearmodifiers"));
        command.addAll(List.of(keys));
        check(run(command.toArray(String[]::new)), "press " + String.join(" ", keys));
    }

    /** Types {@code text} into the focused window, a key at a time. */
    void type(String text) throws IOException, InterruptedException {
        check(run("xdotool", "type", "--delay", "15", text), "type " + text);
    }

    /** Turns the mouse wheel {@code clicks} notches up with Ctrl held, at ({@code x}, {@code y}) in {@code window}. */
    void ctrlWheelUp(String window, int x, int y, int clicks) throws IOException, InterruptedException {
        check(run("xdotool", "mousemove", "--window", window, "--sync", Integer.toString(x), Integer.toString(y),
                "keydown", "ctrl", "click", "--repeat", Integer.toString(clicks), "--delay", "100", "4",
                "keyup", "ctrl"), "turn the wheel in window " + window);
    }

    private record Result(int exit, String out) {
    }

    private static void check(Result r, String what) {
        if (r.exit != 0) {
            throw new IllegalStateException("xdotool could not " + what + ": " + r.out.trim());
        }
    }

    private static Result run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not end within 30 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
