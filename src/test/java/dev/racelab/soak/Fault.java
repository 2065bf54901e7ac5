package dev.racelab.soak;

import dev.racelab.engine.Service;

import java.util.Set;

/** What the soak does to one run of RaceLab while it runs. */
enum Fault {
    /** Nothing: the run must end by itself with a verdict, exit 0. */
    NONE("none"),
    /** SIGTERM to RaceLab (what Ctrl-C and a closing terminal send). */
    SIGTERM("sigterm"),
    /** The server the run uses dies: an embedded one gets SIGKILL, an external one's relay is cut. */
    SERVER_KILL("server-kill"),
    /** The server stops answering: an embedded one gets SIGSTOP, an external one's relay freezes. */
    SERVER_FREEZE("server-freeze"),
    /** One PostgreSQL backend of a RaceLab worker dies: SIGKILL (embedded) or pg_terminate_backend (external). */
    BACKEND_KILL("backend-kill");

    private final String label;

    Fault(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    /** Whether the fault hits a server, so the run must end exit 1 naming it (unless it came too late). */
    boolean hitsServer() {
        return this == SERVER_KILL || this == SERVER_FREEZE || this == BACKEND_KILL;
    }

    /** Whether the fault can be done to a lab using {@code services}: a backend kill needs PostgreSQL. */
    boolean fits(Set<Service> services) {
        return this != BACKEND_KILL || services.contains(Service.POSTGRES);
    }
}
