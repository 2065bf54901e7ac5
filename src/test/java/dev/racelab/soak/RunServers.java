package dev.racelab.soak;

import dev.racelab.engine.Service;
import dev.racelab.support.CuttableProxy;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The servers one child RaceLab uses, as the soak finds, watches and harms them.
 *
 * <p><b>Embedded</b> servers are the child's own, under the soak's {@code RACELAB_HOME}. Its Redis
 * is a child process of the RaceLab; its PostgreSQL is not (pg_ctl starts the postmaster detached),
 * so the postmaster is found by its command line: {@code postgres -D <home>/postgres/slot-N/data},
 * started after the child. Nothing outside the soak's home is ever signalled.
 *
 * <p><b>External</b> servers (the machine's) are reached through a {@link CuttableProxy} per
 * service: the relay's connections to the server tell the child's sessions from anyone else's on
 * the shared server, and cutting or freezing the relay stands in for killing or stopping a server
 * others use.
 */
final class RunServers implements AutoCloseable {

    private final Plan plan;
    private final Path home;
    private final External external;
    private final Instant childStarted;
    private final Map<Service, CuttableProxy> proxies = new EnumMap<>(Service.class);
    private final List<Long> frozen = new ArrayList<>();
    private ProcessHandle postmaster;
    private int postgresPort;
    private ProcessHandle redisServer;
    private int redisPort;
    private Connection watching;

    RunServers(Plan plan, Path home, External external, Instant childStarted) throws IOException {
        this.plan = plan;
        this.home = home;
        this.external = external;
        this.childStarted = childStarted;
        if (plan.external()) {
            for (Service service : plan.lab().services()) {
                proxies.put(service, service == Service.POSTGRES
                        ? new CuttableProxy(external.postgres().host(), external.postgres().port())
                        : new CuttableProxy(external.redis().host(), external.redis().port()));
            }
        }
    }

    /** The URLs the child is given: the relays' for external servers; none for embedded ones. */
    Map<Service, String> urls() {
        Map<Service, String> urls = new EnumMap<>(Service.class);
        proxies.forEach((service, proxy) -> {
            String hostPort = service == Service.POSTGRES
                    ? external.postgres().host() + ":" + external.postgres().port()
                    : external.redis().host() + ":" + external.redis().port();
            String secret = service == Service.POSTGRES ? external.postgres().secretUrl() : external.redis().secretUrl();
            urls.put(service, secret.replace(hostPort, "127.0.0.1:" + proxy.port()));
        });
        return urls;
    }

    /**
     * Looks for the child's embedded servers and adds every process that is the child's or its
     * servers' to {@code seen}.
     */
    void look(ProcessHandle child, Processes seen) {
        seen.add(child.descendants());
        if (plan.external()) {
            return;
        }
        if (postmaster == null && plan.lab().services().contains(Service.POSTGRES)) {
            findPostmaster();
        }
        if (postmaster != null) {
            seen.add(postmaster);
            seen.add(postmaster.descendants());
        }
        if (redisServer == null && plan.lab().services().contains(Service.REDIS)) {
            child.descendants().filter(p -> p.info().command().map(c -> c.contains("redis-server")).orElse(false))
                    .findFirst().ifPresent(p -> {
                        int port = redisPort(p);
                        if (port > 0) {
                            redisServer = p;
                            redisPort = port;
                        }
                    });
        }
    }

    /**
     * The postmaster, from the pid file of a slot under the soak's home, once it says the server is
     * ready; believed only if that process runs with that data directory and started after the child.
     */
    private void findPostmaster() {
        Path slots = home.resolve("postgres");
        if (!Files.isDirectory(slots)) {
            return;
        }
        try (var dirs = Files.list(slots)) {
            for (Path slot : dirs.filter(d -> d.getFileName().toString().startsWith("slot-")).toList()) {
                Path data = slot.resolve("data");
                List<String> lines;
                try {
                    lines = Files.readAllLines(data.resolve("postmaster.pid"));
                } catch (IOException | RuntimeException notThere) {
                    continue;
                }
                if (lines.size() < 8 || !lines.get(7).strip().equals("ready")) {
                    continue;
                }
                Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(lines.get(0).strip()));
                boolean ours = process.isPresent()
                        && process.get().info().startInstant().map(s -> !s.isBefore(childStarted.minusSeconds(1))).orElse(false)
                        && process.get().info().arguments().map(a -> dataDirectory(a).equals(data.toString())).orElse(false);
                if (ours) {
                    postmaster = process.get();
                    postgresPort = Integer.parseInt(lines.get(3).strip());
                    return;
                }
            }
        } catch (IOException | RuntimeException notYet) {
            // Looked for again at the next poll.
        }
    }

    private static String dataDirectory(String[] args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("-D")) {
                return args[i + 1];
            }
        }
        return "";
    }

    /**
     * The port an embedded Redis listens on. Redis rewrites its process title to {@code <binary>
     * 127.0.0.1:<port>}, so its {@code --port} argument is gone by the time it answers, and only
     * /proc still shows the title (the JDK reports the executable and no arguments).
     */
    private static int redisPort(ProcessHandle process) {
        try {
            String title = Files.readString(Path.of("/proc", String.valueOf(process.pid()), "cmdline"))
                    .replace('\0', ' ').strip();
            Matcher port = Pattern.compile(":(\\d+)$").matcher(title);
            return port.find() ? Integer.parseInt(port.group(1)) : -1;
        } catch (IOException | RuntimeException notYet) {
            return -1;
        }
    }

    /** Whether the run's embedded servers, if it uses any, have been found. */
    boolean found() {
        if (plan.external()) {
            return true;
        }
        Set<Service> services = plan.lab().services();
        return (!services.contains(Service.POSTGRES) || postmaster != null)
                && (!services.contains(Service.REDIS) || redisServer != null);
    }

    /**
     * Whether {@code name} is a session of one of the run's workers: {@code racelab:client-3} (a
     * PostgreSQL session), {@code racelab:<run>:client-3} or {@code racelab:<run>:client-3:wake-ups}
     * (Redis connections), {@code racelab:pool-…} (a pooled PostgreSQL session).
     */
    private boolean workerSession(String name) {
        if (!name.startsWith("racelab:")) {
            return false;
        }
        List<String> parts = List.of(name.split(":"));
        return plan.sessionNames().stream().anyMatch(worker -> parts.contains(worker.substring("racelab:".length())));
    }

    /** Whether the run's workers have sessions on a server it uses: the run is under way. */
    boolean underWay() {
        for (Service service : plan.lab().services()) {
            try {
                if (service == Service.POSTGRES ? !workerBackends(watchingSession()).isEmpty() : redisWorkersConnected()) {
                    closeWatching();
                    return true;
                }
            } catch (SQLException | RuntimeException notYet) {
                closeWatching();
            }
        }
        return false;
    }

    private Connection watchingSession() throws SQLException {
        if (watching == null) {
            watching = connectPostgres();
        }
        return watching;
    }

    private void closeWatching() {
        if (watching != null) {
            try {
                watching.close();
            } catch (SQLException ignored) {
                // A session to a server that may be dying.
            }
            watching = null;
        }
    }

    /** A session of the soak's own on the run's PostgreSQL: straight to an external one, not through the relay. */
    private Connection connectPostgres() throws SQLException {
        if (plan.external()) {
            return external.connect();
        }
        if (postmaster == null) {
            throw new SQLException("the embedded PostgreSQL is not up yet");
        }
        Properties props = new Properties();
        props.setProperty("user", "postgres");
        props.setProperty("ApplicationName", "soak-harness");
        props.setProperty("connectTimeout", "3");
        props.setProperty("socketTimeout", "5");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + postgresPort + "/postgres", props);
    }

    /** The backend pids of the run's workers' sessions, each with its application_name. */
    private List<Backend> workerBackends(Connection c) throws SQLException {
        String sql = "SELECT pid, application_name, client_port FROM pg_stat_activity "
                + "WHERE (application_name = ANY(?) OR application_name LIKE 'racelab:pool-%')";
        List<Backend> backends = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            Array names = c.createArrayOf("text", plan.sessionNames().toArray());
            ps.setArray(1, names);
            try (ResultSet rs = ps.executeQuery()) {
                Set<Integer> relayed = plan.external() ? proxies.get(Service.POSTGRES).upstreamPorts() : null;
                while (rs.next()) {
                    if (relayed == null || relayed.contains(rs.getInt(3))) {
                        backends.add(new Backend(rs.getInt(1), rs.getString(2)));
                    }
                }
            }
        }
        return backends;
    }

    private record Backend(int pid, String name) {
    }

    /** The embedded Redis's connections when first looked at; -1 until then. */
    private int redisBaseline = -1;

    private boolean redisWorkersConnected() {
        if (!plan.external() && redisServer == null) {
            return false;
        }
        if (!plan.external()) {
            // RaceLab's embedded Redis takes a password only the child knows: its workers are under
            // way once it holds more connections to it than it did before the run began.
            int now = establishedTo(redisPort);
            if (redisBaseline < 0) {
                redisBaseline = now;
            }
            return now > redisBaseline + 1;
        }
        try (Jedis jedis = external.jedis()) {
            Set<Integer> relayed = plan.external() ? proxies.get(Service.REDIS).upstreamPorts() : null;
            for (String client : jedis.clientList().split("\n")) {
                String name = field(client, "name");
                String addr = field(client, "addr");
                boolean worker = workerSession(name);
                int port = addr.isEmpty() ? -1 : Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
                if (worker && (relayed == null || relayed.contains(port))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** How many TCP connections to 127.0.0.1:{@code port} are established on this machine, by {@code /proc/net/tcp}. */
    private static int establishedTo(int port) {
        String local = String.format("0100007F:%04X", port);
        try {
            return (int) Files.readAllLines(Path.of("/proc/net/tcp")).stream().skip(1)
                    .map(line -> line.trim().split("\\s+"))
                    .filter(f -> f.length > 3 && f[1].equals(local) && f[3].equals("01")).count();
        } catch (IOException e) {
            return 0;
        }
    }

    private static String field(String clientLine, String name) {
        for (String pair : clientLine.strip().split(" ")) {
            if (pair.startsWith(name + "=")) {
                return pair.substring(name.length() + 1);
            }
        }
        return "";
    }

    /**
     * Does the plan's server fault now. Returns what was done, in words, or empty if it could not
     * be done (the server is gone already, or the run has no worker session left to kill).
     */
    Optional<String> inflict(Random random) throws Exception {
        Service service = plan.faulted();
        return switch (plan.fault()) {
            case SERVER_KILL -> kill(service);
            case SERVER_FREEZE -> freeze(service);
            case BACKEND_KILL -> killBackend(random);
            case NONE, SIGTERM, START_SIGNAL -> throw new IllegalArgumentException(plan.fault() + " is not a server fault");
        };
    }

    private Optional<String> kill(Service service) {
        if (plan.external()) {
            proxies.get(service).cut();
            return Optional.of("cut the relay to the external " + name(service));
        }
        ProcessHandle server = server(service);
        if (server == null || !server.isAlive()) {
            return Optional.empty();
        }
        server.destroyForcibly();
        return Optional.of("SIGKILL to the embedded " + name(service) + " (pid " + server.pid() + ")");
    }

    private Optional<String> freeze(Service service) throws Exception {
        if (plan.external()) {
            proxies.get(service).freeze();
            return Optional.of("froze the relay to the external " + name(service));
        }
        ProcessHandle server = server(service);
        if (server == null || !server.isAlive()) {
            return Optional.empty();
        }
        // The postmaster first, so it starts nobody new, then every process it runs: a PostgreSQL
        // whose backends still ran would still answer.
        List<Long> pids = new ArrayList<>();
        pids.add(server.pid());
        server.descendants().forEach(p -> pids.add(p.pid()));
        signal("STOP", pids);
        frozen.addAll(pids);
        return Optional.of("SIGSTOP to the embedded " + name(service) + " (" + pids.size() + " processes, pid "
                + server.pid() + ")");
    }

    private Optional<String> killBackend(Random random) throws Exception {
        try (Connection c = connectPostgres()) {
            List<Backend> backends = workerBackends(c);
            if (backends.isEmpty()) {
                return Optional.empty();
            }
            Backend victim = backends.get(random.nextInt(backends.size()));
            if (plan.external()) {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
                    ps.setInt(1, victim.pid());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        return rs.getBoolean(1) ? Optional.of("pg_terminate_backend(" + victim.pid() + ") of "
                                + victim.name() + " on the external PostgreSQL") : Optional.empty();
                    }
                }
            }
            Optional<ProcessHandle> backend = ProcessHandle.of(victim.pid());
            boolean ours = backend.flatMap(ProcessHandle::parent).map(p -> p.pid() == postmaster.pid()).orElse(false);
            if (!ours) {
                return Optional.empty();
            }
            backend.get().destroyForcibly();
            return Optional.of("SIGKILL to backend " + victim.pid() + " of " + victim.name()
                    + " on the embedded PostgreSQL");
        }
    }

    private ProcessHandle server(Service service) {
        return service == Service.POSTGRES ? postmaster : redisServer;
    }

    private static String name(Service service) {
        return service == Service.POSTGRES ? "PostgreSQL" : "Redis";
    }

    /** Lets a frozen embedded server run again, so it can shut down. */
    void thaw() {
        if (!frozen.isEmpty()) {
            try {
                signal("CONT", frozen);
            } catch (Exception e) {
                System.err.println("soak: could not SIGCONT " + frozen + ": " + e.getMessage());
            }
            frozen.clear();
        }
    }

    private static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.forEach(pid -> command.add(String.valueOf(pid)));
        new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    }

    @Override
    public void close() {
        thaw();
        closeWatching();
        proxies.values().forEach(CuttableProxy::close);
    }
}
