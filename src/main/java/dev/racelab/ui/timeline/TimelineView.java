package dev.racelab.ui.timeline;

import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.engine.view.timeline.Lane;
import dev.racelab.engine.view.timeline.StateColumns;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.ui.Arrows;
import dev.racelab.ui.Palette;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.geometry.Orientation;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ScrollBar;
import javafx.scene.image.PixelBuffer;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;

import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The live timeline: server lanes on top, one lane per worker below, time running left to right.
 *
 * <p><b>Drawing.</b> State segments are painted into a pixel buffer, one colour per pixel column
 * per lane: where many segments fall into one column, the most telling state wins (a failure over
 * a halt over a wait over a delay over running), so a short wait is never lost when zoomed out.
 * The buffer goes to the canvas in one image; markers, arrows, server labels, names and the time
 * axis are drawn on top, culled to the visible window and thinned to at most one of a kind every
 * few pixels. Cost per frame grows with the segments in view and the pixels on screen, not with
 * the length of the recording.
 *
 * <p><b>Reading it.</b> A worker's lane shows what the worker says it does; a thin stripe under it
 * shows what the server says of its session (waiting, holding). Delays are hatched and halts at
 * gates dotted, so they read without colour too.
 *
 * <p>Owned by the FX thread. {@link #render} is called once per frame by the window.
 */
public final class TimelineView extends Region {

    /** Per state ordinal, from the vocabulary: how it is filled. */
    private static final byte[] PATTERN = new byte[ActorState.values().length];
    private static final byte PATTERN_NONE = -1;
    private static final byte PATTERN_SOLID = 0;
    private static final byte PATTERN_HATCHED = 1;
    private static final byte PATTERN_BARRED = 2;
    private static final double FOLLOW_WINDOW = 10e9;
    private static final double MIN_FOLLOW_SPAN = 50e6;
    private static final int STRIPE_WAITS = Palette.argb(Palette.of(Ink.WAITING));
    private static final int STRIPE_HOLDS = Palette.argb(Palette.of(Ink.HOLDING));

    static {
        for (ActorState state : ActorState.values()) {
            PATTERN[state.ordinal()] = switch (state.pattern()) {
                case NONE -> PATTERN_NONE;
                case SOLID -> PATTERN_SOLID;
                case HATCHED -> PATTERN_HATCHED;
                case BARRED -> PATTERN_BARRED;
            };
        }
    }

    private final Canvas canvas = new Canvas();
    private final ScrollBar scroll = new ScrollBar();
    private final BooleanProperty followLive = new SimpleBooleanProperty(this, "followLive", true);
    private final BooleanProperty compact = new SimpleBooleanProperty(this, "compact", false);
    private final IntegerProperty selectedActor = new SimpleIntegerProperty(this, "selectedActor", -1);
    private final int[] stateArgb = new int[ActorState.values().length];
    private final int[] stateArgbLight = new int[ActorState.values().length];
    private final int[] labelArgb = new int[Ink.values().length];

    private TimelineModel model;
    private WritableImage image;
    private PixelBuffer<IntBuffer> pixelBuffer;
    private int[] pixels = new int[0];
    private int[] row = new int[0];
    private final StateColumns stateColumns = new StateColumns();
    private byte[] rowPattern = new byte[0];
    private int[] stripe = new int[0];
    private int[] whiteRow = new int[0];
    private MarkerSprites sprites;
    private int[] order = new int[0];
    private double nanosPerPixel = 50_000;
    private double viewStart;
    private long now;
    private double scrollY;
    private double mouseX = -1;
    private double mouseY = -1;
    private double dragX = Double.NaN;
    private int focusedViolation = -1;
    private boolean dirty = true;
    private double em = Font.getDefault().getSize();
    private final java.util.Map<Long, Font> fonts = new java.util.HashMap<>();

    /** The palette's colours as this view caches them for its pixel buffers. */
    private void colours() {
        for (ActorState state : ActorState.values()) {
            Color color = Palette.of(state.ink());
            stateArgb[state.ordinal()] = Palette.argb(color);
            stateArgbLight[state.ordinal()] = Palette.argb(Palette.faded(color, 0.55));
        }
        for (Ink ink : Ink.values()) {
            labelArgb[ink.ordinal()] = Palette.argb(switch (ink) {
                case HOLDING -> Palette.faded(Palette.of(Ink.HOLDING), 0.55);
                case WAITING -> Palette.faded(Palette.of(Ink.WAITING), 0.45);
                // A lock no worker owns (SERVER_ORPHANS): the model inks it as a race, as the exports draw it.
                case RACE -> Palette.faded(Palette.of(Ink.RACE), 0.45);
                case OUTLINE -> Palette.faded(Palette.of(Ink.OUTLINE), 0.6);
                default -> Palette.faded(Palette.laneBand(), 0.3);
            });
        }
    }

    /** Takes up the palette's colours after a change of theme, and redraws. */
    public void themeChanged() {
        colours();
        sprites = null;
        dirty = true;
    }

    public TimelineView() {
        getStyleClass().add("timeline");
        scroll.setOrientation(Orientation.VERTICAL);
        scroll.valueProperty().addListener((o, a, b) -> {
            scrollY = b.doubleValue();
            dirty = true;
        });
        getChildren().addAll(canvas, scroll);
        colours();
        setFocusTraversable(true);
        canvas.setOnMouseMoved(this::hover);
        canvas.setOnMouseExited(e -> {
            mouseX = -1;
            dirty = true;
        });
        canvas.setOnMousePressed(this::press);
        canvas.setOnMouseDragged(this::drag);
        canvas.setOnMouseReleased(e -> dragX = Double.NaN);
        canvas.setOnScroll(this::scroll);
        followLive.addListener((o, a, b) -> dirty = true);
        compact.addListener((o, a, b) -> dirty = true);
    }

    /** Follow the newest events as they come; panning or zooming by hand turns it off. */
    public BooleanProperty followLiveProperty() {
        return followLive;
    }

    /** Thin lanes without names, to see hundreds of workers at once. */
    public BooleanProperty compactProperty() {
        return compact;
    }

    /** The worker lane the user clicked (actor id), or -1. */
    public IntegerProperty selectedActorProperty() {
        return selectedActor;
    }

    public TimelineModel model() {
        return model;
    }

    /** Shows another run's timeline (or none). */
    public void setModel(TimelineModel model) {
        this.model = model;
        this.focusedViolation = -1;
        this.now = 0;
        this.viewStart = 0;
        this.scrollY = 0;
        scroll.setValue(0);
        followLive.set(true);
        dirty = true;
    }

    public void zoomIn() {
        zoom(0.5, lanesWidth() / 2);
    }

    public void zoomOut() {
        zoom(2, lanesWidth() / 2);
    }

    /** Shows the whole run. */
    public void fit() {
        if (model != null) {
            nanosPerPixel = Math.max(1_000, Math.max(model.latest(), now) * 1.02 / Math.max(1, lanesWidth()));
            viewStart = 0;
            followLive.set(false);
            dirty = true;
        }
    }

    /** Centres the view on violation {@code index} and marks it. */
    public void showViolation(int index) {
        if (model == null || index < 0 || index >= model.violations()) {
            return;
        }
        focusedViolation = index;
        followLive.set(false);
        double width = lanesWidth();
        nanosPerPixel = Math.min(nanosPerPixel, Math.max(1_000, model.latest() / Math.max(1, width)));
        viewStart = Math.max(0, model.violationTime.get(index) - width * nanosPerPixel / 2);
        int lane = model.violationLane.get(index);
        double y = positionOf(lane) * laneHeight();
        double visible = canvas.getHeight() - axisHeight();
        if (y < scrollY || y > scrollY + visible - laneHeight()) {
            scroll.setValue(Math.max(0, Math.min(scroll.getMax(), y - visible / 2)));
        }
        dirty = true;
    }

    public int focusedViolation() {
        return focusedViolation;
    }

    /** Asks for a redraw at the next frame, e.g. after the font size changed. */
    public void invalidate() {
        dirty = true;
    }

    /**
     * Draws the timeline if anything changed.
     *
     * @param nowNanos time since the first event, for the open ends of live segments
     * @param live     whether the run is still going (its last segments grow)
     * @return whether it drew
     */
    public boolean render(long nowNanos, boolean live) {
        if (!dirty && !live) {
            return false;
        }
        now = model == null ? 0 : Math.max(nowNanos, model.latest());
        dirty = false;
        draw(live);
        return true;
    }

    @Override
    protected void layoutChildren() {
        double scrollWidth = scroll.prefWidth(-1);
        double w = Math.max(0, getWidth() - scrollWidth);
        double h = getHeight();
        canvas.setWidth(w);
        canvas.setHeight(h);
        scroll.resizeRelocate(w, 0, scrollWidth, h);
        dirty = true;
    }

    private double em() {
        return em;
    }

    /** The base font at {@code scale} × em, bold or not; cached, since drawing asks for them every frame. */
    private Font font(double scale, boolean bold) {
        long key = Math.round(em * scale * 100) * 2 + (bold ? 1 : 0);
        return fonts.computeIfAbsent(key, k -> Font.font(Font.getDefault().getFamily(),
                bold ? FontWeight.BOLD : FontWeight.NORMAL, em * scale));
    }

    /** The base font size in pixels; everything on the timeline scales with it. */
    public void setEm(double size) {
        em = size;
        dirty = true;
        requestLayout();
    }

    private double gutter() {
        return compact.get() ? em() * 7 : em() * 9;
    }

    private double axisHeight() {
        return em() * 1.9;
    }

    private double lanesWidth() {
        return Math.max(1, canvas.getWidth() - gutter());
    }

    /**
     * The height the canvas needs to show {@code lanes} lanes (the time axis and each lane as thin
     * as its words allow): what the window keeps for the timeline when it shares out its height.
     */
    public double heightFor(int lanes) {
        return axisHeight() + lanes * Math.ceil(em() * 1.4) + 2;
    }

    /** How many lanes the shown run has now (its server lanes and workers); 0 with none shown. */
    public int laneCount() {
        return order.length;
    }

    private double laneHeight() {
        if (compact.get()) {
            double fit = (canvas.getHeight() - axisHeight()) / Math.max(1, order.length);
            return Math.max(4, Math.min(em() * 1.1, Math.floor(fit)));
        }
        // Roomy lanes where they fit; where they would not (large text on a small screen), lanes
        // as thin as their words allow, so that every worker stays in view.
        double fit = (canvas.getHeight() - axisHeight()) / Math.max(1, order.length);
        double roomy = em() * 2.1;
        return Math.floor(fit >= roomy ? Math.min(em() * 3.4, fit) : Math.max(em() * 1.4, fit));
    }

    /** Lanes top to bottom: server lanes, then workers; the run's own lane is not drawn. */
    private void order() {
        List<Integer> servers = new ArrayList<>();
        List<Integer> workers = new ArrayList<>();
        for (Lane lane : model.lanes) {
            if (lane.kind == Actor.Kind.SERVER) {
                servers.add(lane.actor);
            } else if (lane.kind == Actor.Kind.WORKER) {
                workers.add(lane.actor);
            }
        }
        servers.addAll(workers);
        if (order.length != servers.size()) {
            order = servers.stream().mapToInt(Integer::intValue).toArray();
        } else {
            for (int i = 0; i < order.length; i++) {
                order[i] = servers.get(i);
            }
        }
    }

    private int positionOf(int actor) {
        for (int i = 0; i < order.length; i++) {
            if (order[i] == actor) {
                return i;
            }
        }
        return -1;
    }

    private void draw(boolean live) {
        GraphicsContext gc = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        gc.setFill(Palette.background());
        gc.fillRect(0, 0, w, h);
        if (model == null || w < 10 || h < 10) {
            return;
        }
        order();
        double laneH = laneHeight();
        double top = axisHeight();
        double visible = h - top;
        double total = order.length * laneH;
        scroll.setMax(Math.max(0, total - visible));
        scroll.setVisibleAmount(visible);
        scroll.setVisible(total > visible);
        scrollY = Math.min(scrollY, scroll.getMax());
        double width = lanesWidth();
        if (followLive.get()) {
            // The whole run stays in view as it grows; only a long run scrolls, showing its
            // last FOLLOW_WINDOW.
            double span = Math.min(Math.max(now, MIN_FOLLOW_SPAN), FOLLOW_WINDOW);
            nanosPerPixel = span / (width * 0.97);
            viewStart = Math.max(0, now - span);
        }
        int firstLane = (int) Math.floor(scrollY / laneH);
        int lastLane = Math.min(order.length - 1, (int) Math.ceil((scrollY + visible) / laneH));

        paintSegments(gc, firstLane, lastLane, laneH, top, (int) width, (int) Math.ceil(visible));
        for (int i = firstLane; i <= lastLane; i++) {
            double y = top + i * laneH - scrollY;
            Lane lane = model.lanes.get(order[i]);
            if (lane.kind == Actor.Kind.SERVER) {
                drawServerLabels(gc, lane, y, laneH);
            } else if (laneH >= em() * 1.5) {
                drawSegmentWords(gc, lane, y, laneH);
            }
            drawMarkers(gc, lane, y, laneH);
        }
        drawArrows(gc, laneH, top);
        drawOverwriteArrows(gc, laneH, top);
        drawViolationFocus(gc, laneH, top);
        drawGutter(gc, firstLane, lastLane, laneH, top);
        drawAxis(gc, w);
        if (live && followLive.get()) {
            double x = xOf(now);
            gc.setStroke(Palette.of(Ink.MUTED));
            gc.setLineWidth(1);
            gc.strokeLine(x, top, x, h);
        }
        drawHover(gc, laneH, top);
    }

    private double xOf(double t) {
        return gutter() + (t - viewStart) / nanosPerPixel;
    }

    private void paintSegments(GraphicsContext gc, int firstLane, int lastLane, double laneH, double top,
                               int width, int height) {
        if (width <= 0 || height <= 0) {
            return;
        }
        if (image == null || sprites == null || image.getWidth() != width || image.getHeight() != height) {
            pixels = new int[width * height];
            pixelBuffer = new PixelBuffer<>(width, height, IntBuffer.wrap(pixels), PixelFormat.getIntArgbPreInstance());
            image = new WritableImage(pixelBuffer);
            row = new int[width];
            rowPattern = new byte[width];
            stripe = new int[width];
            whiteRow = new int[width];
            Arrays.fill(whiteRow, Palette.argb(Palette.background()));
            sprites = new MarkerSprites(pixels);
        }
        int band = Palette.argb(Palette.laneBand());
        int white = Palette.argb(Palette.background());
        int serverBand = Palette.argb(Palette.faded(Palette.of(Ink.HOLDING), 0.9));
        for (int i = firstLane; i <= lastLane; i++) {
            Lane lane = model.lanes.get(order[i]);
            int y0 = (int) Math.round(i * laneH - scrollY);
            int y1 = (int) Math.round((i + 1) * laneH - scrollY);
            int background = lane.kind == Actor.Kind.SERVER ? serverBand : (i % 2 == 0 ? band : white);
            Arrays.fill(row, background);
            Arrays.fill(rowPattern, (byte) -1);
            Arrays.fill(stripe, 0);
            boolean hasStripe = false;
            if (lane.kind == Actor.Kind.WORKER) {
                fillStates(lane, width, background);
                hasStripe = fillStripe(lane, width);
            } else if (lane.kind == Actor.Kind.SERVER) {
                fillLabels(lane, width, background);
            }
            int gap = laneH >= 8 ? 2 : laneH >= 5 ? 1 : 0;
            int stripeRows = hasStripe ? Math.max(2, (int) ((y1 - y0) * 0.22)) : 0;
            for (int x = 0; x < width; x++) {
                int pattern = rowPattern[x];
                if (pattern >= 0) {
                    int state = pattern >> 2;
                    int fill = pattern & 3;
                    if (fill == PATTERN_HATCHED && x % 8 < 3 || fill == PATTERN_BARRED && x % 6 < 2) {
                        row[x] = stateArgbLight[state];
                    }
                }
                if (hasStripe && stripe[x] == 0) {
                    stripe[x] = row[x];
                }
            }
            int yMax = Math.min(height, y1);
            for (int y = Math.max(0, y0); y < yMax; y++) {
                int offset = y * width;
                if (y >= y1 - gap) {
                    System.arraycopy(whiteRow, 0, pixels, offset, width);
                } else if (y >= y1 - gap - stripeRows) {
                    System.arraycopy(stripe, 0, pixels, offset, width);
                } else {
                    System.arraycopy(row, 0, pixels, offset, width);
                }
            }
            if (lane.kind == Actor.Kind.WORKER) {
                sprites.paint(lane, width, height, y0, y1 - gap - stripeRows, viewStart, nanosPerPixel);
            }
        }
        int painted = (int) Math.round((lastLane + 1) * laneH - scrollY);
        if (painted < height) {
            Arrays.fill(pixels, Math.max(0, painted) * width, height * width, white);
        }
        // The image shares the pixel array: marking it dirty is all, the texture upload happens
        // on the render thread.
        pixelBuffer.updateBuffer(buffer -> null);
        gc.drawImage(image, gutter(), top);
    }

    /**
     * Colours {@code row}: one state per pixel column, the most telling one where several meet
     * ({@link StateColumns}, the rule the exported pictures draw by too).
     */
    private void fillStates(Lane lane, int width, int background) {
        stateColumns.paint(lane, width, viewStart, nanosPerPixel, now);
        for (int x = 0; x < width; x++) {
            int state = stateColumns.state(x);
            if (state < 0) {
                row[x] = background;
                continue;
            }
            row[x] = stateArgb[state];
            // The state and its fill in one byte: the overlay pass needs both.
            byte fill = PATTERN[state];
            rowPattern[x] = fill == PATTERN_SOLID ? -1 : (byte) (state << 2 | fill);
        }
    }

    /** Colours a server lane's {@code row} by what each label says (holding, waiting, a value), edges marked. */
    private void fillLabels(Lane lane, int width, int background) {
        int n = lane.labelStart.size();
        int first = Math.max(0, lane.labelStart.floor((long) viewStart));
        double end = viewStart + width * nanosPerPixel;
        int edge = Palette.argb(Palette.of(Ink.OUTLINE));
        int previousX0 = Integer.MIN_VALUE;
        for (int s = first; s < n; s++) {
            long start = lane.labelStart.get(s);
            if (start > end) {
                break;
            }
            long stop = model.labelStop(lane, s);
            if (stop < viewStart) {
                continue;
            }
            int x0 = Math.min(width - 1, Math.max(0, (int) Math.floor((start - viewStart) / nanosPerPixel)));
            int x1 = Math.min(width - 1, (int) Math.floor((stop - viewStart) / nanosPerPixel));
            int color = labelArgb[lane.labelInk.get(s)];
            // An old read drawn on while no new one came is hatched: the view lags there.
            boolean stale = lane.labelStale.get(s) != 0;
            for (int x = x0; x <= x1; x++) {
                row[x] = stale && (x + (int) (viewStart / nanosPerPixel)) % 6 < 3 ? background : color;
            }
            if (x0 != previousX0 && start >= viewStart && lane.labelSaysNew(s)) {
                row[x0] = edge;
            }
            previousX0 = x0;
        }
    }

    /** Colours {@code stripe} with what the server says of the worker's session; false if it says nothing. */
    private boolean fillStripe(Lane lane, int width) {
        int n = lane.stripeStart.size();
        if (n == 0) {
            return false;
        }
        boolean any = false;
        int first = Math.max(0, lane.stripeStart.floor((long) viewStart));
        double end = viewStart + width * nanosPerPixel;
        for (int s = first; s < n; s++) {
            long start = lane.stripeStart.get(s);
            if (start > end) {
                break;
            }
            int state = lane.stripeState.get(s);
            if (state == Lane.SERVER_NONE) {
                continue;
            }
            long stop = model.stripeStop(lane, s);
            if (stop < viewStart) {
                continue;
            }
            int x0 = Math.max(0, (int) Math.floor((start - viewStart) / nanosPerPixel));
            int x1 = Math.min(width - 1, (int) Math.floor((stop - viewStart) / nanosPerPixel));
            int color = state == Lane.SERVER_WAITS ? STRIPE_WAITS : STRIPE_HOLDS;
            for (int x = x0; x <= x1; x++) {
                stripe[x] = color;
            }
            any = true;
        }
        return any;
    }

    /**
     * What a server lane with nothing to show says: once the server was read, that nothing was held
     * or awaited (a lane of values always shows its first read), as the lock panels say it.
     */
    static String quiet(Lane lane) {
        return lane.sampleTime.size() > 0 ? "no lock held or awaited" : "not read yet";
    }

    private void drawServerLabels(GraphicsContext gc, Lane lane, double y, double laneH) {
        int n = lane.labelStart.size();
        if (n == 0) {
            gc.setFont(font(0.8, false));
            gc.setTextBaseline(VPos.CENTER);
            gc.setTextAlign(TextAlignment.LEFT);
            gc.setFill(Palette.of(Ink.MUTED));
            gc.fillText(quiet(lane), gutter() + 6, y + laneH / 2 - 1);
            return;
        }
        double width = lanesWidth();
        double left = gutter();
        int first = Math.max(0, lane.labelStart.floor((long) viewStart));
        double end = viewStart + width * nanosPerPixel;
        gc.setFont(font(laneH < em() * 1.5 ? 0.7 : 0.85, false));
        gc.setTextBaseline(VPos.CENTER);
        gc.setTextAlign(TextAlignment.LEFT);
        double lastTextEnd = -1;
        for (int s = first; s < n; s++) {
            long start = lane.labelStart.get(s);
            if (start > end) {
                break;
            }
            int from = s;
            s = lane.sameLabelUntil(s, (long) end);
            long stop = model.labelStop(lane, s);
            double x0 = Math.max(left, xOf(start));
            double x1 = Math.min(left + width, xOf(stop));
            if (x1 - x0 < 0.5) {
                continue;
            }
            // Whole words or none: the full label, else its short form, else only the colour (the
            // hover has the words). A label cut mid-word ("3 wait…") reads as something else.
            String text = whole(lane.labelText.get(from), lane.labelShort.get(from), x1 - Math.max(x0, lastTextEnd) - 8);
            if (text != null) {
                gc.setFill(Palette.of(Ink.TEXT));
                gc.fillText(text, Math.max(x0, left) + 4, y + laneH / 2 - 1);
                lastTextEnd = x1;
            }
        }
    }

    /** The longest of {@code text} and {@code shorter} that fits whole in {@code pixels}, or null. */
    private String whole(String text, String shorter, double pixels) {
        int chars = (int) (pixels / (em() * 0.48));
        if (text != null && text.length() <= chars) {
            return text;
        }
        return shorter != null && shorter.length() <= chars ? shorter : null;
    }

    /** Names long segments where they are wide enough: the gate a worker waits at, the lock it holds. */
    private void drawSegmentWords(GraphicsContext gc, Lane lane, double y, double laneH) {
        int n = lane.segStart.size();
        double width = lanesWidth();
        double minWidth = em() * 7;
        if (n == 0 || width / Math.max(1, n) > 1e9) {
            return;
        }
        int first = Math.max(0, lane.segStart.floor((long) viewStart));
        double end = viewStart + width * nanosPerPixel;
        gc.setFont(font(0.75, false));
        gc.setTextBaseline(VPos.CENTER);
        gc.setTextAlign(TextAlignment.LEFT);
        int drawn = 0;
        for (int s = first; s < n && drawn < 200; s++) {
            long start = lane.segStart.get(s);
            if (start > end) {
                break;
            }
            long stop = s + 1 < n ? lane.segStart.get(s + 1) : now;
            double x0 = Math.max(gutter(), xOf(start));
            double x1 = Math.min(gutter() + width, xOf(stop));
            if (x1 - x0 < minWidth) {
                continue;
            }
            ActorState state = Lane.STATES[lane.segState.get(s)];
            if (state.pattern() == ActorState.Pattern.NONE) {
                continue;
            }
            String text = state.describe(lane.segSubject.get(s));
            Color background = Palette.of(state.ink());
            String fitted = fit(text, x1 - x0 - 10);
            if (fitted.isEmpty()) {
                continue;
            }
            if (state.pattern() == ActorState.Pattern.BARRED) {
                gc.setFill(Palette.background());
                gc.fillRoundRect(x0 + 3, y + laneH * 0.14, fitted.length() * em() * 0.45 + 8, laneH * 0.56, 6, 6);
                gc.setFill(Palette.of(Ink.TEXT));
            } else {
                gc.setFill(state.pattern() == ActorState.Pattern.HATCHED ? Palette.of(Ink.TEXT)
                        : Palette.textOn(background));
            }
            gc.fillText(fitted, x0 + 5, y + laneH * 0.42);
            drawn++;
        }
    }

    /**
     * Writes the values of markers where they are sparse enough to read (the marks themselves are
     * painted into the lane's pixels by {@link MarkerSprites}).
     */
    /** {@code text}, cut with an ellipsis to about {@code pixels} wide (no clipping: clips cost a canvas state copy). */
    private String fit(String text, double pixels) {
        int chars = (int) (pixels / (em() * 0.48));
        if (chars >= text.length()) {
            return text;
        }
        if (chars < 4) {
            return "";
        }
        // Cut between words where one ends late enough: "waits: counter…", not "waits: counter r…".
        int space = text.lastIndexOf(' ', chars - 1);
        return text.substring(0, space >= chars / 2 ? space : chars - 1) + "…";
    }

    private void drawMarkers(GraphicsContext gc, Lane lane, double y, double laneH) {
        int n = lane.markTime.size();
        if (n == 0 || laneH < em() * 1.5 || lane.kind != Actor.Kind.WORKER) {
            return;
        }
        double width = lanesWidth();
        double left = gutter();
        double end = viewStart + width * nanosPerPixel;
        int first = Math.max(0, lane.markTime.floor((long) viewStart));
        int last = lane.markTime.floor((long) end);
        if (last - first > width / (em() * 2.5)) {
            return;
        }
        double textEnd = -1e9;
        gc.setFont(font(0.7, true));
        gc.setTextBaseline(VPos.BOTTOM);
        for (int m = first; m <= last && m < n; m++) {
            long t = lane.markTime.get(m);
            double x = xOf(t);
            if (t < viewStart || x < left || x <= textEnd + em() * 0.3) {
                continue;
            }
            EventKind kind = Lane.KINDS[lane.markKind.get(m)];
            long value = lane.markValue.get(m);
            if (kind == EventKind.TOKEN) {
                gc.setTextAlign(TextAlignment.CENTER);
                gc.setFill(Palette.of(Ink.TOKEN));
                gc.fillText("#" + value, x, y + laneH * 0.22 + em() * 0.35);
                textEnd = x + em() * 1.2;
            } else if (kind == EventKind.READ || kind == EventKind.WRITE) {
                String text = (kind == EventKind.READ ? "read " : "wrote ") + value;
                double textW = text.length() * em() * 0.42 + 6;
                gc.setFill(Palette.background().deriveColor(0, 1, 1, 0.92));
                gc.fillRoundRect(x + 2, y + laneH * 0.62, textW, laneH * 0.36, 5, 5);
                gc.setFill(Palette.of(Ink.TEXT));
                gc.setTextAlign(TextAlignment.LEFT);
                gc.fillText(text, x + 5, y + laneH - 3);
                textEnd = x + textW + 2;
            }
        }
    }

    private void drawArrows(GraphicsContext gc, double laneH, double top) {
        int n = model.arrowToTime.size();
        if (n == 0) {
            return;
        }
        double end = viewStart + lanesWidth() * nanosPerPixel;
        int first = Math.max(0, model.arrowToTime.floor((long) viewStart));
        gc.setStroke(Palette.of(Ink.HIGHLIGHT).deriveColor(0, 1, 0.85, 0.75));
        gc.setLineWidth(1.2);
        double lastX = -1e9;
        for (int a = first; a < n; a++) {
            long to = model.arrowToTime.get(a);
            if (to > end) {
                break;
            }
            double x2 = xOf(to);
            if (x2 - lastX < 6) {
                continue;
            }
            int fromPos = positionOf(model.arrowFromLane.get(a));
            int toPos = positionOf(model.arrowToLane.get(a));
            if (fromPos < 0 || toPos < 0) {
                continue;
            }
            double x1 = Math.max(gutter(), xOf(model.arrowFromTime.get(a)));
            double y1 = top + fromPos * laneH - scrollY + laneH * 0.4;
            double y2 = top + toPos * laneH - scrollY + laneH * 0.4;
            if (Math.max(y1, y2) < top || Math.min(y1, y2) > canvas.getHeight()) {
                continue;
            }
            Arrows.draw(gc, x1, y1, Math.max(x1 + 2, x2), y2, Math.max(5, em() * 0.45));
            lastX = x2;
        }
    }

    /**
     * Arrows from each overwriting write (its ✕) back to the writes it wiped out (a lost update, a
     * newer price replaced by a stale one), in the race's colour, to follow by eye. At most {@link #MOST_OVERWRITE_ARROWS} a frame.
     */
    private void drawOverwriteArrows(GraphicsContext gc, double laneH, double top) {
        int n = model.overwriteFromTime.size();
        if (n == 0) {
            return;
        }
        double end = viewStart + lanesWidth() * nanosPerPixel;
        gc.setStroke(Palette.of(Ink.RACE).deriveColor(0, 1, 1, 0.8));
        gc.setLineWidth(1.5);
        int drawn = 0;
        for (int a = 0; a < n && drawn < MOST_OVERWRITE_ARROWS; a++) {
            long from = model.overwriteFromTime.get(a);
            long to = model.overwriteToTime.get(a);
            if (from < viewStart || to > end) {
                continue;
            }
            int fromPos = positionOf(model.overwriteFromLane.get(a));
            int toPos = positionOf(model.overwriteToLane.get(a));
            if (fromPos < 0 || toPos < 0) {
                continue;
            }
            double y1 = top + fromPos * laneH - scrollY + laneH * 0.5;
            double y2 = top + toPos * laneH - scrollY + laneH * 0.5;
            if (Math.max(y1, y2) < top || Math.min(y1, y2) > canvas.getHeight()) {
                continue;
            }
            Arrows.draw(gc, xOf(from), y1, Math.max(gutter(), xOf(to)), y2, Math.max(5, em() * 0.45));
            drawn++;
        }
    }

    private static final int MOST_OVERWRITE_ARROWS = 200;

    private void drawViolationFocus(GraphicsContext gc, double laneH, double top) {
        if (focusedViolation < 0 || focusedViolation >= model.violations()) {
            return;
        }
        double x = xOf(model.violationTime.get(focusedViolation));
        int pos = positionOf(model.violationLane.get(focusedViolation));
        double y = top + pos * laneH - scrollY + laneH * 0.4;
        gc.setStroke(Palette.of(Ink.RACE));
        gc.setLineWidth(1);
        gc.setLineDashes(4, 4);
        gc.strokeLine(x, top, x, canvas.getHeight());
        gc.setLineDashes();
        gc.setLineWidth(2.5);
        double r = Math.max(laneH * 0.7, em());
        gc.strokeOval(x - r, y - r, 2 * r, 2 * r);
    }

    private void drawGutter(GraphicsContext gc, int firstLane, int lastLane, double laneH, double top) {
        double g = gutter();
        gc.setFill(Palette.background());
        gc.fillRect(0, top, g, canvas.getHeight() - top);
        gc.setStroke(Palette.grid());
        gc.setLineWidth(1);
        gc.strokeLine(g - 0.5, top, g - 0.5, canvas.getHeight());
        boolean names = laneH >= em() * 0.9;
        int every = names ? 1 : (int) Math.ceil(em() * 1.1 / laneH);
        gc.setTextBaseline(VPos.CENTER);
        gc.setTextAlign(TextAlignment.LEFT);
        for (int i = firstLane; i <= lastLane; i++) {
            Lane lane = model.lanes.get(order[i]);
            double y = top + i * laneH - scrollY;
            boolean selected = lane.actor == selectedActor.get();
            ActorState state = lane.currentState();
            if (lane.kind == Actor.Kind.WORKER && state == ActorState.AT_GATE || selected) {
                gc.setFill(selected ? Palette.faded(Palette.of(Ink.HIGHLIGHT), 0.7)
                        : Palette.faded(Palette.of(Ink.DELAYED), 0.3));
                gc.fillRect(0, y, g - 1, laneH - 1);
            }
            if (i % every != 0) {
                continue;
            }
            double size = Math.min(lane.kind == Actor.Kind.SERVER ? 0.8 : 0.9, laneH * 0.9 / em());
            gc.setFont(font(Math.round(size * 20) / 20.0, lane.kind == Actor.Kind.SERVER || selected));
            double dot = Math.min(em() * 0.55, laneH * 0.5);
            if (lane.kind == Actor.Kind.WORKER) {
                gc.setFill(Palette.of(state.ink()));
                gc.fillOval(em() * 0.4, y + laneH * 0.45 - dot / 2, dot, dot);
            }
            gc.setFill(lane.kind == Actor.Kind.SERVER ? Palette.of(Ink.HOLDING) : Palette.of(Ink.TEXT));
            gc.fillText(lane.name, em() * 0.4 + (lane.kind == Actor.Kind.WORKER ? dot + em() * 0.35 : 0),
                    y + laneH * 0.45, g - em() * 1.5);
        }
    }

    private void drawAxis(GraphicsContext gc, double w) {
        double top = axisHeight();
        gc.setFill(Palette.background());
        gc.fillRect(0, 0, w, top);
        gc.setStroke(Palette.grid());
        gc.setLineWidth(1);
        gc.strokeLine(0, top - 0.5, w, top - 0.5);
        double step = niceStep(nanosPerPixel * em() * 7);
        double first = Math.ceil(viewStart / step) * step;
        double end = viewStart + lanesWidth() * nanosPerPixel;
        gc.setFont(font(0.8, false));
        gc.setTextBaseline(VPos.CENTER);
        gc.setTextAlign(TextAlignment.CENTER);
        gc.setFill(Palette.of(Ink.MUTED));
        for (double t = first; t <= end; t += step) {
            double x = Math.round(xOf(t)) + 0.5;
            gc.strokeLine(x, top - 5, x, top);
            gc.fillText(TimelineModel.formatTime(t, step), x, top / 2);
        }
        gc.setTextAlign(TextAlignment.LEFT);
        gc.setFill(Palette.of(Ink.TEXT));
        gc.fillText(followLive.get() ? "time · live" : "time", em() * 0.4, top / 2);
    }

    static double niceStep(double rough) {
        double power = Math.pow(10, Math.floor(Math.log10(Math.max(1, rough))));
        for (double factor : new double[] {1, 2, 5, 10}) {
            if (power * factor >= rough) {
                return power * factor;
            }
        }
        return power * 10;
    }

    private void drawHover(GraphicsContext gc, double laneH, double top) {
        if (mouseX < gutter() || mouseY < top || model == null) {
            return;
        }
        int pos = (int) Math.floor((mouseY - top + scrollY) / laneH);
        if (pos < 0 || pos >= order.length) {
            return;
        }
        Lane lane = model.lanes.get(order[pos]);
        double t = viewStart + (mouseX - gutter()) * nanosPerPixel;
        List<String> lines = new ArrayList<>();
        lines.add(lane.name + " · " + TimelineModel.formatTime(t, 1e4));
        if (lane.kind == Actor.Kind.SERVER) {
            int s = lane.labelStart.floor((long) t);
            if (s >= 0 && lane.labelText.get(s) != null && t < model.labelStop(lane, s)) {
                lines.add(lane.labelText.get(s));
            }
            long read = lane.sampleAtOrBefore((long) t);
            if (read >= 0) {
                // The server view is a sample: say which read it is, and how old.
                lines.add("as of the read at " + TimelineModel.formatTime(read, 1e4) + " (read every "
                        + TimelineModel.formatTime(lane.samplePeriod(), 1e6) + ")");
            }
        } else {
            int s = lane.segStart.floor((long) t);
            if (s >= 0) {
                long start = lane.segStart.get(s);
                long stop = s + 1 < lane.segStart.size() ? lane.segStart.get(s + 1) : now;
                ActorState state = Lane.STATES[lane.segState.get(s)];
                String subject = lane.segSubject.get(s);
                lines.add(state.label() + (subject == null ? "" : " (" + subject + ")") + " for "
                        + TimelineModel.formatTime(stop - start, 1e4) + ", from " + TimelineModel.formatTime(start, 1e4));
            }
            int stripeAt = lane.stripeStart.floor((long) t);
            if (stripeAt >= 0 && lane.stripeText.get(stripeAt) != null && t < model.stripeStop(lane, stripeAt)) {
                long read = lane.stripeSource() < 0 ? -1 : model.lanes.get(lane.stripeSource()).sampleAtOrBefore((long) t);
                lines.add(lane.stripeText.get(stripeAt) + (read < 0 ? "" : ", as of the read at " + TimelineModel.formatTime(read, 1e4)));
            }
        }
        double reach = 5 * nanosPerPixel;
        int m = Math.max(0, lane.markTime.floor((long) (t - reach)));
        for (int count = 0; m < lane.markTime.size() && count < 4; m++) {
            long mt = lane.markTime.get(m);
            if (mt > t + reach) {
                break;
            }
            if (mt >= t - reach) {
                lines.add(Lane.KINDS[lane.markKind.get(m)].describe(lane.markSubject.get(m), lane.markValue.get(m)));
                count++;
            }
        }
        gc.setFont(font(0.85, false));
        double lineH = em() * 1.25;
        double boxW = 0;
        for (String line : lines) {
            boxW = Math.max(boxW, line.length() * em() * 0.5);
        }
        boxW += em();
        double boxH = lines.size() * lineH + em() * 0.5;
        double x = Math.min(mouseX + 14, canvas.getWidth() - boxW - 4);
        double y = Math.min(mouseY + 14, canvas.getHeight() - boxH - 4);
        gc.setFill(Palette.background().deriveColor(0, 1, 1, 0.96));
        gc.fillRoundRect(x, y, boxW, boxH, 8, 8);
        gc.setStroke(Palette.of(Ink.OUTLINE));
        gc.setLineWidth(1);
        gc.strokeRoundRect(x, y, boxW, boxH, 8, 8);
        gc.setTextAlign(TextAlignment.LEFT);
        gc.setTextBaseline(VPos.TOP);
        for (int i = 0; i < lines.size(); i++) {
            gc.setFill(i == 0 ? Palette.of(Ink.MUTED) : Palette.of(Ink.TEXT));
            gc.fillText(lines.get(i), x + em() * 0.5, y + em() * 0.25 + i * lineH);
        }
    }

    private void hover(MouseEvent e) {
        mouseX = e.getX();
        mouseY = e.getY();
        dirty = true;
    }

    private void press(MouseEvent e) {
        requestFocus();
        dragX = e.getX();
        if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 1 && model != null) {
            double top = axisHeight();
            int pos = (int) Math.floor((e.getY() - top + scrollY) / laneHeight());
            if (pos >= 0 && pos < order.length && model.lanes.get(order[pos]).kind == Actor.Kind.WORKER) {
                int actor = order[pos];
                if (e.getX() < gutter()) {
                    selectedActor.set(selectedActor.get() == actor ? -1 : actor);
                }
            }
        }
        dirty = true;
    }

    private void drag(MouseEvent e) {
        if (Double.isNaN(dragX) || e.getX() < gutter()) {
            return;
        }
        double dx = e.getX() - dragX;
        dragX = e.getX();
        pan(-dx);
    }

    /** Moves the view by {@code pixels} (positive: later in time). */
    public void pan(double pixels) {
        followLive.set(false);
        viewStart = Math.max(0, viewStart + pixels * nanosPerPixel);
        dirty = true;
    }

    private void scroll(ScrollEvent e) {
        if (e.isControlDown()) {
            zoom(e.getDeltaY() > 0 ? 0.8 : 1.25, e.getX() - gutter());
        } else if (e.isShiftDown() || Math.abs(e.getDeltaX()) > Math.abs(e.getDeltaY())) {
            double delta = e.isShiftDown() ? e.getDeltaY() : e.getDeltaX();
            pan(-delta);
        } else {
            scroll.setValue(Math.max(0, Math.min(scroll.getMax(), scroll.getValue() - e.getDeltaY())));
        }
        e.consume();
    }

    private void zoom(double factor, double anchorX) {
        double anchorT = viewStart + anchorX * nanosPerPixel;
        nanosPerPixel = Math.max(200, Math.min(1e10, nanosPerPixel * factor));
        if (!followLive.get()) {
            viewStart = Math.max(0, anchorT - anchorX * nanosPerPixel);
        }
        dirty = true;
    }

    /** For tests and benchmarks: nanoseconds per pixel and the left edge of the view. */
    /** The time shown now, from and to, in nanoseconds from the timeline's origin. */
    public long[] shownWindow() {
        return new long[] {(long) Math.max(0, viewStart), (long) (viewStart + lanesWidth() * nanosPerPixel)};
    }

    public void setView(double nanosPerPixel, double viewStart) {
        this.nanosPerPixel = nanosPerPixel;
        this.viewStart = viewStart;
        dirty = true;
    }
}
