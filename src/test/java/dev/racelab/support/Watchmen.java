package dev.racelab.support;

import java.time.Duration;
import java.util.List;

/**
 * The watchmen a RaceLab child leaves beside its embedded servers (its {@code racelab-guard}
 * shells): a test that means to see what RaceLab itself does when it stops, or what a RaceLab
 * killed outright leaves behind, takes them away first, as a kill of RaceLab's whole process group
 * would; otherwise they would stop the servers and the test could not tell who did.
 */
public final class Watchmen {

    private Watchmen() {
    }

    /** {@code child}'s watchmen, now. */
    public static List<ProcessHandle> of(Child child) {
        return child.process().descendants().filter(process ->
                process.info().commandLine().map(line -> line.contains("racelab-guard")).orElse(false)).toList();
    }

    /**
     * Kills {@code child}'s watchmen once it has {@code servers} of them (a server is watched once
     * RaceLab has it answering, a moment after its pid file says ready); false if it never had.
     */
    public static boolean killOf(Child child, int servers) throws Exception {
        if (!Poll.eventually(Duration.ofSeconds(60), () -> of(child).size() >= servers)) {
            return false;
        }
        List<ProcessHandle> guards = of(child);
        guards.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle guard : guards) {
            guard.onExit().join();
        }
        return true;
    }
}
