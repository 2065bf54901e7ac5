package dev.racelab.ui.timeline;

import dev.racelab.engine.Actor;
import dev.racelab.engine.view.timeline.TimelineModel;
import dev.racelab.engine.view.timeline.paint.PaintColours;
import dev.racelab.engine.view.timeline.paint.TimelineLayout;
import dev.racelab.engine.view.timeline.paint.TimelinePainter;
import dev.racelab.ui.look.Palette;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.geometry.Orientation;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.ScrollBar;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.Region;
import javafx.scene.text.Font;

/**
 * The live timeline: server lanes on top, one lane per worker below, time running left to right.
 *
 * <p><b>Reading it.</b> A worker's lane shows what the worker says it does; a thin stripe under it
 * shows what the server says of its session (waiting, holding). Delays are hatched and halts at
 * gates dotted, so they read without colour too.
 *
 * <p>This class is the view's controls and its state (follow live, zoom, pan, scroll, select);
 * which time is in view is its {@link TimelineCamera}'s, what is drawn the {@link
 * TimelinePainter}'s — the same painter the exported pictures are drawn by — on the canvas
 * ({@link FxSurface}), with the hover box over it ({@link TimelineHover}).
 *
 * <p>Owned by the FX thread. {@link #render} is called once per frame by the window.
 */
public final class TimelineView extends Region {

    private final Canvas canvas = new Canvas();
    private final ScrollBar scroll = new ScrollBar();
    private final BooleanProperty compact = new SimpleBooleanProperty(this, "compact", false);
    private final IntegerProperty selectedActor = new SimpleIntegerProperty(this, "selectedActor", -1);
    private final TimelineLayout layout = new TimelineLayout();
    private final TimelineCamera camera = new TimelineCamera(layout);
    private final TimelinePainter painter = new TimelinePainter(layout, new PaintColours(Palette.theme()));
    private final FxSurface surface = new FxSurface(canvas.getGraphicsContext2D());
    private final TimelineHover hoverBox = new TimelineHover(layout, surface);

    private double dragX = Double.NaN;
    private int focusedViolation = -1;
    private boolean dirty = true;

    /** Takes up the palette's colours after a change of theme, and redraws. */
    public void themeChanged() {
        painter.colours(new PaintColours(Palette.theme()));
        dirty = true;
    }

    public TimelineView() {
        getStyleClass().add("timeline");
        layout.setEm(Font.getDefault().getSize());
        scroll.setOrientation(Orientation.VERTICAL);
        scroll.valueProperty().addListener((o, a, b) -> {
            layout.scrollY = b.doubleValue();
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
        camera.followLive().addListener((o, a, b) -> dirty = true);
        compact.addListener((o, a, b) -> {
            layout.compact = b;
            dirty = true;
        });
    }

    /** Follow the newest events as they come; panning or zooming by hand turns it off. */
    public BooleanProperty followLiveProperty() {
        return camera.followLive();
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
        return layout.model;
    }

    /** Shows another run's timeline (or none). */
    public void setModel(TimelineModel model) {
        layout.model = model;
        focusedViolation = -1;
        layout.now = 0;
        layout.scrollY = 0;
        scroll.setValue(0);
        camera.reset();
        dirty = true;
    }

    public void zoomIn() {
        camera.zoom(0.5, layout.lanesWidth() / 2);
        dirty = true;
    }

    public void zoomOut() {
        camera.zoom(2, layout.lanesWidth() / 2);
        dirty = true;
    }

    /** Shows the whole run. */
    public void fit() {
        if (layout.model != null) {
            camera.fit(layout.model.latest());
            dirty = true;
        }
    }

    /** Centres the view on violation {@code index} and marks it. */
    public void showViolation(int index) {
        if (layout.model == null || index < 0 || index >= layout.model.violations()) {
            return;
        }
        focusedViolation = index;
        camera.centreOn(layout.model.violationTime.get(index), layout.model.latest());
        int lane = layout.model.violationLane.get(index);
        double y = layout.positionOf(lane) * layout.laneHeight();
        double visible = canvas.getHeight() - layout.axisHeight();
        if (y < layout.scrollY || y > layout.scrollY + visible - layout.laneHeight()) {
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
     * @param nowNanos time since the run's start, for the open ends of live segments
     * @param live     whether the run is still going (its last segments grow)
     * @return whether it drew
     */
    public boolean render(long nowNanos, boolean live) {
        if (!dirty && !live) {
            return false;
        }
        layout.now = layout.model == null ? 0 : Math.max(nowNanos, layout.model.latest());
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
        layout.width = w;
        layout.height = h;
        scroll.resizeRelocate(w, 0, scrollWidth, h);
        dirty = true;
    }

    /** The base font size in pixels; everything on the timeline scales with it. */
    public void setEm(double size) {
        layout.setEm(size);
        dirty = true;
        requestLayout();
    }

    /**
     * The height the canvas needs to show {@code lanes} lanes (the time axis and each lane as thin
     * as its words allow): what the window keeps for the timeline when it shares out its height.
     */
    public double heightFor(int lanes) {
        return layout.axisHeight() + lanes * Math.ceil(layout.em() * 1.4) + 2;
    }

    /** How many lanes the shown run has now (its server lanes and workers); 0 with none shown. */
    public int laneCount() {
        return layout.order.length;
    }

    /**
     * Where the timeline is now, for a picture of it exactly as shown: size, font, time in view,
     * scroll, and the lanes' height as {@link TimelineLayout#fixedLaneHeight} (a copy, without the run).
     */
    public TimelineLayout shownLayout() {
        TimelineLayout copy = new TimelineLayout();
        copy.width = layout.width;
        copy.height = layout.height;
        copy.setEm(layout.em());
        copy.compact = layout.compact;
        copy.nanosPerPixel = layout.nanosPerPixel;
        copy.viewStart = layout.viewStart;
        copy.scrollY = layout.scrollY;
        copy.now = layout.now;
        copy.fixedLaneHeight = layout.model == null ? 0 : layout.laneHeight();
        return copy;
    }

    private void draw(boolean live) {
        layout.width = canvas.getWidth();
        layout.height = canvas.getHeight();
        if (layout.model != null) {
            layout.orderLanes();
            double visible = layout.height - layout.axisHeight();
            double total = layout.order.length * layout.laneHeight();
            scroll.setMax(Math.max(0, total - visible));
            scroll.setVisibleAmount(visible);
            scroll.setVisible(total > visible);
            layout.scrollY = Math.min(layout.scrollY, scroll.getMax());
            camera.follow();
        }
        boolean following = camera.followLive().get();
        surface.newFrame();
        painter.paint(surface, new TimelinePainter.Marks(following, live && following, focusedViolation,
                selectedActor.get()));
        if (layout.model != null) {
            hoverBox.drawHover(canvas.getGraphicsContext2D(), layout.laneHeight(), layout.axisHeight());
        }
    }

    private void hover(MouseEvent e) {
        hoverBox.moveTo(e.getX(), e.getY());
        dirty = true;
    }

    private void press(MouseEvent e) {
        requestFocus();
        dragX = e.getX();
        if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 1 && layout.model != null) {
            double top = layout.axisHeight();
            int pos = (int) Math.floor((e.getY() - top + layout.scrollY) / layout.laneHeight());
            if (pos >= 0 && pos < layout.order.length
                    && layout.model.lanes.get(layout.order[pos]).kind == Actor.Kind.WORKER) {
                int actor = layout.order[pos];
                if (e.getX() < layout.gutter()) {
                    selectedActor.set(selectedActor.get() == actor ? -1 : actor);
                }
            }
        }
        dirty = true;
    }

    private void drag(MouseEvent e) {
        if (Double.isNaN(dragX) || e.getX() < layout.gutter()) {
            return;
        }
        double dx = e.getX() - dragX;
        dragX = e.getX();
        pan(-dx);
    }

    /** Moves the view by {@code pixels} (positive: later in time). */
    public void pan(double pixels) {
        camera.pan(pixels);
        dirty = true;
    }

    private void scroll(ScrollEvent e) {
        if (e.isControlDown()) {
            camera.zoom(e.getDeltaY() > 0 ? 0.8 : 1.25, e.getX() - layout.gutter());
            dirty = true;
        } else if (e.isShiftDown() || Math.abs(e.getDeltaX()) > Math.abs(e.getDeltaY())) {
            double delta = e.isShiftDown() ? e.getDeltaY() : e.getDeltaX();
            pan(-delta);
        } else {
            scroll.setValue(Math.max(0, Math.min(scroll.getMax(), scroll.getValue() - e.getDeltaY())));
        }
        e.consume();
    }

    /** For tests and benchmarks: nanoseconds per pixel and the left edge of the view. */
    public void setView(double nanosPerPixel, double viewStart) {
        camera.set(nanosPerPixel, viewStart);
        dirty = true;
    }
}
