"""Calibrations of a media or a camera group, stored raw and applied when a ruler is read.

A calibration is validated by ``fieldstudio.core.calibration`` before anything is written: collinear or
coincident points and lengths that are not positive raise CalibrationError and nothing is saved.
It applies to one media (``media_id``) or to every media of a camera group (``Media.camera_group``);
a group holds media of the same resolution (:func:`set_camera_group` refuses others), so one set of
image points means the same thing in all of them. A media's own calibration wins over its group's.
At most one calibration of each kind (``scale``, ``floor``) exists per media or group: saving another
replaces it in place, keeping its id.

Rulers store only their two image points; :func:`measure_ruler` looks the calibration up at read time,
so editing a calibration changes every measurement that uses it:

* a ruler with ``on_floor`` uses the floor calibration: the ground distance
  ``hypot(X_q - X_p, Y_q - Y_p)`` of the ends' floor positions ``(X, Y) = (u / w, v / w)``,
  ``[u, v, w] = H [x, y, 1]`` (``core.calibration.floor_distance_m``);
* any other ruler uses the scale calibration: ``|q - p| * length_m / |p2 - p1|``
  (``core.calibration.ruler_length_m``);
* without the calibration it needs, a ruler reads in pixels and ``how`` says how to calibrate.

Which calibration applies: when a media has both a scale and a floor calibration (its own or its camera group's),
the one *in use* measures every ruler, box and trajectory of that media; the other is kept but "not in use".
The user chooses per camera group (or per media) with :func:`choose_calibration`; the choice is a project
setting (``calibration_in_use``: ``{"camera_group:NAME" or "media:ID": "scale" | "floor"}``), so no column is
needed. Without a choice the floor applies, as before the choice existed. A media's own choice wins over its
group's. With one calibration only, that one is in use whatever the choice says.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import and_, or_, select

from fieldstudio.core import calibration as core_cal
from fieldstudio.core.errors import CalibrationError, FieldstudioError, NotFound
from fieldstudio.store.models import Annotation, Calibration, Media, utcnow
from fieldstudio.store.project import Project


class CameraGroupError(FieldstudioError):
    """Media cannot join a camera group (their resolutions differ)."""


@dataclass(frozen=True)
class CalibrationRecord:
    """A stored calibration: raw image points (pixels) and real lengths (metres), and what it applies to."""

    id: str
    media_id: str | None
    camera_group: str | None
    kind: str
    points: tuple[tuple[float, float], ...]
    length_m: float | None
    width_m: float | None
    depth_m: float | None
    check: tuple[tuple[float, float], tuple[float, float], float] | None = None
    """The independent check a person made: two image points and the real distance between them (metres)."""

    def to_core(self) -> core_cal.Calibration:
        """The validated ``core.calibration.Calibration`` (matrices computed). Raises CalibrationError."""
        return core_cal.Calibration(self.kind, self.points, length_m=self.length_m,  # type: ignore[arg-type]
                                    width_m=self.width_m, depth_m=self.depth_m)

    @property
    def scope(self) -> str:
        """'this media' or "camera group 'NAME'" for messages."""
        return "this media" if self.media_id else f"camera group {self.camera_group!r}"

    def length_check(self) -> core_cal.LengthCheck | None:
        """The check measured through the calibration as it is now (its ``error_m``), None without a check or
        when it cannot be measured (a point beyond the floor's horizon)."""
        if self.check is None:
            return None
        try:
            return self.to_core().check(*self.check)
        except CalibrationError:
            return None

    def describe(self) -> str:
        """A short text such as "floor plane: 4.00 m x 3.00 m rectangle (camera group 'dock')"."""
        if self.kind == "floor":
            return f"floor plane: {self.width_m:.2f} m x {self.depth_m:.2f} m rectangle ({self.scope})"
        return f"scale: {self.length_m:.2f} m reference line ({self.scope})"


def _record(row: Calibration) -> CalibrationRecord:
    c = row.check_length
    check = None if not c else ((float(c["p"][0]), float(c["p"][1])), (float(c["q"][0]), float(c["q"][1])),
                                float(c["known_m"]))
    return CalibrationRecord(row.id, row.media_id, row.camera_group, row.kind,
                             tuple((float(x), float(y)) for x, y in row.points),
                             row.length_m, row.width_m, row.depth_m, check)


def save_calibration(project: Project, kind: str, points: Sequence[Sequence[float]], *,
                     media_id: str | None = None, camera_group: str | None = None,
                     length_m: float | None = None, width_m: float | None = None, depth_m: float | None = None,
                     calibration_id: str | None = None,
                     check: Sequence[Any] | None = None) -> str:
    """Validate and store a calibration for one media or one camera group; returns its id.

    Args:
        kind: 'scale' (two points over an object of ``length_m`` metres) or 'floor' (four points,
            near-left, near-right, far-right, far-left, of a ``width_m`` x ``depth_m`` floor rectangle).
        points: image points in upright full-resolution pixels.
        media_id / camera_group: exactly one, what the calibration applies to.
        calibration_id: edit this calibration (or re-create it under this id after a delete, for redo).
            Without it, an existing calibration of the same kind and scope is replaced in place.
        check: the independent check a person made, (p, q, known metres): two image points whose real distance
            is known (None: no check; kept with the calibration, measured through it when read).
    Raises:
        CalibrationError: degenerate input (zero length, coincident or collinear points, non-convex
            quad, lengths not positive, a check length not positive or a check point beyond the horizon);
            nothing is saved.
        NotFound: unknown media.
    """
    if (media_id is None) == (camera_group is None):
        raise CalibrationError("a calibration applies to one media or to one camera group; give exactly one")
    validated = core_cal.Calibration(kind, tuple(tuple(p) for p in points), length_m=length_m,  # type: ignore[arg-type]
                                     width_m=width_m, depth_m=depth_m)
    raw_points = [[x, y] for x, y in validated.points]
    stored_check = None
    if check is not None:
        done = validated.check(tuple(check[0]), tuple(check[1]), float(check[2]))  # raises for a bad check
        stored_check = {"p": list(done.p), "q": list(done.q), "known_m": done.known_m}
    with project.write() as s:
        if media_id is not None:
            media = s.get(Media, media_id)
            if media is None:
                raise NotFound(f"no media with id {media_id!r} in {project.path.name}")
            if media.kind not in ("image", "video"):
                raise CalibrationError(f"{media.file_name}: only photos and videos can be calibrated")
        row = s.get(Calibration, calibration_id) if calibration_id else None
        if row is None and calibration_id is None:
            scope = (Calibration.media_id == media_id) if media_id else (Calibration.camera_group == camera_group)
            row = s.scalars(select(Calibration).where(scope, Calibration.kind == kind)).first()
        if row is None:
            row = Calibration(media_id=media_id, camera_group=camera_group, kind=kind, points=raw_points)
            if calibration_id:
                row.id = calibration_id
            s.add(row)
        row.media_id, row.camera_group, row.kind, row.points = media_id, camera_group, kind, raw_points
        row.length_m, row.width_m, row.depth_m = validated.length_m, validated.width_m, validated.depth_m
        row.check_length = stored_check
        row.updated_at = utcnow()
        s.flush()
        return row.id


def get_calibration(project: Project, calibration_id: str) -> CalibrationRecord:
    """One calibration. Raises NotFound."""
    with project.read() as s:
        row = s.get(Calibration, calibration_id)
        if row is None:
            raise NotFound(f"no calibration with id {calibration_id!r} in {project.path.name}")
        return _record(row)


def delete_calibration(project: Project, calibration_id: str) -> CalibrationRecord:
    """Delete a calibration; returns it so that an undo can save it again under the same id."""
    with project.write() as s:
        row = s.get(Calibration, calibration_id)
        if row is None:
            raise NotFound(f"no calibration with id {calibration_id!r} in {project.path.name}")
        before = _record(row)
        s.delete(row)
        return before


def list_calibrations(project: Project) -> list[CalibrationRecord]:
    """Every calibration of the project (media ones, then camera groups)."""
    with project.read() as s:
        rows = list(s.scalars(select(Calibration).order_by(Calibration.media_id.is_(None),
                                                           Calibration.camera_group, Calibration.kind)))
    return [_record(r) for r in rows]


def calibration_for(project: Project, media_id: str, kind: str) -> CalibrationRecord | None:
    """The ``kind`` calibration that applies to a media: its own, else its camera group's, else None."""
    with project.read() as s:
        media = s.get(Media, media_id)
        if media is None:
            raise NotFound(f"no media with id {media_id!r} in {project.path.name}")
        row = s.scalars(select(Calibration).where(Calibration.media_id == media_id, Calibration.kind == kind)).first()
        if row is None and media.camera_group:
            row = s.scalars(select(Calibration).where(Calibration.camera_group == media.camera_group,
                                                      Calibration.media_id.is_(None),
                                                      Calibration.kind == kind)).first()
        return None if row is None else _record(row)


def set_camera_group(project: Project, media_ids: Iterable[str], group: str | None) -> dict[str, str | None]:
    """Put media in a camera group (None takes them out); returns {media id: previous group} for undo.

    Raises CameraGroupError when their resolutions differ from each other or from the group's media,
    NotFound for an unknown media.
    """
    ids = list(media_ids)
    group = group.strip() if group else None
    with project.write() as s:
        rows = []
        for media_id in ids:
            media = s.get(Media, media_id)
            if media is None:
                raise NotFound(f"no media with id {media_id!r} in {project.path.name}")
            rows.append(media)
        if group is not None:
            members = list(s.scalars(select(Media).where(Media.camera_group == group))) + rows
            sizes = {(m.width, m.height) for m in members}
            if len(sizes) > 1 or any(m.kind not in ("image", "video") for m in rows):
                listing = ", ".join(f"{m.file_name} {m.width}x{m.height}" for m in members)
                raise CameraGroupError(f"a camera group holds photos and videos of one camera at one "
                                       f"resolution; these differ: {listing}")
        previous = {m.id: m.camera_group for m in rows}
        for m in rows:
            m.camera_group = group
        return previous


IN_USE_SETTING = "calibration_in_use"
KINDS = ("scale", "floor")


def scope_key(*, media_id: str | None = None, camera_group: str | None = None) -> str:
    """The key of a choice in the ``calibration_in_use`` setting: ``media:ID`` or ``camera_group:NAME``."""
    if (media_id is None) == (camera_group is None):
        raise CalibrationError("a calibration choice is made for one media or one camera group; give exactly one")
    return f"media:{media_id}" if media_id is not None else f"camera_group:{camera_group}"


def chosen_kinds(project: Project) -> dict[str, str]:
    """The choices made: {scope key: 'scale' | 'floor'}."""
    value = project.setting(IN_USE_SETTING, None)
    return {str(k): str(v) for k, v in value.items() if v in KINDS} if isinstance(value, dict) else {}


def choose_calibration(project: Project, kind: str | None, *, media_id: str | None = None,
                       camera_group: str | None = None) -> str | None:
    """Make the ``kind`` calibration the one in use for a media or a camera group (None forgets the choice:
    the floor applies again); returns the previous choice (for undo). Raises CalibrationError for another kind.

    The choice can be made before the calibration exists; it applies once both kinds are there.
    """
    if kind is not None and kind not in KINDS:
        raise CalibrationError(f"calibration kind {kind!r}: choose scale or floor")
    key = scope_key(media_id=media_id, camera_group=camera_group)
    choices = chosen_kinds(project)
    previous = choices.pop(key, None)
    if kind is not None:
        choices[key] = kind
    project.set_setting(IN_USE_SETTING, choices)
    return previous


def _in_use_kind(present: set[str], choices: dict[str, str], keys: Sequence[str]) -> str | None:
    if len(present) < 2:
        return next(iter(present), None)
    for key in keys:
        if key in choices:
            return choices[key]
    return "floor"


def calibration_in_use(project: Project, media_id: str) -> CalibrationRecord | None:
    """The calibration that measures a media's rulers, boxes and trajectories: when both a scale and a floor
    calibration apply to it, the one chosen for the media, else for its camera group, else the floor; when one
    applies, that one; None without any. Raises NotFound for an unknown media."""
    # one read for both kinds (calibration_for's rule: the media's own, else its camera group's), and the
    # choices only when both apply: the trajectory asks this after every edit of a track
    with project.read() as s:
        media = s.get(Media, media_id)
        if media is None:
            raise NotFound(f"no media with id {media_id!r} in {project.path.name}")
        group = media.camera_group
        applies = Calibration.media_id == media_id
        if group:
            applies = or_(applies, and_(Calibration.camera_group == group, Calibration.media_id.is_(None)))
        rows = list(s.scalars(select(Calibration).where(applies)))
        found: dict[str, CalibrationRecord] = {}
        for own in (True, False):
            for row in rows:
                if (row.media_id == media_id) == own and row.kind in KINDS:
                    found.setdefault(row.kind, _record(row))
    keys = [scope_key(media_id=media_id)] + ([scope_key(camera_group=group)] if group else [])
    kind = _in_use_kind(set(found), chosen_kinds(project) if len(found) > 1 else {}, keys)
    return None if kind is None else found[kind]


def in_use_status(project: Project, record: CalibrationRecord) -> str:
    """"in use", or "not in use (the floor calibration applies)" when the other kind of the same media or camera
    group is the one in use. A group's calibration is judged within the group (a member's own choice or own
    calibration does not change what the group's list says)."""
    if record.media_id:
        rec = calibration_in_use(project, record.media_id)
        return "in use" if rec is not None and rec.id == record.id else \
            f"not in use (the {rec.kind if rec else 'other'} calibration applies)"
    with project.read() as s:
        same = set(s.scalars(select(Calibration.kind).where(Calibration.camera_group == record.camera_group,
                                                            Calibration.media_id.is_(None))))
    kind = _in_use_kind(same, chosen_kinds(project), [scope_key(camera_group=record.camera_group)])
    return "in use" if kind == record.kind else f"not in use (the {kind} calibration applies)"


class Measurement(NamedTuple):
    """A ruler's length: ``pixels`` always; ``metres`` when a calibration applies (else None); ``how``
    says which calibration was used, or how to calibrate."""

    pixels: float
    metres: float | None
    how: str

    @property
    def kind(self) -> str | None:
        """'scale' or 'floor': the calibration that gave the metres (None: pixels only); read from ``how``, which
        is that calibration's :meth:`CalibrationRecord.describe`."""
        if self.metres is None:
            return None
        return "floor" if self.how.startswith("floor plane") else "scale"


def measure_points(project: Project, media_id: str, p: Sequence[float], q: Sequence[float], *,
                   on_floor: bool | None = None) -> Measurement:
    """Length of a ruler from p to q (image pixels) on a media, with the calibration that applies now.

    ``on_floor`` None (the default): the calibration in use for the media (:func:`calibration_in_use`);
    True: the floor calibration (ground distance through the homography); False: the scale calibration
    (metres per pixel); see the module docstring for the formulas. A point on or beyond the floor's horizon
    gives metres None and says so. ``how`` names the calibration used.
    """
    pixels = core_cal.pixel_distance(tuple(p), tuple(q))
    if on_floor is None:
        cal = calibration_in_use(project, media_id)
        if cal is None:
            return Measurement(pixels, None, "pixels only: no calibration; calibrate with C: a reference line over "
                                             "an object of known length, or four corners of a floor rectangle")
        on_floor = cal.kind == "floor"
    kind = "floor" if on_floor else "scale"
    cal = calibration_for(project, media_id, kind)
    if cal is None:
        hint = ("draw a floor calibration (C, four corners of a floor rectangle and its width and depth in "
                "metres)" if on_floor else
                "calibrate with C: a reference line over an object of known length (or mark the ruler "
                "as on the floor and calibrate the floor plane)")
        return Measurement(pixels, None, f"pixels only: no {kind} calibration; {hint}")
    try:
        metres, _unit = cal.to_core().measure(tuple(p), tuple(q))
    except CalibrationError as exc:
        return Measurement(pixels, None, f"pixels only: {exc}")
    return Measurement(pixels, metres, cal.describe())


def measure_ruler(project: Project, annotation_id: str) -> Measurement:
    """(pixels, metres or None, how) of a stored ruler with the calibration in use for its media now.

    The ruler's ``on_floor`` (how it was drawn) does not decide: the calibration in use does, so that the one
    "not in use" measures nothing. A measurement that fails (an end beyond the floor's horizon) reads in pixels, ``how`` saying why.
    Raises NotFound for an unknown annotation, ValueError when the annotation is not a ruler.
    """
    with project.read() as s:
        row = s.get(Annotation, annotation_id)
        if row is None:
            raise NotFound(f"no annotation with id {annotation_id!r} in {project.path.name}")
        if row.kind != "ruler":
            raise CalibrationError(f"annotation {annotation_id} is a {row.kind}, not a ruler")
        media_id, geometry = row.media_id, row.geometry
    p, q = geometry
    return measure_points(project, media_id, p, q)


def calibration_fields(record: CalibrationRecord) -> dict[str, Any]:
    """The keyword arguments that save ``record`` again with :func:`save_calibration` (undo)."""
    return {"kind": record.kind, "points": [list(p) for p in record.points], "media_id": record.media_id,
            "camera_group": record.camera_group, "length_m": record.length_m, "width_m": record.width_m,
            "depth_m": record.depth_m, "calibration_id": record.id,
            "check": None if record.check is None else [list(record.check[0]), list(record.check[1]), record.check[2]]}
