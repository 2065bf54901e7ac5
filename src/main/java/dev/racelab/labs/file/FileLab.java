package dev.racelab.labs.file;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Switch;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labfile.LabFile;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A lab a teacher wrote as a file ({@code docs/lab-format.md}), run like a built-in one: its
 * switch {@code strategy} gives the strategies (the first choice, the default, is the one that
 * races), its gates are the engine's gates with the delays the file gives them, and its
 * sessions' workers are named after their session ({@code client-1}, {@code signup-2}).
 */
public final class FileLab implements Lab {

    /** The most workers a one-session lab file runs with {@code --workers}, as a lab file may say. */
    static final int MOST_WORKERS = 1_000;

    /** The switch whose choices are the lab's strategies. */
    static final String STRATEGY = "strategy";

    private final LabFile file;
    private final String text;
    private final Backends backends;
    private final LabProfile profile;
    private final Map<String, Gate> gates = new LinkedHashMap<>();

    /** One choice of the file's {@code strategy} switch, or the one way a file without it runs. */
    record FileStrategy(About about) implements Strategy {
    }

    /** @param text the file's text, as read: the lab's recordings carry it */
    public FileLab(LabFile file, String text, Backends backends) {
        this.file = file;
        this.text = text;
        this.backends = backends;
        for (LabFile.LabSession session : file.sessions()) {
            for (LabFile.Item item : session.items()) {
                if (item instanceof LabFile.Gate gate) {
                    gates.putIfAbsent(gate.name(), gate.crash()
                            ? Gate.fault(gate.name(), "gate " + gate.name() + " of session " + session.name()
                            + ": an armed worker crashes here, its connections cut and nothing cleaned up")
                            : new Gate(gate.name(), "gate " + gate.name() + " of session " + session.name()));
                }
            }
        }
        int workers = file.sessions().stream().mapToInt(LabFile.LabSession::workers).sum();
        // One session: --workers sets how many run it (explore takes two); several: the file says.
        boolean one = file.sessions().size() == 1;
        String story = file.story().isBlank() ? file.title() : file.story().strip().replaceAll("\\s+", " ");
        this.profile = new LabProfile(file.name() + ".lab", file.title(), story, services(file), strategies(file),
                List.copyOf(gates.values()), new LabProfile.Crew(file.sessions().get(0).name(), workers, one ? 1 : workers,
                one ? MOST_WORKERS : workers), uniformOps(file).orElse(file.sessions().stream().mapToInt(LabFile.LabSession::ops).max()
                .orElse(1)), switches(file));
    }

    /** The file's switches but {@code strategy} (which gives the strategies): {@code --set NAME=CHOICE}, the first by default. */
    private static List<Switch<?>> switches(LabFile file) {
        List<Switch<?>> switches = new ArrayList<>();
        for (LabFile.Choice choice : file.switches()) {
            if (!choice.name().equals(STRATEGY)) {
                switches.add(Switch.words(choice.name(), choice.name().replace('_', ' '), "a switch of the file: "
                        + String.join(", ", choice.choices()), choice.choices()));
            }
        }
        return switches;
    }

    /** The choice of switch {@code name} in a run set up as {@code setup}: its strategy, or a switch's word. */
    static String chosen(String name, RunSetup setup, LabProfile profile) {
        if (name.equals(STRATEGY)) {
            return setup.strategy().id();
        }
        return setup.switches().get(profile.switchNamed(name).orElseThrow()) instanceof Switch.Word word ? word.id()
                : null;
    }

    private static Set<Service> services(LabFile file) {
        Set<Service> services = EnumSet.noneOf(Service.class);
        file.blocks().forEach(b -> services.add(b.server() == LabFile.Server.PG ? Service.POSTGRES : Service.REDIS));
        return services;
    }

    private static List<FileStrategy> strategies(LabFile file) {
        Optional<LabFile.Choice> choice = file.switches().stream().filter(s -> s.name().equals(STRATEGY)).findFirst();
        if (choice.isEmpty()) {
            return List.of(new FileStrategy(Strategy.About.broken("as_written", "as written",
                    "the file's steps, as written")));
        }
        List<FileStrategy> strategies = new ArrayList<>();
        for (String id : choice.get().choices()) {
            strategies.add(new FileStrategy(strategies.isEmpty()
                    ? Strategy.About.broken(id, id.replace('_', ' '), "the file's first choice of strategy: the race")
                    : Strategy.About.fix(id, id.replace('_', ' '), "a fix the file offers")));
        }
        return strategies;
    }

    /** The sessions' operations, when they all do as many: then {@code --ops} sets them all. */
    static Optional<Integer> uniformOps(LabFile file) {
        int ops = file.sessions().get(0).ops();
        return file.sessions().stream().allMatch(s -> s.ops() == ops) ? Optional.of(ops) : Optional.empty();
    }

    @Override
    public Optional<String> source() {
        return Optional.of(text);
    }

    /** The file as read. */
    public LabFile file() {
        return file;
    }

    @Override
    public LabProfile profile() {
        return profile;
    }

    @Override
    public GatePlan presetGates() {
        GatePlan plan = GatePlan.NONE;
        int base = 0;
        for (LabFile.LabSession session : file.sessions()) {
            for (LabFile.Item item : session.items()) {
                if (item instanceof LabFile.Gate gate && (gate.delay() != null || gate.crash() && gate.worker() > 0)) {
                    // A crash gate for one worker is armed for it from the start.
                    String[] range = (gate.delay() == null ? "1" : gate.delay()).split("-");
                    GateRule rule = range.length == 1 ? GateRule.fixed(Long.parseLong(range[0]))
                            : GateRule.range(Long.parseLong(range[0]), Long.parseLong(range[1]));
                    plan = gate.worker() == 0 ? plan.with(gate.name(), rule)
                            : plan.with(gate.name(), base + gate.worker() - 1, rule);
                }
            }
            base += session.workers();
        }
        return plan;
    }

    @Override
    public Optional<String> refuses(dev.racelab.engine.RunSpec spec) {
        if (file.sessions().size() > 1 && spec.workers() != profile.crew().usually()) {
            return Optional.of(file.name() + ".lab has " + profile.crew().usually() + " workers in "
                    + file.sessions().size() + " sessions: change them in the file, not with --workers");
        }
        return Optional.empty();
    }


    /** How many workers run {@code session} in a run of {@code total}: all of them when the file has one session. */
    static int workers(LabFile file, LabFile.LabSession session, int total) {
        return file.sessions().size() == 1 ? total : session.workers();
    }

    @Override
    public String workerName(int index) {
        if (file.sessions().size() == 1) {
            return file.sessions().get(0).name() + "-" + (index + 1);
        }
        int base = 0;
        for (LabFile.LabSession session : file.sessions()) {
            if (index < base + session.workers()) {
                return session.name() + "-" + (index - base + 1);
            }
            base += session.workers();
        }
        return "worker-" + (index + 1);
    }

    @Override
    public int workerIndex(String name, int workers) {
        for (int i = 0; i < workers; i++) {
            if (workerName(i).equals(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public dev.racelab.engine.view.LabView view(dev.racelab.engine.RunHeader header) {
        return new FileView(header, file);
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return new FileScenario(file, backends, setup, gates, profile);
    }
}
