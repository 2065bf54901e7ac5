package dev.racelab.ui.timeline;

import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.engine.view.timeline.Lane;

import dev.racelab.engine.Actor;
import dev.racelab.engine.Ink;
import dev.racelab.ui.look.Palette;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.geometry.Orientation;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.ScrollBar;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Region;

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
 *
 * <p>This class holds the view's state and its controls (follow live, zoom, pan, scroll, select);
 * what is drawn is drawn by its painters, each one part of the picture, all reading one
 * {@link TimelineFrame}: {@link LanePixels} (the lanes' colours and marks), {@link LaneWords}
 * (the words on them), {@link TimelineOverlays} (arrows, the focused violation), {@link LaneNames}
 * (the gutter), {@link TimeAxis} and {@link TimelineHover}.
 */
public final class TimelineView extends Region {

    private static final double FOLLOW_WINDOW = 10e9;
    private static final double MIN_FOLLOW_SPAN = 50e6;

    private final Canvas canvas = new Canvas();
    private final ScrollBar scroll = new ScrollBar();
    private final BooleanProperty followLive = new SimpleBooleanProperty(this, "followLive", true);
    private final BooleanProperty compact = new SimpleBooleanProperty(this, "compact", false);
    private final IntegerProperty selectedActor = new SimpleIntegerProperty(this, "selectedActor", -1);
    private final TimelineFrame frame = new TimelineFrame(canvas, compact);
    private final LanePixels lanePixels = new LanePixels(frame);
    private final LaneWords laneWords = new LaneWords(frame);
    private final TimelineOverlays overlays = new TimelineOverlays(frame);
    private final LaneNames laneNames = new LaneNames(frame, selectedActor);
    private final TimeAxis axis = new TimeAxis(frame, followLive);
    private final TimelineHover hoverBox = new TimelineHover(frame);

    private double dragX = Double.NaN;
    private int focusedViolation = -1;
    private boolean dirty = true;

    /** Takes up the palette's colours after a change of theme, and redraws. */
    public void themeChanged() {
        lanePixels.themeChanged();
        dirty = true;
    }

    public TimelineView() {
        getStyleClass().add("timeline");
        scroll.setOrientation(Orientation.VERTICAL);
        scroll.valueProperty().addListener((o, a, b) -> {
            frame.scrollY = b.doubleValue();
            dirty = true;
        });
        getChildren().addAll(canvas, scroll);
        setFocusTraversable(true);
        canvas.setOnMouseMoved(this::hover);
        canvas.setOnMouseExited(e -> {
            hoverBox.leave();
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
        return frame.model;
    }

    /** Shows another run's timeline (or none). */
    public void setModel(TimelineModel model) {
        frame.model = model;
        this.focusedViolation = -1;
        frame.now = 0;
        frame.viewStart = 0;
        frame.scrollY = 0;
        scroll.setValue(0);
        followLive.set(true);
        dirty = true;
    }

    public void zoomIn() {
        zoom(0.5, frame.lanesWidth() / 2);
    }

    public void zoomOut() {
        zoom(2, frame.lanesWidth() / 2);
    }

    /** Shows the whole run. */
    public void fit() {
        if (frame.model != null) {
            frame.nanosPerPixel = Math.max(1_000, Math.max(frame.model.latest(), frame.now) * 1.02 / Math.max(1, frame.lanesWidth()));
            frame.viewStart = 0;
            followLive.set(false);
            dirty = true;
        }
    }

    /** Centres the view on violation {@code index} and marks it. */
    public void showViolation(int index) {
        if (frame.model == null || index < 0 || index >= frame.model.violations()) {
            return;
        }
        focusedViolation = index;
        followLive.set(false);
        double width = frame.lanesWidth();
        frame.nanosPerPixel = Math.min(frame.nanosPerPixel, Math.max(1_000, frame.model.latest() / Math.max(1, width)));
        frame.viewStart = Math.max(0, frame.model.violationTime.get(index) - width * frame.nanosPerPixel / 2);
        int lane = frame.model.violationLane.get(index);
        double y = frame.positionOf(lane) * frame.laneHeight();
        double visible = canvas.getHeight() - frame.axisHeight();
        if (y < frame.scrollY || y > frame.scrollY + visible - frame.laneHeight()) {
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
        frame.now = frame.model == null ? 0 : Math.max(nowNanos, frame.model.latest());
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

    /** The base font size in pixels; everything on the timeline scales with it. */
    public void setEm(double size) {
        frame.setEm(size);
        dirty = true;
        requestLayout();
    }

    /**
     * The height the canvas needs to show {@code lanes} lanes (the time axis and each lane as thin
     * as its words allow): what the window keeps for the timeline when it shares out its height.
     */
    public double heightFor(int lanes) {
        return frame.axisHeight() + lanes * Math.ceil(frame.em() * 1.4) + 2;
    }

    /** How many lanes the shown run has now (its server lanes and workers); 0 with none shown. */
    public int laneCount() {
        return frame.order.length;
    }

    private void draw(boolean live) {
        GraphicsContext gc = canvas.getGraphicsContext2D();
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        gc.setFill(Palette.background());
        gc.fillRect(0, 0, w, h);
        if (frame.model == null || w < 10 || h < 10) {
            return;
        }
        frame.orderLanes();
        double laneH = frame.laneHeight();
        double top = frame.axisHeight();
        double visible = h - top;
        double total = frame.order.length * laneH;
        scroll.setMax(Math.max(0, total - visible));
        scroll.setVisibleAmount(visible);
        scroll.setVisible(total > visible);
        frame.scrollY = Math.min(frame.scrollY, scroll.getMax());
        double width = frame.lanesWidth();
        if (followLive.get()) {
            // The whole run stays in view as it grows; only a long run scrolls, showing its
            // last FOLLOW_WINDOW.
            double span = Math.min(Math.max(frame.now, MIN_FOLLOW_SPAN), FOLLOW_WINDOW);
            frame.nanosPerPixel = span / (width * 0.97);
            frame.viewStart = Math.max(0, frame.now - span);
        }
        int firstLane = (int) Math.floor(frame.scrollY / laneH);
        int lastLane = Math.min(frame.order.length - 1, (int) Math.ceil((frame.scrollY + visible) / laneH));

        lanePixels.paintSegments(gc, firstLane, lastLane, laneH, top, (int) width, (int) Math.ceil(visible));
        for (int i = firstLane; i <= lastLane; i++) {
            double y = top + i * laneH - frame.scrollY;
            Lane lane = frame.model.lanes.get(frame.order[i]);
            if (lane.kind == Actor.Kind.SERVER) {
                laneWords.drawServerLabels(gc, lane, y, laneH);
            } else if (laneH >= frame.em() * 1.5) {
                laneWords.drawSegmentWords(gc, lane, y, laneH);
            }
            laneWords.drawMarkers(gc, lane, y, laneH);
        }
        overlays.drawArrows(gc, laneH, top);
        overlays.drawOverwriteArrows(gc, laneH, top);
        overlays.drawViolationFocus(gc, laneH, top, focusedViolation);
        laneNames.drawGutter(gc, firstLane, lastLane, laneH, top);
        axis.drawAxis(gc, w);
        if (live && followLive.get()) {
            double x = frame.xOf(frame.now);
            gc.setStroke(Palette.of(Ink.MUTED));
            gc.setLineWidth(1);
            gc.strokeLine(x, top, x, h);
        }
        hoverBox.drawHover(gc, laneH, top);
    }

    private void hover(MouseEvent e) {
        hoverBox.moveTo(e.getX(), e.getY());
        dirty = true;
    }

    private void press(MouseEvent e) {
        requestFocus();
        dragX = e.getX();
        if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 1 && frame.model != null) {
            double top = frame.axisHeight();
            int pos = (int) Math.floor((e.getY() - top + frame.scrollY) / frame.laneHeight());
            if (pos >= 0 && pos < frame.order.length && frame.model.lanes.get(frame.order[pos]).kind == Actor.Kind.WORKER) {
                int actor = frame.order[pos];
                if (e.getX() < frame.gutter()) {
                    selectedActor.set(selectedActor.get() == actor ? -1 : actor);
                }
            }
        }
        dirty = true;
    }

    private void drag(MouseEvent e) {
        if (Double.isNaN(dragX) || e.getX() < frame.gutter()) {
            return;
        }
        double dx = e.getX() - dragX;
        dragX = e.getX();
        pan(-dx);
    }

    /** Moves the view by {@code pixels} (positive: later in time). */
    public void pan(double pixels) {
        followLive.set(false);
        frame.viewStart = Math.max(0, frame.viewStart + pixels * frame.nanosPerPixel);
        dirty = true;
    }

    private void scroll(ScrollEvent e) {
        if (e.isControlDown()) {
            zoom(e.getDeltaY() > 0 ? 0.8 : 1.25, e.getX() - frame.gutter());
        } else if (e.isShiftDown() || Math.abs(e.getDeltaX()) > Math.abs(e.getDeltaY())) {
            double delta = e.isShiftDown() ? e.getDeltaY() : e.getDeltaX();
            pan(-delta);
        } else {
            scroll.setValue(Math.max(0, Math.min(scroll.getMax(), scroll.getValue() - e.getDeltaY())));
        }
        e.consume();
    }

    private void zoom(double factor, double anchorX) {
        double anchorT = frame.viewStart + anchorX * frame.nanosPerPixel;
        frame.nanosPerPixel = Math.max(200, Math.min(1e10, frame.nanosPerPixel * factor));
        if (!followLive.get()) {
            frame.viewStart = Math.max(0, anchorT - anchorX * frame.nanosPerPixel);
        }
        dirty = true;
    }

    /** The time shown now, from and to, in nanoseconds from the timeline's origin. */
    public long[] shownWindow() {
        return new long[] {(long) Math.max(0, frame.viewStart), (long) (frame.viewStart + frame.lanesWidth() * frame.nanosPerPixel)};
    }

    /** For tests and benchmarks: nanoseconds per pixel and the left edge of the view. */
    public void setView(double nanosPerPixel, double viewStart) {
        frame.nanosPerPixel = nanosPerPixel;
        frame.viewStart = viewStart;
        dirty = true;
    }
}
