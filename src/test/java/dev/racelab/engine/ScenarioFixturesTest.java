package dev.racelab.engine;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A scenario's fixtures explain a failure in the order it made them and are all closed, the last made first. */
@Tag("engine")
class ScenarioFixturesTest {

    private final List<String> said = new ArrayList<>();

    private Fixture fixture(String name, String knows, Exception closing) {
        return new Fixture() {
            @Override
            public Optional<String> explain(Throwable failure) {
                said.add("asked " + name);
                return failure.getMessage().equals(knows) ? Optional.of(name + " explains " + knows) : Optional.empty();
            }

            @Override
            public void close() throws Exception {
                said.add("closed " + name);
                if (closing != null) {
                    throw closing;
                }
            }
        };
    }

    private Scenario scenario(Fixture... fixtures) {
        return new Scenario() {
            @Override
            public LabWorker worker(WorkerContext context) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Outcome judge(RunSummary summary) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<Fixture> fixtures() {
                return List.of(fixtures);
            }
        };
    }

    @Test
    void aFailureIsExplainedByTheFirstFixtureThatKnowsItElseByItsMessage() {
        Scenario scenario = scenario(fixture("postgres", "sql", null), fixture("redis", "redis", null));
        assertEquals("redis explains redis", scenario.explain(new RuntimeException("redis")));
        assertEquals(List.of("asked postgres", "asked redis"), said);
        assertEquals("nobody's", scenario.explain(new RuntimeException("nobody's")));
    }

    @Test
    void everyFixtureIsClosedTheLastMadeFirstEvenWhenOneFails() {
        IllegalStateException redisFailed = new IllegalStateException("redis gone");
        IllegalStateException postgresFailed = new IllegalStateException("postgres gone");
        Scenario scenario = scenario(fixture("postgres", "", postgresFailed), fixture("redis", "", redisFailed));
        Exception thrown = assertThrows(Exception.class, scenario::close);
        assertEquals(List.of("closed redis", "closed postgres"), said);
        assertSame(redisFailed, thrown, "the first failure is thrown");
        assertSame(postgresFailed, thrown.getSuppressed()[0], "the next is kept with it");
    }

    @Test
    void anErrorClosingOneFixtureStillClosesTheOthers() {
        StackOverflowError broke = new StackOverflowError();
        Scenario scenario = scenario(fixture("postgres", "", null), new Fixture() {
            @Override
            public Optional<String> explain(Throwable failure) {
                return Optional.empty();
            }

            @Override
            public void close() {
                said.add("closed redis");
                throw broke;
            }
        });
        assertSame(broke, assertThrows(StackOverflowError.class, scenario::close));
        assertEquals(List.of("closed redis", "closed postgres"), said);
    }
}
