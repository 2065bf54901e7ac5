package dev.racelab.engine;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("engine")
class GateRuleTest {

    @Test
    void readsFixedDelaysAndRanges() {
        assertEquals(GateRule.fixed(5), GateRule.parseDelay("5"));
        assertEquals(GateRule.range(2, 20), GateRule.parseDelay(" 2-20 "));
        assertEquals("2-20", GateRule.parseDelay("2-20").delayText());
        assertFalse(GateRule.parseDelay("0").delays());
    }

    @Test
    void rejectsWhatIsNotADelayWithAMessageSayingWhy() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GateRule.parseDelay("abc"))
                .getMessage().contains("'abc' is not a delay"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GateRule.parseDelay("-5"))
                .getMessage().contains("not a delay"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GateRule.parseDelay("20-2"))
                .getMessage().contains("lower bound first"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GateRule.parseDelay("9999999"))
                .getMessage().contains("at most"));
        assertThrows(IllegalArgumentException.class, () -> GateRule.parseDelay("5ms"));
    }

    @Test
    void drawsRangeDelaysWithinTheRange() {
        GateRule rule = GateRule.range(2, 4);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1_000; i++) {
            long nanos = rule.drawNanos(random);
            assertTrue(nanos >= 2_000_000 && nanos <= 4_000_000, "drawn " + nanos);
        }
    }

    @Test
    void aWorkersOwnRuleOverridesTheRuleForAll() {
        GatePlan plan = GatePlan.NONE.with("after-read", GateRule.fixed(5))
                .with("after-read", 2, GateRule.fixed(50));
        assertEquals(GateRule.fixed(5), plan.rule("after-read", 0));
        assertEquals(GateRule.fixed(50), plan.rule("after-read", 2));
        assertEquals(GateRule.PASS, plan.rule("before-read", 2));
        assertEquals("after-read=5 after-read=50@client-3", plan.describe(i -> "client-" + (i + 1)));
        assertEquals(GateRule.fixed(5), plan.withoutOwnRule("after-read", 2).rule("after-read", 2));
    }
}
