package dev.racelab.classroom;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A join line as students paste it: the host's own text reads back the same, with or without the
 * "join " the command line prints before it; a line that is not one says what it should look like,
 * and never repeats the password.
 */
@Tag("engine")
class JoinLineTest {

    private static final String LINE = "racelab://4sr8ss:cvg5ddfmkwawmuxt@192.168.1.20:43773/?redis=192.168.1.20:42477";

    @Test
    void theHostsLineReadsBackTheSameAsPrintedOrCopiedWithItsWord() {
        JoinLine line = JoinLine.parse(LINE);
        assertEquals(LINE, line.text());
        assertEquals("4sr8ss", line.code().toString());
        assertEquals(43773, line.pgPort());
        assertEquals(42477, line.redisPort());
        assertEquals(line, JoinLine.parse("  join " + LINE + "\n"), "as the host's command line prints it");
    }

    @Test
    void aLineThatIsNotOneSaysWhatItShouldLookLikeWithoutThePassword() {
        IllegalArgumentException noRedis = assertThrows(IllegalArgumentException.class,
                () -> JoinLine.parse("racelab://4sr8ss:cvg5ddfmkwawmuxt@192.168.1.20:43773/"));
        assertTrue(noRedis.getMessage().contains("Redis"), noRedis.getMessage());
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
                () -> JoinLine.parse("postgresql://ada:cvg5ddfmkwawmuxt@192.168.1.20:5432/x"));
        assertTrue(other.getMessage().contains("racelab://CODE:PASSWORD@HOST:PORT/?redis=HOST:PORT"), other.getMessage());
        assertFalse(other.getMessage().contains("cvg5ddfmkwawmuxt"), "the password stays out: " + other.getMessage());
        assertThrows(IllegalArgumentException.class, () -> JoinLine.parse(""));
    }
}
