package dev.racelab.export;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.math.BigDecimal;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The trace's JSON writer: what a parser reads back is exactly what was written, times to the nanosecond. */
@Tag("engine")
class JsonOutTest {

    @Test
    void timesAreExactMicrosecondsAndNumbersReadBackAsWritten() throws IOException {
        SplittableRandom random = new SplittableRandom(26);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        JsonOut json = new JsonOut(bytes);
        json.raw("[");
        long[] nanos = new long[100_000];
        long[] numbers = new long[nanos.length];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = switch (i % 6) {
                case 0 -> random.nextLong(10_000);
                case 1 -> random.nextLong(1_000_000_000L);
                case 2 -> random.nextLong(Long.MAX_VALUE);
                // Before a run's start (connecting), and a hand-made file's extremes.
                case 3 -> -random.nextLong(1_000_000_000L);
                case 4 -> i < 10 ? (i % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : -random.nextLong(Long.MAX_VALUE);
                default -> random.nextLong(1_000_000) * 1000;
            };
            numbers[i] = i % 3 == 0 ? -random.nextLong(Long.MAX_VALUE) : random.nextLong();
            json.object().raw("\"t\":").micros(nanos[i]).raw(",\"n\":").number(numbers[i]).raw("}");
        }
        json.object().raw("\"n\":").number(Long.MIN_VALUE).raw(",\"t\":").micros(0).raw("}");
        json.raw("]");
        json.flush();
        String text = bytes.toString(StandardCharsets.UTF_8);

        JsonArray read = JsonParser.parseString(text).getAsJsonArray();
        assertEquals(nanos.length + 1, read.size());
        for (int i = 0; i < nanos.length; i++) {
            JsonObject o = read.get(i).getAsJsonObject();
            assertEquals(BigDecimal.valueOf(nanos[i], 3).stripTrailingZeros(),
                    o.get("t").getAsBigDecimal().stripTrailingZeros(), "at " + nanos[i] + " ns");
            assertEquals(numbers[i], o.get("n").getAsLong());
        }
        assertEquals(Long.MIN_VALUE, read.get(nanos.length).getAsJsonObject().get("n").getAsLong());
        assertTrue(text.contains("\"t\":0}"));
    }

    @Test
    void stringsReadBackAsWrittenAndNothingAViewerActsOnIsLeftRaw() throws IOException {
        List<String> strings = List.of("plain", "quote \" and backslash \\", "line\nfeed\ttab\r", "\u001b[31mred",
                "bidi \u202e reversed \u2066", "del \u007f c1 \u0085", "separators \u2028 \u2029", "emoji \ud83d\ude00",
                "lone \ud83d high", "lone \ude00 low", "", "x".repeat(200_000));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        JsonOut json = new JsonOut(bytes);
        json.raw("[");
        for (int i = 0; i < strings.size(); i++) {
            json.raw(i == 0 ? "" : ",").string(strings.get(i));
        }
        json.raw("]");
        json.flush();
        String text = bytes.toString(StandardCharsets.UTF_8);

        JsonArray read = JsonParser.parseString(text).getAsJsonArray();
        for (int i = 0; i < strings.size(); i++) {
            assertEquals(strings.get(i), read.get(i).getAsString());
        }
        assertTrue(text.chars().allMatch(c -> c >= 0x20 && c < 0x7f || c >= 0xa0 && c != 0x2028
                && c != 0x2029 && c != 0x202e && c != 0x2066), "every control written as an escape");
    }
}
