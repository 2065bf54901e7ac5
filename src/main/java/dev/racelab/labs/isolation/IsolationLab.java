package dev.racelab.labs.isolation;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.LabProfile;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Service;
import dev.racelab.engine.Switch;
import dev.racelab.engine.view.LabView;
import dev.racelab.isolation.TeachingSpec;
import dev.racelab.labs.support.ProfiledLab;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * PostgreSQL's isolation specs as a lab: a spec's sessions are the lanes, each of their steps is
 * met at the gate {@code next-step}, and a run plays one of the spec's permutations by
 * isolationtester's rules, or the order a user makes by releasing sessions one step at a time.
 *
 * <p>A lab is bound to one spec ({@link SpecSource}): its workers are that spec's sessions, named
 * as the spec names them. The registry's instance runs RaceLab's teaching spec on lost update;
 * {@link #withSpec} gives the lab for another spec (the window's spec list and its open file).
 * Recordings keep what the lanes showed, so any of them replays; running a recording's settings
 * again runs its permutation of the spec bound now.
 */
public final class IsolationLab extends ProfiledLab<IsolationStrategy> {

    public static final String ID = "isolation";
    /** The spec the lab starts with: its first permutation (read committed) loses an update. */
    static final String DEFAULT_SPEC = "p4-lost-update";

    static final Gate NEXT_STEP = new Gate("next-step",
            "the session is about to send its next step: nothing of it has reached the server");

    public static final Switch<Integer> PERMUTATION = Switch.integer("permutation", "Permutation",
            "which of the spec's permutations a run plays, 1 being the first (strategy 'permutation')", "", 1, 1,
            SpecSource.MOST_PERMUTATIONS);

    public static final Switch<Boolean> AS_LOGIN = Switch.flag("as-login", "Run as my login",
            "the spec's sessions log in as your own login, with all of its rights, instead of a role RaceLab makes "
                    + "for the spec that owns only its scratch database: for a spec that needs more than that",
            false);

    private final Backends backends;
    private final SpecSource source;
    /** Bound to a spec a recording carried: it never runs as the user's login, whatever the recording says. */
    private final boolean recorded;

    public IsolationLab(Backends backends) {
        this(backends, SpecSource.of(TeachingSpec.find(DEFAULT_SPEC).orElseThrow()));
    }

    private IsolationLab(Backends backends, SpecSource source) {
        this(backends, source, false);
    }

    private IsolationLab(Backends backends, SpecSource source, boolean recorded) {
        super(IsolationStrategy.class, new LabProfile(ID, "Isolation specs",
                "PostgreSQL's concurrency tests and the classic anomalies: sessions as lanes, steps as gates.",
                Set.of(Service.POSTGRES), List.of(IsolationStrategy.values()), List.of(NEXT_STEP),
                new LabProfile.Crew("session", sessions(source), sessions(source), sessions(source)), 1,
                List.of(PERMUTATION, AS_LOGIN)));
        this.backends = backends;
        this.source = source;
        this.recorded = recorded;
    }

    private static int sessions(SpecSource source) {
        return source.spec().sessions().size();
    }

    /**
     * The same lab, bound to {@code other}, a spec a recording carried: the recording's text is
     * anybody's, so it runs confined (a role that owns only its scratch database), never as the
     * user's own login, whatever switches the recording gives.
     */
    public IsolationLab withRecordedSpec(SpecSource other) {
        return new IsolationLab(backends, other, true);
    }

    @Override
    public Optional<String> refuses(dev.racelab.engine.RunSpec spec) {
        if (recorded && spec.switches().get(AS_LOGIN)) {
            return Optional.of("this spec came from a recording, and a recording's spec runs only as the role RaceLab "
                    + "makes for it, never as your login: run the spec's own file to use --set as-login=true");
        }
        return Optional.empty();
    }

    /** The same lab, bound to {@code other}. */
    public IsolationLab withSpec(SpecSource other) {
        return new IsolationLab(backends, other);
    }

    /** The spec this lab runs. */
    public SpecSource spec() {
        return source;
    }

    /** The spec's text: a recording carries it, so the spec a run played is the one replayed. */
    @Override
    public Optional<String> source() {
        return Optional.of(source.text());
    }

    /** A permutation is played by its conductor; by hand, the sessions go in whatever order they are released. */
    @Override
    public boolean schedulable(Strategy strategy) {
        return strategy == IsolationStrategy.BY_HAND;
    }

    /**
     * A worker is a session of the spec, named as the spec names it. (A window switching specs may
     * ask for a worker of the spec before, past this one's sessions: {@code session-N}.)
     */
    @Override
    public String workerName(int index) {
        List<dev.racelab.isolation.Session> sessions = source.spec().sessions();
        return index < sessions.size() ? sessions.get(index).name() : "session-" + (index + 1);
    }

    @Override
    public int workerIndex(String name, int workers) {
        for (int i = 0; i < Math.min(workers, sessions(source)); i++) {
            if (workerName(i).equals(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    protected Scenario open(IsolationStrategy strategy, RunSetup setup) throws Exception {
        return new IsolationScenario(backends.postgres(), source, strategy, setup);
    }

    @Override
    protected LabView view(IsolationStrategy strategy, RunHeader header) {
        return new IsolationView(header);
    }
}
