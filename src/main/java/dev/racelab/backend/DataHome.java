package dev.racelab.backend;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Where RaceLab keeps its files: the embedded servers' binaries and data, and the user's
 * settings. {@code RACELAB_HOME} (or the system property {@code racelab.home}) overrides the
 * platform's usual place.
 */
public final class DataHome {

    private DataHome() {
    }

    public static Path resolve(Map<String, String> env) {
        String override = System.getProperty("racelab.home", env.get("RACELAB_HOME"));
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        Path home = Path.of(System.getProperty("user.home"));
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.contains("win")) {
            String local = env.get("LOCALAPPDATA");
            return (local != null ? Path.of(local) : home.resolve("AppData").resolve("Local")).resolve("RaceLab");
        }
        if (os.contains("mac")) {
            return home.resolve("Library").resolve("Application Support").resolve("RaceLab");
        }
        String xdg = env.get("XDG_DATA_HOME");
        return (xdg != null && !xdg.isBlank() ? Path.of(xdg) : home.resolve(".local").resolve("share")).resolve("racelab");
    }

    /**
     * The folder of the user's own lab files, which the window lists beside the built-in labs:
     * {@code RACELAB_LABS} (or the system property {@code racelab.labs}), else beside the data
     * folder — {@code ~/.local/share/racelab-labs}, {@code %LOCALAPPDATA%\RaceLab-labs},
     * {@code ~/Library/Application Support/RaceLab-labs} — not in it, since the data folder may be
     * deleted at any time with nothing lost.
     */
    public static Path labs(Map<String, String> env) {
        String override = System.getProperty("racelab.labs", env.get("RACELAB_LABS"));
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        Path home = resolve(env).toAbsolutePath();
        return home.resolveSibling(home.getFileName() + "-labs");
    }
}
