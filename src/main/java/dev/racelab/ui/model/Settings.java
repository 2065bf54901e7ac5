package dev.racelab.ui.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;

/**
 * What the window remembers between launches, in {@code settings.properties} under RaceLab's
 * data directory: the server addresses the user chose (without the password unless they asked
 * to keep it), the text size, the last lab and the last folder of recordings. A broken file is set
 * aside and the defaults used.
 */
public final class Settings {

    public static final String POSTGRES_URL = "postgres.url";
    public static final String REDIS_URL = "redis.url";
    public static final String TEXT_SCALE = "text.scale";
    public static final String THEME = "theme";
    public static final String LAB = "lab";
    /** The folder the recording choosers last used. */
    public static final String RECORDING_FOLDER = "recordings.folder";
    /** The folder of the user's own lab files, if not the usual one beside the data folder. */
    public static final String LAB_FOLDER = "labs.folder";
    /** Where the last lab file was opened from. */
    public static final String LAB_FILE_FOLDER = "labs.opened-from";

    private final Path file;
    private final Properties values = new Properties();
    private String problem;

    public Settings(Path file) {
        this.file = file;
        if (Files.exists(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                values.load(in);
            } catch (IOException | IllegalArgumentException e) {
                problem = "Your settings could not be read (" + e.getMessage() + "); RaceLab starts with defaults "
                        + "and kept the old file as " + file.getFileName() + ".broken.";
                try {
                    Files.move(file, file.resolveSibling(file.getFileName() + ".broken"),
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException ignored) {
                    // The defaults still apply; the message above says what happened.
                }
            }
        }
    }

    public Optional<String> get(String key) {
        return Optional.ofNullable(values.getProperty(key)).filter(v -> !v.isBlank());
    }

    /** Sets or (with null) removes a value and saves the file at once. */
    public void put(String key, String value) {
        if (value == null) {
            values.remove(key);
        } else {
            values.setProperty(key, value);
        }
        save();
    }

    /** Why the saved settings were not used, or null. */
    public String problem() {
        return problem;
    }

    private void save() {
        try {
            Files.createDirectories(file.getParent());
            Path partial = file.resolveSibling(file.getFileName() + ".part");
            try (OutputStream out = Files.newOutputStream(partial)) {
                values.store(out, "RaceLab settings");
            }
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            restrictToOwner(file);
        } catch (IOException e) {
            problem = "Your settings could not be saved: " + e.getMessage();
        }
    }

    private static void restrictToOwner(Path path) {
        try {
            Files.setPosixFilePermissions(path, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | UnsupportedOperationException ignored) {
            // Not a POSIX file system: the platform's own defaults apply.
        }
    }
}
