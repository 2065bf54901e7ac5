package dev.racelab.tasks;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The window's background work loses no failure, an Error included, and leaves its threads clean. */
@Tag("engine")
class BackgroundTest {

    private static final long WAIT_SECONDS = 30;

    @Test
    void anErrorAJobThrowsReachesItsHandlerOnAThreadNamedForTheJob() throws Exception {
        CompletableFuture<String> seen = new CompletableFuture<>();
        StackOverflowError thrown = new StackOverflowError();
        Background.run("a-job", () -> {
            throw thrown;
        }, e -> seen.complete(Thread.currentThread().getName() + " daemon=" + Thread.currentThread().isDaemon()
                + " same=" + (e == thrown)));
        assertEquals("a-job daemon=true same=true", seen.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aComputedAnswerOrWhatWasThrownComesBackThroughTheFuture() throws Exception {
        assertEquals(42, Background.call("answer", () -> 42).get(WAIT_SECONDS, TimeUnit.SECONDS));
        OutOfMemoryError thrown = new OutOfMemoryError("made up");
        Future<Object> failing = Background.call("failing", () -> {
            throw thrown;
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> failing.get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertSame(thrown, e.getCause());
    }

    @Test
    void aThreadGoesBackToThePoolUnderItsOwnNameAfterAJob() throws Exception {
        Thread used = Background.call("a-job", Thread::currentThread).get(WAIT_SECONDS, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!used.getName().equals("racelab-background")) {
            assertTrue(System.nanoTime() < deadline, "still named " + used.getName() + " after its job");
            Thread.sleep(1);
        }
    }

    @Test
    void aFailureWithNoHandlerIsPrintedWithTheJobsName() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Background.report("export", new NoClassDefFoundError("gone"), new PrintStream(out, true, StandardCharsets.UTF_8));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.startsWith("racelab: background job export failed: java.lang.NoClassDefFoundError: gone"), printed);
    }

    @Test
    void aFailureIsSaidByItsMessageOrElseItsKind() {
        assertEquals("disk full", Background.said(new java.io.IOException("disk full")));
        assertEquals("StackOverflowError", Background.said(new StackOverflowError()));
    }
}
