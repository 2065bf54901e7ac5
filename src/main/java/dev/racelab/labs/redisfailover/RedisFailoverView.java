package dev.racelab.labs.redisfailover;

import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.DefaultView;

/** For now the default view: the workers, the violations. */
final class RedisFailoverView extends DefaultView {

    RedisFailoverView(RunHeader header) {
        super(header);
    }
}
