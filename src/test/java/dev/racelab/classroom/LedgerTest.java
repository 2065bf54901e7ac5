package dev.racelab.classroom;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.racelab.engine.EventKind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Whose increments a class's verdict names as lost, and to whom: they add up to the increments lost. */
@Tag("engine")
class LedgerTest {

    private static final ClassPlan.Seat ADA = new ClassPlan.Seat("a1", "ada", 1, 0);
    private static final ClassPlan.Seat BEA = new ClassPlan.Seat("b2", "bea", 1, 1);
    private static final ClassPlan.Seat CY = new ClassPlan.Seat("c3", "cy", 1, 2);

    private static void write(Ledger ledger, ClassPlan.Seat seat, long seen, long number) {
        ledger.note(seat, 0, EventKind.READ_ORDER, seen);
        ledger.note(seat, 0, EventKind.WRITE_ORDER, number);
        ledger.note(seat, 0, EventKind.OP_END, 0);
    }

    @Test
    void theWritesOffTheSurvivingChainAreLostEachToTheWriteThatJumpedIt() {
        Ledger ledger = new Ledger(List.of(ADA, BEA, CY));
        write(ledger, ADA, 0, 1);
        write(ledger, BEA, 0, 2);   // read before ada's write 1 landed: ada's is lost, to bea
        write(ledger, ADA, 2, 3);
        write(ledger, CY, 2, 4);    // read before ada's write 3: ada's is lost, to cy
        write(ledger, BEA, 4, 5);
        // The counter ends at 3 (writes 2, 4, 5 survive): 5 increments, 2 lost.
        Map<String, Ledger.Part> parts = ledger.parts().stream().collect(Collectors.toMap(Ledger.Part::name, p -> p));
        assertEquals(2, parts.get("ada").lost());
        assertEquals(0, parts.get("bea").lost());
        assertEquals(0, parts.get("cy").lost());
        assertEquals(1, parts.get("bea").overwrote());
        assertEquals(1, parts.get("cy").overwrote());
        assertEquals(2, parts.get("ada").ops());
    }

    @Test
    void oneLateWriteCanLoseSeveralAndAnIncrementItJumpedStaysLost() {
        Ledger ledger = new Ledger(List.of(ADA, BEA, CY));
        write(ledger, ADA, 0, 1);
        write(ledger, BEA, 1, 2);
        write(ledger, ADA, 2, 3);
        write(ledger, CY, 0, 4);    // read 0 long ago: writes 1, 2 and 3 are lost, all to cy
        write(ledger, BEA, 4, 5);
        Map<String, Ledger.Part> parts = ledger.parts().stream().collect(Collectors.toMap(Ledger.Part::name, p -> p));
        assertEquals(2, parts.get("ada").lost());
        assertEquals(1, parts.get("bea").lost());
        assertEquals(3, parts.get("cy").overwrote());
        assertEquals(3, ledger.parts().stream().mapToLong(Ledger.Part::lost).sum(), "5 writes, the counter at 2");
    }

    @Test
    void lostIncrementsNobodyCanBeNamedForAreSaidToBeSo() {
        Ledger ledger = new Ledger(List.of(ADA, BEA));
        write(ledger, ADA, 0, 1);
        write(ledger, BEA, 0, 2);   // ada's write 1 lost, to bea; a third write never reached the host
        dev.racelab.engine.Outcome judged = new dev.racelab.engine.Outcome(dev.racelab.engine.Verdict.RACE,
                "2 increments lost", "…", Map.of(), Map.<String, Number>of("lostIncrements", 2L), List.of());
        assertEquals(" 1 lost increment is not named: their writes' events did not reach the host.",
                HostedScenario.unattributed(judged, ledger.parts()));
        dev.racelab.engine.Outcome agreeing = new dev.racelab.engine.Outcome(dev.racelab.engine.Verdict.RACE,
                "1 increment lost", "…", Map.of(), Map.<String, Number>of("lostIncrements", 1L), List.of());
        assertEquals("", HostedScenario.unattributed(agreeing, ledger.parts()));
    }

    @Test
    void atomicIncrementsSeeTheWriteBeforeThemAndLoseNothing() {
        Ledger ledger = new Ledger(List.of(ADA, BEA));
        for (long n = 1; n <= 6; n++) {
            ClassPlan.Seat seat = n % 2 == 0 ? BEA : ADA;
            ledger.note(seat, 0, EventKind.WRITE_ORDER, n);
            ledger.note(seat, 0, EventKind.OP_END, 0);
        }
        assertEquals(0, ledger.parts().stream().mapToLong(Ledger.Part::lost).sum());
        assertEquals(List.of(3L, 3L), ledger.parts().stream().map(Ledger.Part::ops).toList());
    }

    @Test
    void aStaleTokensWriteOverwritesTheNewerTokensHolderAndAFencedOneNobody() {
        Ledger ledger = new Ledger(List.of(ADA, BEA, CY));
        ledger.note(ADA, 0, EventKind.TOKEN, 1);
        ledger.note(BEA, 0, EventKind.TOKEN, 2);
        ledger.note(CY, 0, EventKind.TOKEN, 3);
        accepted(ledger, BEA, 2, 0);    // bea's newer price lands first
        accepted(ledger, CY, 3, 2);
        accepted(ledger, ADA, 1, 3);    // ada's stale token replaces cy's newer price: cy loses it, to ada
        Map<String, Ledger.Part> parts = ledger.parts().stream().collect(Collectors.toMap(Ledger.Part::name, p -> p));
        assertEquals(1, parts.get("ada").overwrote());
        assertEquals(1, parts.get("cy").lost());
        assertEquals(0, parts.get("bea").lost() + parts.get("bea").overwrote());
        // A stale write heard before the token it replaced (from another machine): named once it is.
        ledger.note(ADA, 0, EventKind.TOKEN, 4);
        accepted(ledger, ADA, 4, 6);
        assertEquals(1, ledger.parts().stream().mapToLong(Ledger.Part::lost).sum(), "token 6's holder not heard of yet");
        assertEquals(2, ledger.parts().stream().mapToLong(Ledger.Part::overwrote).sum());
        dev.racelab.engine.Outcome judged = new dev.racelab.engine.Outcome(dev.racelab.engine.Verdict.RACE,
                "2 stale writes applied", "…", Map.of(), Map.<String, Number>of("staleWritesApplied", 2L), List.of());
        assertEquals(" 1 newer price lost to a stale write is not named: their writes' events did not reach the host.",
                HostedScenario.unattributed(judged, ledger.parts()));
        ledger.note(BEA, 0, EventKind.TOKEN, 6);
        assertEquals(2, ledger.parts().stream().mapToLong(Ledger.Part::lost).sum());
        assertEquals(2, ledger.parts().stream().filter(p -> p.name().equals("bea")).findFirst().orElseThrow().lost()
                + ledger.parts().stream().filter(p -> p.name().equals("cy")).findFirst().orElseThrow().lost());
        assertEquals("", HostedScenario.unattributed(judged, ledger.parts()));
    }

    private static void accepted(Ledger ledger, ClassPlan.Seat seat, long token, long replaced) {
        ledger.note(seat, 0, EventKind.WRITE_ACCEPTED, token);
        ledger.note(seat, 0, EventKind.REPLACED, replaced);
        ledger.note(seat, 0, EventKind.OP_END, 0);
    }
}
