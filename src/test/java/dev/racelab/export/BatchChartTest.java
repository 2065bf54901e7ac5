package dev.racelab.export;

import dev.racelab.engine.Batch;
import dev.racelab.engine.Clock;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.view.Theme;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The batch histogram's runs axis reads true: a real batch of five counter runs, every one of them
 * losing nothing, is one bar five runs tall, and every label on the axis is a whole count standing
 * where that count would reach.
 */
@Tag("lab")
class BatchChartTest {

    private static final Pattern RIGHT_ALIGNED = Pattern.compile(
            "<text x=\"[^\"]+\" y=\"([^\"]+)\" font-size=\"[^\"]+\" text-anchor=\"end\"[^>]*>([^<]*)</text>");
    private static final Pattern RECT = Pattern.compile(
            "<rect x=\"[^\"]+\" y=\"([^\"]+)\" width=\"[^\"]+\" height=\"([^\"]+)\"");

    @Test
    void aBarOfFiveRunsStandsAtFiveOnAnAxisOfWholeCounts() throws Exception {
        Lab counter = new Labs(TestServers.backends()).find("counter").orElseThrow();
        Batch.Result result = new Batch(counter, counter.defaults(), List.of("atomic-update"), 5, null,
                Clock.system(), run -> { }).run((done, total, delay, record) -> { });
        assertEquals(List.of(0.0, 0.0, 0.0, 0.0, 0.0), result.points().get("atomic-update").get(0).figures(),
                "the fix loses no increment");

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new BatchChart(result, counter.keyFigure(), "counter · 5 runs", id -> false).svg(out, Theme.named("light"));
        String svg = out.toString(StandardCharsets.UTF_8);

        // The one bar: the tallest rectangle drawn (the background is "100%", the legend's swatch an em).
        double barTop = 0;
        double barHeight = 0;
        Matcher rect = RECT.matcher(svg);
        while (rect.find()) {
            double height = Double.parseDouble(rect.group(2));
            if (height > barHeight) {
                barHeight = height;
                barTop = Double.parseDouble(rect.group(1));
            }
        }
        double bottom = barTop + barHeight;
        double perRun = barHeight / 5;

        List<String> labels = new ArrayList<>();
        Matcher text = RIGHT_ALIGNED.matcher(svg);
        while (text.find()) {
            String label = text.group(2);
            labels.add(label);
            assertTrue(label.matches("\\d+"), "a whole count: '" + label + "'");
            double y = Double.parseDouble(text.group(1));
            // Each label sits 0.3 em below its grid line, as 0 sits below the axis.
            double lineAt = bottom - Integer.parseInt(label) * perRun;
            assertEquals(lineAt, y - 0.3 * 14, 0.6, "the label " + label + " stands where " + label
                    + " runs reach (labels " + labels + ")");
        }
        assertTrue(labels.size() >= 3, "a few labels up the axis: " + labels);
        assertEquals("0", labels.get(0));
        assertTrue(Integer.parseInt(labels.get(labels.size() - 1)) >= 5, "the axis reaches the bar: " + labels);
    }
}
