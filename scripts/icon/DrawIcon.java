import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.RoundRectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws RaceLab's icon and writes every file the three platforms want from one description of the
 * mark: an SVG, PNGs from 16 to 512 px, a Windows {@code .ico} and a macOS {@code .icns}.
 *
 * <p>The mark: two lanes, as the timeline draws workers, racing for one resource (the red dot)
 * on a dark tile. It is laid out on a 16-unit grid, so at 16 px the tile's edges and the dot fall
 * on whole pixels and the mark stays legible in a menu or a task bar.
 *
 * <p>Run from the project's root: {@code java scripts/icon/DrawIcon.java assets/icons}. The files
 * it writes are committed; run it again only when the mark changes.
 */
public final class DrawIcon {

    /** One piece of the mark, in units of the 16-unit grid, drawn the same way as pixels and as SVG. */
    private interface Piece {
        void paint(Graphics2D g);

        String svg();
    }

    private record Tile(double x, double y, double size, double radius, Color fill) implements Piece {
        public void paint(Graphics2D g) {
            g.setColor(fill);
            g.fill(new RoundRectangle2D.Double(x, y, size, size, 2 * radius, 2 * radius));
        }

        public String svg() {
            return String.format(Locale.ROOT, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" rx=\"%s\" fill=\"%s\"/>",
                    n(x), n(y), n(size), n(size), n(radius), hex(fill));
        }
    }

    /** A stroke with round ends, as a lane on the timeline. */
    private record Lane(double x1, double y1, double x2, double y2, double width, Color ink) implements Piece {
        public void paint(Graphics2D g) {
            g.setColor(ink);
            g.setStroke(new BasicStroke((float) width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
            g.draw(new Line2D.Double(x1, y1, x2, y2));
        }

        public String svg() {
            return String.format(Locale.ROOT, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
                    + "stroke-width=\"%s\" stroke-linecap=\"round\"/>", n(x1), n(y1), n(x2), n(y2), hex(ink), n(width));
        }
    }

    private record Dot(double cx, double cy, double r, Color fill) implements Piece {
        public void paint(Graphics2D g) {
            g.setColor(fill);
            g.fill(new Ellipse2D.Double(cx - r, cy - r, 2 * r, 2 * r));
        }

        public String svg() {
            return String.format(Locale.ROOT, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\"/>",
                    n(cx), n(cy), n(r), hex(fill));
        }
    }

    private static final Color NAVY = new Color(0x1d, 0x2a, 0x3e);
    private static final Color TEAL = new Color(0x3c, 0xc8, 0xb4);
    private static final Color AMBER = new Color(0xf5, 0xb0, 0x3c);
    private static final Color RED = new Color(0xe8, 0x45, 0x3c);

    private static final List<Piece> MARK = List.of(
            new Tile(0, 0, 16, 3.5, NAVY),
            new Lane(3, 4.5, 9.5, 8, 2.5, TEAL),
            new Lane(3, 11.5, 9.5, 8, 2.5, AMBER),
            new Dot(11.5, 8, 2.5, RED));

    private static final int[] PNG_SIZES = {16, 24, 32, 48, 64, 128, 256, 512};
    private static final int[] ICO_SIZES = {16, 24, 32, 48, 64, 128, 256};
    /** The icns types that hold a PNG, and the size of each. */
    private static final Map<String, Integer> ICNS_TYPES = new LinkedHashMap<>();

    static {
        ICNS_TYPES.put("icp4", 16);
        ICNS_TYPES.put("icp5", 32);
        ICNS_TYPES.put("ic11", 32);
        ICNS_TYPES.put("icp6", 64);
        ICNS_TYPES.put("ic12", 64);
        ICNS_TYPES.put("ic07", 128);
        ICNS_TYPES.put("ic08", 256);
        ICNS_TYPES.put("ic13", 256);
        ICNS_TYPES.put("ic09", 512);
        ICNS_TYPES.put("ic14", 512);
        ICNS_TYPES.put("ic10", 1024);
    }

    private DrawIcon() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java scripts/icon/DrawIcon.java OUTPUT-FOLDER");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        Files.createDirectories(out);
        Files.writeString(out.resolve("racelab.svg"), svg(), StandardCharsets.UTF_8);
        for (int size : PNG_SIZES) {
            Files.write(out.resolve("racelab-" + size + ".png"), png(size));
        }
        Files.write(out.resolve("racelab.ico"), ico());
        Files.write(out.resolve("racelab.icns"), icns());
        System.out.println("wrote racelab.svg, racelab-{16…512}.png, racelab.ico and racelab.icns to " + out);
    }

    static byte[] png(int size) {
        BufferedImage image = new BufferedImage(size, size, BufferedImage.TYPE_INT_ARGB);
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
        g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
        g.scale(size / 16.0, size / 16.0);
        MARK.forEach(piece -> piece.paint(g));
        g.dispose();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            ImageIO.write(image, "png", bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static String svg() {
        StringBuilder s = new StringBuilder(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" viewBox=\"0 0 16 16\">\n"
                + "  <title>RaceLab</title>\n");
        MARK.forEach(piece -> s.append("  ").append(piece.svg()).append("\n"));
        return s.append("</svg>\n").toString();
    }

    /** A Windows icon: a directory of images, each stored as a PNG (read by Windows Vista and later). */
    static byte[] ico() {
        List<byte[]> images = java.util.Arrays.stream(ICO_SIZES).mapToObj(DrawIcon::png).toList();
        int offset = 6 + 16 * images.size();
        ByteBuffer b = ByteBuffer.allocate(offset + images.stream().mapToInt(i -> i.length).sum())
                .order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) 0).putShort((short) 1).putShort((short) images.size());
        for (int i = 0; i < images.size(); i++) {
            int size = ICO_SIZES[i];
            b.put((byte) (size >= 256 ? 0 : size)).put((byte) (size >= 256 ? 0 : size))
                    .put((byte) 0).put((byte) 0).putShort((short) 1).putShort((short) 32)
                    .putInt(images.get(i).length).putInt(offset);
            offset += images.get(i).length;
        }
        images.forEach(b::put);
        return b.array();
    }

    /** A macOS icon family: a header, then one entry per type, each holding a PNG. */
    static byte[] icns() {
        ByteArrayOutputStream entries = new ByteArrayOutputStream();
        Map<Integer, byte[]> drawn = new LinkedHashMap<>();
        ICNS_TYPES.forEach((type, size) -> {
            byte[] image = drawn.computeIfAbsent(size, DrawIcon::png);
            entries.writeBytes(type.getBytes(StandardCharsets.US_ASCII));
            entries.writeBytes(ByteBuffer.allocate(4).putInt(8 + image.length).array());
            entries.writeBytes(image);
        });
        ByteBuffer b = ByteBuffer.allocate(8 + entries.size());
        b.put("icns".getBytes(StandardCharsets.US_ASCII)).putInt(8 + entries.size()).put(entries.toByteArray());
        return b.array();
    }

    private static String n(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    private static String hex(Color c) {
        return String.format("#%02x%02x%02x", c.getRed(), c.getGreen(), c.getBlue());
    }
}
