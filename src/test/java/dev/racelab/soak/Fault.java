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
    BACKEND_KILL("backend-kill"),
    /**
     * SIGTERM or SIGINT to RaceLab while its embedded servers are being set up or started (in a
     * fresh data home for some runs, so the first set-up, unpack and initdb, is signalled too).
     */
    START_SIGNAL("start-signal");

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

    /**
     * Whether the fault can be done to a lab using {@code services} on embedded or {@code external}
     * servers: a backend kill needs PostgreSQL, a signal during start-up servers RaceLab starts.
     */
    boolean fits(Set<Service> services, boolean external) {
        return switch (this) {
            case BACKEND_KILL -> services.contains(Service.POSTGRES);
            case START_SIGNAL -> !external;
            default -> true;
        };
    }

    /** Whether the fault is a signal to RaceLab, so the summary must say it was interrupted. */
    boolean signals() {
        return this == SIGTERM || this == START_SIGNAL;
    }
}
