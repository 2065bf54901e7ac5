package dev.racelab.engine;

import dev.racelab.engine.view.DefaultView;
import dev.racelab.engine.view.LabView;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A concurrency lab: a shared resource, workers that use it, strategies from broken to fixed,
 * gates to provoke the race, and an oracle that names what went wrong.
 *
 * <p>The engine and the shells (command line, window) know labs only through this interface;
 * adding a lab means one implementation and one line in the registry.
 */
public interface Lab {

    /** What the command line calls it: {@code counter}. */
    String id();

    /** A title for the window's list: "Lost increments". */
    String title();

    /** One line telling the lab's story. */
    String story();

    /** The servers its workers talk to. */
    Set<Service> services();

    /** Its strategies: broken ones first, the default ({@link #defaultStrategy()}) among them. */
    List<Strategy> strategies();

    /** The named points in the worker script where delays and breakpoints can be set. */
    List<Gate> gates();

    /** What a worker is called: {@code client}, {@code philosopher}. Workers are {@code role-1 … role-N}. */
    String workerRole();

    int defaultWorkers();

    int defaultOps();

    /** The largest number of workers the lab supports. */
    int maxWorkers();

    /** The smallest number of workers that makes sense. */
    default int minWorkers() {
        return 1;
    }

    /** Opens a run: creates its server state fresh, ready for workers. */
    Scenario open(RunSetup setup) throws Exception;

    /**
     * The lab's live panels and picture for {@code run}, fed from the run's events. The window
     * asks once per run; labs without a view of their own get the {@link DefaultView}.
     */
    default LabView view(Run run) {
        return new DefaultView(run);
    }

    /** The strategy a run uses when none is named: the first broken one. */
    default Strategy defaultStrategy() {
        return strategies().stream().filter(Strategy::broken).findFirst().orElse(strategies().get(0));
    }

    default Optional<Strategy> strategy(String id) {
        return strategies().stream().filter(s -> s.id().equals(id)).findFirst();
    }

    default Optional<Gate> gate(String id) {
        return gates().stream().filter(g -> g.id().equals(id)).findFirst();
    }

    /** The name of worker {@code index} (0-based): {@code client-1} for index 0. */
    default String workerName(int index) {
        return workerRole() + "-" + (index + 1);
    }

    /** The index of the worker called {@code name}, or -1. */
    default int workerIndex(String name, int workers) {
        String prefix = workerRole() + "-";
        if (!name.startsWith(prefix)) {
            return -1;
        }
        try {
            int number = Integer.parseInt(name.substring(prefix.length()));
            return number >= 1 && number <= workers ? number - 1 : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
