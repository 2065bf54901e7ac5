package dev.racelab.isolation.run;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Tables as libpq's PQprint lays them out for isolationtester. */
@Tag("engine")
class ResultTableTest {

    private static List<String> row(String... values) {
        return Arrays.asList(values);
    }

    @Test
    void numbersAlignRightTextLeftAndNamesFollowTheirColumn() {
        assertEquals("""
                id|data
                --+----
                 2|x  \s
                10|abcd
                (2 rows)

                """, ResultTable.print(List.of("id", "data"), List.of(row("2", "x"), row("10", "abcd"))));
    }

    @Test
    void nullAndEmptyPrintAsNothingAndAColumnOfOnlyThoseCountsAsNumbers() {
        assertEquals("""
                pg_advisory_lock
                ----------------
                               \s
                (1 row)

                """, ResultTable.print(List.of("pg_advisory_lock"), List.of(row(""))));
        assertEquals("""
                a|b
                -+-
                 |t
                (1 row)

                """, ResultTable.print(List.of("a", "b"), List.of(row(null, "t"))));
    }

    @Test
    void whatLooksLikeANumberIsLibpqsGuess() {
        assertEquals(true, ResultTable.looksNumeric("-1.5e10"));
        assertEquals(true, ResultTable.looksNumeric("1 2"));
        assertEquals(false, ResultTable.looksNumeric("e1"));
        assertEquals(false, ResultTable.looksNumeric("1."));
        assertEquals(false, ResultTable.looksNumeric("+1"));
        assertEquals(false, ResultTable.looksNumeric("(0,1)"));
    }

    @Test
    void widthsCountBytesAsLibpqDoes() {
        // 'é' is two bytes in UTF-8: libpq pads the name to 5 bytes, not 4 characters.
        assertEquals("""
                name\s
                -----
                café
                (1 row)

                """, ResultTable.print(List.of("name"), List.of(row("café"))));
    }

    @Test
    void noRowsStillPrintsTheHeaderAndAResultWithoutColumnsPrintsNothing() {
        assertEquals("oid\n---\n(0 rows)\n\n", ResultTable.print(List.of("oid"), List.of()));
        assertEquals("", ResultTable.print(List.of(), List.of(row())));
    }
}
