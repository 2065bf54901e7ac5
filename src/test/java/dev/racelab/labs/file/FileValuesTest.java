package dev.racelab.labs.file;

import dev.racelab.labfile.LabFile.Test;
import org.junit.jupiter.api.Tag;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A lab file's expressions and tests as a run evaluates them. */
@Tag("engine")
class FileValuesTest {

    private static final Map<String, Long> TOTALS = Map.of("workers", 4L, "operations", 20L);

    @org.junit.jupiter.api.Test
    void productsComeBeforeSumsAsWritten() {
        Map<String, String> values = Map.of("op", "3", "worker", "2");
        assertEquals("2003", FileValues.eval(List.of("$op", "+", "$worker", "*", "1000"), values, TOTALS));
        assertEquals("2003", FileValues.eval(List.of("$worker", "*", "1000", "+", "$op"), values, TOTALS));
        assertEquals("1997", FileValues.eval(List.of("$worker", "*", "1000", "-", "$op"), values, TOTALS));
        assertEquals("80", FileValues.eval(List.of("operations", "*", "workers"), values, TOTALS));
    }

    @org.junit.jupiter.api.Test
    void aValueThatIsNotThereMakesNoNumber() {
        assertNull(FileValues.eval(List.of("$n", "+", "1"), new HashMap<>(), TOTALS));
    }

    @org.junit.jupiter.api.Test
    void nullIsUnlikeEverythingButNull() {
        Map<String, String> none = Map.of();
        assertTrue(FileValues.meets(null, new Test("!=", List.of("40001")), none, TOTALS), "a COMMIT's null is no 40001");
        assertFalse(FileValues.meets("40001", new Test("!=", List.of("40001")), none, TOTALS));
        assertFalse(FileValues.meets(null, new Test("=", List.of("OK")), none, TOTALS));
        assertTrue(FileValues.meets(null, new Test("null", List.of()), none, TOTALS));
        assertFalse(FileValues.meets(null, new Test("<", List.of("1")), none, TOTALS));
    }

    @org.junit.jupiter.api.Test
    void numbersCompareAsNumbersAndTextAsText() {
        Map<String, String> none = Map.of();
        assertTrue(FileValues.meets("20.0", new Test("=", List.of("operations")), none, TOTALS));
        assertTrue(FileValues.meets("9", new Test("<", List.of("10")), none, TOTALS));
        assertTrue(FileValues.meets("OK", new Test("=", List.of("OK")), none, TOTALS));
        assertFalse(FileValues.meets("OK", new Test("<", List.of("PK")), none, TOTALS), "text has no order");
    }
}
