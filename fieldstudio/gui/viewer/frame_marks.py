"""The marks of the frame on screen, drawn over the picture: boxes, rulers, polygons, polylines and points, the
floor grid, and the timeline's segment and event markers.

:class:`FrameMarks` rebuilds the overlay from the project whenever the state (gui/state.py) shows another
frame or an edit was made, so what is drawn is always what is stored. It keeps the selection across a
redraw and places the caption chips so that none covers another. Items are dragged by the user; the
moves come out as ``box_moved`` / ``ruler_moved`` / ``shape_moved`` for the drawing tools to turn into edits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.viewer.angle_item import ANGLE_COLOR, AngleItem
from fieldstudio.gui.viewer.frame_read_ahead import FrameReadAhead
from fieldstudio.gui.viewer.overlay import BoxItem, GridItem, RulerItem, arrange_captions
from fieldstudio.gui.viewer.shape_items import ShapeItem, VertexItem

if TYPE_CHECKING:
    from collections.abc import Callable

    from fieldstudio.annotations import box_tracks
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.gui.state import ViewState
    from fieldstudio.gui.tools.labels import MarkLabels
    from fieldstudio.gui.viewer.canvas import Canvas

RULER_COLOR = "#ffd60a"  # a ruler without a label


class FrameMarks(QObject):
    """The overlay of ``canvas`` for the media and frame ``state`` shows, coloured by ``labels``.

    Signals: ``markers_changed(segments, events)`` with the timeline's markers (gui/timeline.py
    SegmentMarker, EventMarker) after a full refresh of a video; ``box_moved(item, (x, y, w, h))`` and
    ``ruler_moved(item, p, q)`` when the user dragged a mark (image pixels); ``shape_moved(item, vertices,
    what)`` when a polygon, polyline or points mark was moved or a vertex dragged, inserted or deleted;
    ``mark_drawn(annotation_id)`` when the user drew a new mark (the window brings its Properties to the front).
    ``notify(message)`` says why the floor grid cannot be drawn.
    """

    markers_changed = Signal(list, list)
    box_moved = Signal(object, object)
    ruler_moved = Signal(object, object, object)
    shape_moved = Signal(object, object, str)
    angle_moved = Signal(object, object)   # (AngleItem, [a, vertex, b]) after a point was dragged
    mark_drawn = Signal(str)

    def __init__(self, state: ViewState, canvas: Canvas, labels: MarkLabels, notify: Callable[[str], None],
                 parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.canvas, self.labels, self.notify = state, canvas, labels, notify
        self.items: list = []  # the graphics items drawn for the frame shown
        self.show_grid = True
        self._grid: GridItem | None = None
        self._grid_for: str | None = None  # media id the grid (and label colours) were read for
        self._select_next: str | None = None
        self._select_next_track: tuple[int, int] | None = None  # (track, frame): selected again after [ or ]
        # (media id, track id) of the last shape of a track selected: Shift+K keys that track on a later frame
        self.last_shape_track: tuple[str, int] | None = None
        # the rows of the frame the decoder makes, read meanwhile; dropped by any full refresh (an edit), so a read
        # older than the last edit is never drawn
        self.read_ahead = FrameReadAhead.of(state)
        canvas.scene().selectionChanged.connect(self._selection_changed)
        # captions stay inside the part of the picture on screen: placed again after a zoom or a scroll
        canvas.zoom_changed.connect(lambda _z: self.arrange_captions())
        canvas.horizontalScrollBar().valueChanged.connect(lambda _v: self.arrange_captions())
        canvas.verticalScrollBar().valueChanged.connect(lambda _v: self.arrange_captions())
        state.events.media.connect(self._media_shown)
        state.events.frame.connect(self._frame_shown)

    @property
    def media(self):  # noqa: ANN201 - Media | None
        """The photo or video shown (marks are drawn on nothing else)."""
        m = self.state.media
        return m if m is not None and m.kind in ("image", "video") else None

    def _media_shown(self, _media: object) -> None:
        self._grid_for = None  # the grid and the label colours are read again for the next media

    def _frame_shown(self, frame: tuple[int, float, bool]) -> None:
        if self.state.playing and not frame[2]:
            return  # the marks stay as they are while playing (issue 21); the exact frame on pause redraws them
        self.refresh(frame_only=True)

    # --- selection -------------------------------------------------------------------------------
    def selected_items(self) -> list:
        """The boxes, rulers, angles, shapes and skeletons selected on the canvas."""
        return [i for i in self.canvas.scene().selectedItems()
                if isinstance(i, (BoxItem, RulerItem, AngleItem, VertexItem))]

    def selected_ids(self) -> list[str]:
        """Annotation ids of the stored marks selected (an interpolated box has none)."""
        return [i.annotation_id for i in self.selected_items() if i.annotation_id]

    def _selection_changed(self) -> None:
        self.state.selection = tuple(self.selected_ids())
        items = self.selected_items()
        tracked = [i for i in items if isinstance(i, VertexItem) and i.track_id is not None]
        if tracked and self.media is not None:
            self.last_shape_track = (self.media.id, tracked[0].track_id)
        if items and self.state.tool == "select":
            first = items[0]
            kind = "box" if isinstance(first, BoxItem) else "ruler" if isinstance(first, RulerItem) else \
                getattr(first, "kind", None)  # an angle has no label list of its own: the keys keep the last one
            if kind is not None:
                self.state.mark_kind = kind

    def select_on_refresh(self, annotation_id: str, *, alone: bool = True) -> None:
        """Select this mark when it is next drawn (``alone``: the others are unselected), e.g. after a jump
        from the annotation list."""
        if alone:
            for item in self.selected_items():
                item.setSelected(False)
        self._select_next = annotation_id

    def select_drawn(self, annotation_id: str) -> None:
        """A mark the user just drew: selected alone when next drawn, and ``mark_drawn`` says so."""
        self.select_on_refresh(annotation_id)
        self.mark_drawn.emit(annotation_id)

    def select_track_on(self, track_id: int, frame_index: int) -> None:
        """Select the box of track ``track_id`` when frame ``frame_index`` is drawn (after [ or ])."""
        self._select_next_track = (track_id, frame_index)

    # --- drawing ---------------------------------------------------------------------------------
    def clear(self) -> None:
        """Take every mark off the canvas."""
        scene = self.canvas.scene()
        for item in self.items:
            if item.scene() is scene:
                scene.removeItem(item)
        self.items.clear()

    def refresh(self, *, frame_only: bool = False) -> None:
        """Redraw the marks of the media and frame shown, and the timeline's segments and events.

        ``frame_only`` skips what does not depend on the frame (labels, calibration grid, timeline
        markers), which keeps stepping and playback to two small queries per frame.
        """
        selected = set(self.selected_ids())
        if self._select_next is not None:
            selected.add(self._select_next)
        self.clear()
        media, project = self.media, self.state.project
        if project is None or media is None:
            return
        full = not frame_only or self._grid_for != media.id
        frame = self.state.video_frame()
        contents = None if full else self.read_ahead.take("marks", project, media.id, frame)
        if contents is None:
            from fieldstudio.annotations.frame_contents import read_frame

            # any other redraw may follow an edit: a read made before it must not be shown by anyone
            self.read_ahead.drop()
            contents = read_frame(project, media.id, frame)
        boxes, rulers, shapes = contents.boxes, contents.measures, contents.shapes
        if full:
            self.labels.reload()
            self._grid = self._make_grid(media) if self.show_grid else None
            self._grid_for = media.id
        scene = self.canvas.scene()
        color = self.labels.color
        for b in boxes:
            caption = " ".join(x for x in (b.label_name or "", f"#{b.track_id}" if b.track_id is not None else "",
                                           "" if b.keyframe else "(interpolated)") if x)
            item = BoxItem(b.box, color(b.label_id), caption, annotation_id=b.annotation_id,
                           track_id=b.track_id, keyframe=b.keyframe, changed=self.box_moved.emit)
            item.version = b.version  # a move made from this read is refused if someone changed the box since
            item.setToolTip(_box_tip(b))
            scene.addItem(item)
            self.items.append(item)
        for r in rulers:
            if r.kind == "angle":
                item = AngleItem(r.geometry, color(r.label_id) if r.label_id else ANGLE_COLOR, annotation_id=r.id,
                                 measure=self.angle_measurer(), changed=self.angle_moved.emit)
                scene.addItem(item)
                self.items.append(item)
                continue
            (p, q) = r.geometry
            item = RulerItem(tuple(p), tuple(q), color(r.label_id) if r.label_id else RULER_COLOR,
                             annotation_id=r.id, measure=self.measurer(), changed=self.ruler_moved.emit)
            scene.addItem(item)
            self.items.append(item)
        for r in shapes:
            if r.kind == "skeleton":
                item = self._skeleton_item(r)
            else:
                item = ShapeItem(r.kind, r.vertices, color(r.label_id), _shape_caption(r),
                                 annotation_id=r.annotation_id, changed=self.shape_moved.emit)
                item.setToolTip(_shape_tip(r))
            item.version, item.track_id, item.keyframe = r.version, r.track_id, r.keyframe
            scene.addItem(item)
            self.items.append(item)
        if self._grid is not None:
            scene.addItem(self._grid)
            self.items.append(self._grid)
        self.arrange_captions()
        follow = None
        if self._select_next_track is not None and self._select_next_track[1] == frame:
            follow, self._select_next_track = self._select_next_track[0], None
        for item in self.items:
            if getattr(item, "annotation_id", None) in selected or \
                    (follow is not None and isinstance(item, (BoxItem, VertexItem)) and item.track_id == follow):
                item.setSelected(True)
                if item.annotation_id == self._select_next:
                    self._select_next = None
        if full:
            self._update_timeline(media)

    def _skeleton_item(self, r):  # noqa: ANN001, ANN202 - shape_tracks.FrameShape -> SkeletonItem
        from fieldstudio.annotations import skeleton_templates
        from fieldstudio.gui.viewer.skeleton_item import SkeletonItem

        template = skeleton_templates.template_of(self.state.project, r.template)
        item = SkeletonItem(template, r.vertices, self.labels.color(r.label_id), _shape_caption(r),
                            annotation_id=r.annotation_id, changed=self.shape_moved.emit)
        item.setToolTip(_shape_tip(r))
        return item

    def arrange_captions(self) -> None:
        """Place the caption chips of the marks shown so that none covers another (overlay.arrange_captions)."""
        chips = []
        for item in self.items:
            if isinstance(item, BoxItem):
                r = item.rect
                chips.append((item.caption, (r.left(), r.top(), r.right(), r.bottom())))
            elif isinstance(item, (RulerItem, AngleItem)):
                chips.append((item.text, item.anchor_rect()))
            elif isinstance(item, VertexItem):
                chips.append((item.caption, item.anchor_rect()))
        arrange_captions(chips, self.canvas)

    def measurer(self, on_floor: bool | None = None) -> Callable[[tuple[float, float], tuple[float, float]], str]:
        """``measure(p, q)``: a ruler's text on the media shown, "1.23 m (floor)" or "345 px (uncalibrated)";
        ``on_floor`` None measures with the calibration in use for the media."""
        from fieldstudio.annotations import calibrations

        project, media_id = self.state.project, self.media.id

        def measure(p: tuple[float, float], q: tuple[float, float]) -> str:
            m = calibrations.measure_points(project, media_id, p, q, on_floor=on_floor)
            # the caption names the calibration that gave the metres: a group may hold a scale and a floor
            return f"{m.metres:.2f} m ({m.kind})" if m.metres is not None else f"{m.pixels:.0f} px (uncalibrated)"
        return measure

    def angle_measurer(self) -> Callable[[list[tuple[float, float]]], str]:
        """``measure(points)``: an angle's text on the media shown, "37.5° on the floor" or "37.5° (image plane)"."""
        from fieldstudio.annotations import angles

        project, media_id = self.state.project, self.media.id

        def measure(points: list[tuple[float, float]]) -> str:
            try:
                return angles.measure_points(project, media_id, points).text()
            except ValueError:
                return "no angle"
        return measure

    def _make_grid(self, media) -> GridItem | None:  # noqa: ANN001 - Media
        from fieldstudio.annotations import calibrations

        record = calibrations.calibration_for(self.state.project, media.id, "floor")
        if record is None:
            return None
        try:
            core = record.to_core()
            lines = core.grid_lines(step_m=0.5, image_size=(media.width or 0, media.height or 0) or None)
        except FieldstudioError as exc:
            self.notify(f"floor grid: {exc}")
            return None
        edge = {0.0, float(record.width_m or 0), float(record.depth_m or 0)}
        grid = GridItem([(tuple(g.start), tuple(g.end), round(g.offset_m, 6) in edge) for g in lines])
        grid.setToolTip(record.describe())
        return grid

    def _update_timeline(self, media) -> None:  # noqa: ANN001 - Media
        from fieldstudio.annotations import box_tracks
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.gui.timeline import EventMarker, SegmentMarker

        if media.kind != "video":
            return
        color = self.labels.color
        marks = ann.list_annotations(self.state.project, media_id=media.id, kinds=["segment", "event"])
        segments = [SegmentMarker(r.frame_index, r.end_frame_index, color(r.label_id), r.label_name or "", r.id)
                    for r in marks if r.kind == "segment"]
        events = [EventMarker(r.frame_index, color(r.label_id), r.label_name or "", r.id)
                  for r in marks if r.kind == "event"]
        self.markers_changed.emit(segments, events)


def _box_tip(b: box_tracks.FrameBox) -> str:
    """A box's tooltip: label, track, attributes, geometry, and how to correct an interpolated one."""
    parts = [b.label_name or "(no label)"]
    if b.track_id is not None:
        parts.append(f"track {b.track_id}")
    if b.attributes:
        parts.append(", ".join(f"{k}={'yes' if v is True else 'no' if v is False else v}"
                               for k, v in b.attributes.items()))
    x1, y1, x2, y2 = b.box
    parts.append(f"x {x1:.0f} y {y1:.0f} w {x2 - x1:.0f} h {y2 - y1:.0f} px")
    if not b.keyframe:
        parts.append("interpolated: drag or resize it to correct it, or double-click (Shift+K), "
                     "to make it a keyframe")
    return "\n".join(parts)


def _shape_caption(r) -> str:  # noqa: ANN001 - shape_tracks.FrameShape
    """A shape's chip: its label, its track and "(interpolated)" on a frame between keyframes."""
    return " ".join(x for x in (r.label_name or "", f"#{r.track_id}" if r.track_id is not None else "",
                                "" if r.keyframe else "(interpolated)") if x)


def _shape_tip(r) -> str:  # noqa: ANN001 - shape_tracks.FrameShape
    """A shape's tooltip: label, kind and vertices, its track, how to edit it, and why frames next to it are not
    interpolated."""
    if r.kind == "skeleton":
        placed = sum(p is not None for p in r.vertices)
        lines = [f"skeleton, {placed} of {len(r.vertices)} points placed",
                 "drag a point to move it, elsewhere to move the skeleton"]
    else:
        lines = [f"{r.kind}, {len(r.vertices)} vertices"]
        if r.kind != "points":
            lines.append("drag a vertex; double-click an edge adds one; Alt+click a vertex deletes it")
    if r.track_id is not None:
        lines.insert(1, f"track {r.track_id}" + ("" if r.keyframe else
                                                 ": interpolated; an edit here makes this frame a keyframe"))
    return "\n".join([r.label_name or "(no label)", *lines] + ([r.note] if r.note else []))
