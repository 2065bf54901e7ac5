package dev.racelab.record;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Event lines as RaceLab writes them are read without a JSON tree; every other line, valid JSON
 * or not, is left to the JSON parser, so that what is accepted and refused stays as it was.
 */
@Tag("engine")
class EventLineTest {

    @Test
    void readsTheLinesRaceLabWrites() {
        EventLine e = new EventLine();
        assertTrue(e.read("[12,-3500,4,\"WRITE\",-7,\"counter row, 2\"]"));
        assertEquals(12, e.seq);
        assertEquals(-3500, e.nanos);
        assertEquals(4, e.actor);
        assertEquals("WRITE", e.kind);
        assertNull(e.valueName);
        assertEquals(-7, e.value);
        assertEquals("counter row, 2", e.subject);

        assertTrue(e.read("[0,0,1,\"STATE\",\"RUNNING\",null]"));
        assertEquals("RUNNING", e.valueName);
        assertNull(e.subject);
        assertTrue(e.read("[1,2,3,\"NOTE\",999999999999999999,\"ü → ✕\"]"));
        assertEquals(999_999_999_999_999_999L, e.value);
        assertEquals("ü → ✕", e.subject);
    }

    @Test
    void leavesEveryOtherLineToTheJsonParser() {
        EventLine e = new EventLine();
        for (String line : List.of(
                "[ 1,2,3,\"NOTE\",4,null]",                  // a space
                "[1,2,3,\"NOTE\",4,\"a \\\"quoted\\\" b\"]",  // an escape
                "[1,2,3,\"NOTE\",4,\"tab\there\"]",           // a control character
                "[1,2,3,\"NOTE\",4.0,null]",                  // not a whole number
                "[1,2,3,\"NOTE\",1e3,null]",
                "[01,2,3,\"NOTE\",4,null]",                   // a leading zero
                "[1,2,3,\"NOTE\",1234567890123456789,null]",  // 19 digits
                "[\"1\",2,3,\"NOTE\",4,null]",                // a number as a string
                "[1,2,3,NOTE,4,null]",
                "[1,2,3,\"NOTE\",4,5]",                       // a subject that is a number
                "[1,2,3,\"NOTE\",4,null,6]",                  // seven fields
                "[1,2,3,\"NOTE\",4]",
                "[1,2,3,\"NOTE\",4,null] ",
                "[1,2,3,\"NOTE\",4,nul]",
                "[1,2,3,\"NOTE\",4,\"unended]",
                "{\"type\":\"outcome\"}",
                "",
                "[")) {
            assertFalse(e.read(line), line);
        }
    }
}
