package dev.racelab.engine;

import com.google.gson.JsonParser;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** What {@link Printable} makes of a file's text before it is shown. */
@Tag("engine")
class PrintableTest {

    @Test
    void controlsBecomeVisibleEscapes() {
        assertEquals("\\x1b]0;title\\x07\\x1b[2J", Printable.line("\u001b]0;title\u0007\u001b[2J"));
        assertEquals("a\\nb\\rc", Printable.line("a\nb\rc"));
        assertEquals("del\\x7f csi\\x9b", Printable.line("del\u007f csi\u009b"));
        assertEquals("\\u202eevil\\u2066\\u2028", Printable.line("\u202eevil\u2066\u2028"));
        assertEquals("not a char: \\ufffe", Printable.line("not a char: \ufffe"));
    }

    @Test
    void ordinaryTextIsLeftAsItIsEvenBeyondAscii() {
        String text = "RACE — 37 increments lost · ✕ \t client-1 👩‍🔬 ü";
        assertSame(text, Printable.line(text), "no copy when nothing is escaped");
    }

    @Test
    void aSurrogateWithoutItsPairIsEscapedAPairIsKept() {
        assertEquals("x\\ud83dy", Printable.line("x\ud83dy"));
        assertEquals("\\ude00", Printable.line("\ude00"));
        assertEquals("\ud83d\ude00", Printable.line("\ud83d\ude00"));
    }

    @Test
    void aFieldKeepsItsLineFeedsOnly() {
        assertEquals("two\nlines\\r\\x1b", Printable.field("two\nlines\r\u001b"));
    }

    @Test
    void escapingTwiceChangesNothingMore() {
        String once = Printable.line("\u001b[2J\u202e\n");
        assertEquals(once, Printable.line(once));
    }

    @Test
    void anExcerptIsShortAndSaysWhereItWasCut() {
        assertEquals("abc…", Printable.excerpt("abcdef", 3));
        assertEquals("\\x1bab…", Printable.excerpt("\u001babcdef", 3));
        assertEquals("abc", Printable.excerpt("abc", 3));
    }

    @Test
    void jsonKeepsTheSameTextInItsOwnEscapes() {
        String raw = "{\"name\":\"evil\u202e\u009b\u007f\\u001b\",\n \"n\":1}";
        String safe = Printable.json(raw);
        assertEquals("{\"name\":\"evil\\u202e\\u009b\\u007f\\u001b\",\n \"n\":1}", safe);
        assertEquals(JsonParser.parseString(raw), JsonParser.parseString(safe));
    }
}
