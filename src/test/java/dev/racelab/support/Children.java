package dev.racelab.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The child RaceLabs one test starts. A test holds one in a field and closes it in
 * {@code @AfterEach}: every child is {@linkplain Child#stop stopped}, with the servers it left,
 * whether the test passed, failed or timed out.
 */
public final class Children implements AutoCloseable {

    private final List<Child> started = new ArrayList<>();

    /** {@code java -jar racelab.jar ARGS}, see {@link Child#jar}. */
    public Child jar(Map<String, String> env, String... args) throws IOException {
        Child child = Child.jar(env, args);
        started.add(child);
        return child;
    }

    /** {@code scripts/racelab ARGS}, see {@link Child#script}. */
    public Child script(Map<String, String> env, String... args) throws IOException {
        Child child = Child.script(env, args);
        started.add(child);
        return child;
    }

    /** {@code command}, a RaceLab started some other way (a JVM option, another launcher), see {@link Child#start}. */
    public Child start(List<String> command, Map<String, String> env) throws IOException {
        Child child = Child.start(command, env);
        started.add(child);
        return child;
    }

    /** The children started so far, oldest first. */
    public List<Child> all() {
        return List.copyOf(started);
    }

    @Override
    public void close() {
        started.forEach(Child::stop);
        started.clear();
    }
}
