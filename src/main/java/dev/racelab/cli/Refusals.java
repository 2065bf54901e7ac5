package dev.racelab.cli;

import dev.racelab.backend.Backends;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Service;
import dev.racelab.engine.lab.Lab;

import java.util.Optional;

/** A lab that cannot run on the servers chosen is refused before any server is touched: bad usage, exit 2. */
final class Refusals {

    private Refusals() {
    }

    /**
     * @throws UsageException naming the lab and what it needs, if the servers chosen cannot serve
     *                        it, or it will not run {@code spec} on them
     */
    static void check(Lab lab, Backends backends, RunSpec spec) throws UsageException {
        for (Service service : lab.services()) {
            Optional<String> refused = backends.refusal(service);
            if (refused.isPresent()) {
                throw new UsageException("lab " + lab.id() + ": " + refused.get());
            }
        }
        Optional<String> refused = lab.refuses(spec);
        if (refused.isPresent()) {
            throw new UsageException("lab " + lab.id() + ": " + refused.get());
        }
    }
}
