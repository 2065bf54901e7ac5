package dev.racelab.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Things a user may name as an output that are not new regular files — a FIFO, a symbolic link, a
 * folder — and what a path is, seen without following it, to check that a refused output was left
 * exactly as it was. Never makes or touches a device node.
 */
public final class OddFiles {

    private OddFiles() {
    }

    /** Makes a FIFO (named pipe) at {@code path} with the system's {@code mkfifo}. */
    public static Path fifo(Path path) throws Exception {
        Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS), "mkfifo " + path + " never ended");
        assertEquals(0, mkfifo.exitValue(), "mkfifo " + path + ": "
                + new String(mkfifo.getInputStream().readAllBytes()));
        return path;
    }

    /**
     * What {@code path} is, without following a link: its inode, type and mode, device numbers, and
     * for a link what it points at, for a regular file its bytes. Equal snapshots: left as it was.
     */
    public static String snapshot(Path path) throws IOException {
        Map<String, Object> unix = Files.readAttributes(path, "unix:mode,ino,dev,rdev,nlink",
                LinkOption.NOFOLLOW_LINKS);
        String what = "mode=" + Integer.toOctalString((Integer) unix.get("mode")) + " ino=" + unix.get("ino")
                + " dev=" + unix.get("dev") + " rdev=" + unix.get("rdev") + " nlink=" + unix.get("nlink");
        if (Files.isSymbolicLink(path)) {
            return what + " -> " + Files.readSymbolicLink(path);
        }
        if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return what + " bytes=" + Arrays.hashCode(Files.readAllBytes(path)) + "/" + Files.size(path);
        }
        return what;
    }

    /** The hidden files in {@code folder}: a temporary file left behind would be one. */
    public static List<Path> hidden(Path folder) throws IOException {
        try (var listing = Files.list(folder)) {
            return listing.filter(p -> p.getFileName().toString().startsWith(".")).toList();
        }
    }
}
