package dev.racelab.engine.view;

import dev.racelab.engine.ActorState;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The themes' colours: every two states a worker's lane can show stay apart for viewers with
 * protanopia and deuteranopia (simulated as Machado, Oliveira and Fernandes 2009 do, at full
 * severity), by at least a colour difference of 12 (CIE76), unless they already differ in pattern
 * (hatched delays, barred halts, empty when done) or are meant to look alike (a hungry philosopher
 * is a waiting one); and the window's CSS uses only colours the theme defines.
 */
@Tag("engine")
class ThemeTest {

    private static final double[][] NORMAL = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    private static final double[][] PROTANOPIA = {
        {0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}};
    private static final double[][] DEUTERANOPIA = {
        {0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}};

    @Test
    void everyTwoStatesOfALaneStayApartForColourBlindViewers() {
        List<String> tooClose = new ArrayList<>();
        for (Theme theme : List.of(Theme.LIGHT, Theme.DARK, Theme.LIGHT.highContrast(), Theme.DARK.highContrast())) {
            for (double[][] vision : List.of(NORMAL, PROTANOPIA, DEUTERANOPIA)) {
                for (ActorState a : ActorState.values()) {
                    for (ActorState b : ActorState.values()) {
                        if (a.ordinal() >= b.ordinal() || a.pattern() != b.pattern()
                                || a.pattern() == ActorState.Pattern.NONE
                                || theme.hex(a.ink()).equals(theme.hex(b.ink()))) {
                            continue;
                        }
                        double difference = deltaE(lab(seen(theme.hex(a.ink()), vision)),
                                lab(seen(theme.hex(b.ink()), vision)));
                        if (difference < 12) {
                            tooClose.add(theme.name() + " " + (vision == NORMAL ? "normal" : vision == PROTANOPIA
                                    ? "protanopia" : "deuteranopia") + ": " + a + " and " + b + " ΔE " + Math.round(difference));
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), tooClose);
    }

    @Test
    void theWindowsCssUsesOnlyColoursTheThemeDefines() throws IOException {
        String css;
        try (InputStream in = ThemeTest.class.getResourceAsStream("/dev/racelab/ui/racelab.css")) {
            css = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String withoutComments = css.replaceAll("(?s)/\\*.*?\\*/", "");
        Matcher literal = Pattern.compile("#[0-9a-fA-F]{3,8}\\b").matcher(withoutComments);
        assertTrue(!literal.find(), "a literal colour in racelab.css: " + (literal.hitEnd() ? "" : literal.group()));
        Set<String> used = new TreeSet<>();
        Matcher variable = Pattern.compile("-rl-[a-z-]+").matcher(withoutComments);
        while (variable.find()) {
            used.add(variable.group());
        }
        for (Theme theme : List.of(Theme.LIGHT, Theme.DARK)) {
            Set<String> missing = new TreeSet<>();
            for (String name : used) {
                if (!theme.css().contains(name + ":")) {
                    missing.add(name);
                }
            }
            assertEquals(Set.of(), missing, theme.name() + " defines every colour racelab.css uses");
        }
    }

    private static double[] seen(String hex, double[][] vision) {
        int rgb = Theme.rgb(hex);
        double[] linear = {linear(rgb >> 16 & 0xff), linear(rgb >> 8 & 0xff), linear(rgb & 0xff)};
        double[] out = new double[3];
        for (int i = 0; i < 3; i++) {
            double sum = 0;
            for (int j = 0; j < 3; j++) {
                sum += vision[i][j] * linear[j];
            }
            out[i] = Math.max(0, Math.min(1, sum));
        }
        return out;
    }

    private static double linear(int channel) {
        double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }

    private static double[] lab(double[] rgb) {
        double x = (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.95047;
        double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
        double z = (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.08883;
        double fx = f(x);
        double fy = f(y);
        double fz = f(z);
        return new double[] {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
    }

    private static double f(double t) {
        return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16.0 / 116;
    }

    private static double deltaE(double[] a, double[] b) {
        return Math.sqrt(Math.pow(a[0] - b[0], 2) + Math.pow(a[1] - b[1], 2) + Math.pow(a[2] - b[2], 2));
    }
}
