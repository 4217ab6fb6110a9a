"""The frame index of a project's videos: building it, storing it, reading it back, and indexing in turn.

A video's frame table (``frame_table.FrameTable``: frame index -> PTS) is stored as ``frame_index`` rows. A first
table comes from the container's packets (``packet_table.build_packet_table``, demuxing only; status ``packets``)
so that a video opens at once; the decoded table (``decoded_table.build_frame_table``) verifies it and, where the
two differ, replaces it (status ``ready``). Marks made on the replaced table follow their pictures in the
same transaction: this module decides where each old frame goes (the frame with its PTS,
``frame_table.remap_indices``) and ``store.frame_references`` moves every row that names a frame.

``index_videos`` indexes a list of videos in one go (``fieldstudio add``, the demo, rating packages);
``index_next_video`` one video at a time, every video's packet index before any decoded one (the window's
background indexer, ``gui/indexing.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from sqlalchemy import delete, func, select

from fieldstudio.core.errors import MediaError
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.media import damage, decoded_table, frame_table, packet_table
from fieldstudio.media.library import require_file
from fieldstudio.store.frame_references import move_frame_references
from fieldstudio.store.models import FrameIndexRow, Media, Thumbnail
from fieldstudio.store.project import Project

#: ``Media.index_status``: ``pending`` (no index yet), ``packets`` (the packet index, from demuxing only,
#: in use until the decoded index verifies it), ``ready`` (the decoded index), ``failed``.
INDEX_PENDING, INDEX_PACKETS, INDEX_READY, INDEX_FAILED = "pending", "packets", "ready", "failed"


def first_frame_table(project: Project, media: Media) -> tuple[frame_table.FrameTable, str]:
    """The index a video without one opens on at once, and its status: the packet index, or the decoded
    index when its packets carry no timestamps. Nothing is stored (``store_frame_table(if_missing=True)``).
    Raises MediaError when the file is missing or cannot be read."""
    path = require_file(project, media)
    try:
        return packet_table.build_packet_table(path), INDEX_PACKETS
    except MediaError:
        return decoded_table.build_frame_table(path), INDEX_READY


def store_frame_table(project: Project, media_id: str, table: frame_table.FrameTable, *, status: str = INDEX_READY,
                      if_missing: bool = False) -> int:
    """Replace the stored frame index of a video with ``table``; record its count, VFR flag and ``status``.

    When a different index was stored before (the packet index that the decoded one verifies), the
    video's annotations and rating items move with their pictures in the same transaction
    (``store.frame_references``): each keeps its PTS and gets the index that PTS has in ``table``
    (``frame_table.remap_indices``; a frame that no longer exists goes to the frame shown at its time, whose PTS
    it then takes). Returns how many annotations
    and rating items changed frame index. ``if_missing`` stores nothing when the video has an index already.
    """
    return _store_frame_table(project, media_id, table, status=status, if_missing=if_missing)[0]


def _store_frame_table(project: Project, media_id: str, table: frame_table.FrameTable, *, status: str = INDEX_READY,
                       if_missing: bool = False) -> tuple[int, bool]:
    """``store_frame_table``, and whether an index that differs from ``table`` was replaced."""
    with project.write() as s:
        m = s.get(Media, media_id)
        old = _frame_table_in(s, m)
        moved = 0
        if if_missing and old is not None:
            return 0, False
        replaced = old is not None and not frame_table.same_frames(old, table)
        if old is None or replaced:  # else verified as it was: keep the rows, record the status
            if old is not None and len(old):
                moved = move_frame_references(s, media_id, _frame_moves(old, table))
                # a frame's thumbnail is keyed by its old index (media/thumbnails.py); the preview (0) stays
                s.execute(delete(Thumbnail).where(Thumbnail.media_id == media_id, Thumbnail.frame_index > 0))
            s.execute(delete(FrameIndexRow).where(FrameIndexRow.media_id == media_id))
            if len(table):
                _insert_frame_rows(s, media_id, table)
        m.frame_count = len(table)
        m.is_vfr = table.is_vfr()
        m.avg_fps = table.avg_fps() or m.avg_fps
        m.time_base_num, m.time_base_den = table.time_base.numerator, table.time_base.denominator
        if len(table):
            m.duration_s = float((int(table.pts[-1]) - int(table.pts[0])) * table.time_base) + (
                1.0 / m.avg_fps if m.avg_fps else 0.0)
        m.index_status = status
        if m.status == "ok":  # an ok video's error names its damage (media/damage.py), else it is None
            extra = m.extra or {}
            m.error = damage.video_damage(extra.get("container_duration_s"), extra.get("frame_count_estimate"),
                                          len(table), m.duration_s if len(table) else 0.0, m.avg_fps)
    return moved, replaced


def _placeholder(s) -> str:  # noqa: ANN001 - Session
    return "?" if s.get_bind().dialect.paramstyle in ("qmark", "numeric") else "%s"


def _insert_frame_rows(s, media_id: str, table: frame_table.FrameTable) -> None:  # noqa: ANN001 - Session
    # Plain tuples through the driver's executemany: an hour of footage is 108,000 rows, and the ORM's
    # per-row dictionaries took seconds where this takes a fraction of one (issue 21)
    q = _placeholder(s)
    sql = f"INSERT INTO {FrameIndexRow.__tablename__} (media_id, frame_index, pts, keyframe) VALUES ({q}, {q}, {q}, {q})"
    cursor = s.connection().connection.cursor()  # the driver's own cursor, inside the session's transaction
    pts, keys = table.pts.tolist(), table.keyframe.tolist()
    try:
        # In chunks: one executemany runs in C from its first row to its last, and the interpreter lock it
        # drops at each row is taken straight back before another thread wakes, so the window's thread
        # waited for all 18,000 rows of a 10 min video (60-90 ms). Between chunks the lock changes hands.
        for start in range(0, len(pts), _INSERT_CHUNK):
            stop = start + _INSERT_CHUNK
            cursor.executemany(sql, zip(itertools.repeat(media_id), range(start, stop), pts[start:stop],
                                        keys[start:stop]))
    finally:
        cursor.close()


_INSERT_CHUNK = 2048


def _frame_table_in(s, media: Media) -> frame_table.FrameTable | None:  # noqa: ANN001 - Session
    q = _placeholder(s)
    cursor = s.connection().connection.cursor()  # plain tuples: 108,000 rows in a fraction of a second
    try:
        cursor.execute(f"SELECT pts, keyframe FROM {FrameIndexRow.__tablename__} WHERE media_id = {q} "
                       "ORDER BY frame_index", (media.id,))
        # in chunks: one fetch and conversion of an hour's rows would keep the interpreter lock from the
        # window's thread for as long as it takes, when this runs in the background
        chunks = []
        while rows := cursor.fetchmany(8192):
            chunks.append(np.array(rows, dtype=np.int64).reshape(-1, 2))
    finally:
        cursor.close()
    if not chunks:
        return None
    arr = np.concatenate(chunks)
    return frame_table.FrameTable(pts=arr[:, 0], keyframe=arr[:, 1].astype(bool),
                                  time_base=Fraction(media.time_base_num or 1, media.time_base_den or 1))


def _frame_moves(old: frame_table.FrameTable, new: frame_table.FrameTable) -> Callable[[int], tuple[int, int]]:
    """Where a frame of table ``old`` is in table ``new``: ``frame_of(old index) -> (new index, its PTS)``.

    The frame with the same PTS (``frame_table.remap_indices``; a frame that no longer exists goes to the frame
    shown at its time); an index outside ``old`` is first clamped into it.
    """
    if old.time_base != new.time_base:  # the PTS are compared in seconds, on the new time base
        ratio = old.time_base / new.time_base
        old = frame_table.FrameTable(pts=np.round(old.pts * float(ratio)).astype(np.int64), keyframe=old.keyframe,
                                     time_base=new.time_base)
    last = len(old) - 1

    def frame_of(index: int) -> tuple[int, int]:
        target = int(frame_table.remap_indices(old, new, np.asarray([min(max(index, 0), last)]))[0])
        return target, int(new.pts[target])

    return frame_of


def first_frame_seconds(project: Project, media_id: str) -> float | None:
    """PTS in seconds of frame 0 of a video's stored frame table (the origin of "seconds after the first frame",
    the clock of the timestamps sent with frames and of time ground truths); None without a frame table."""
    with project.read() as s:
        media = s.get(Media, media_id)
        pts = s.scalar(select(FrameIndexRow.pts).where(FrameIndexRow.media_id == media_id,
                                                       FrameIndexRow.frame_index == 0))
        if media is None or pts is None or not media.time_base_den:
            return None
        return float(int(pts) * Fraction(media.time_base_num or 1, media.time_base_den))


def load_frame_table(project: Project, media: Media) -> frame_table.FrameTable | None:
    """The stored frame index of a video (the packet or the decoded one), or None when it has not been built."""
    with project.read() as s:
        return _frame_table_in(s, media)


def index_videos(
    project: Project,
    media_ids: Sequence[str] | None = None,
    *,
    packets_only: bool = False,
    progress: Progress = lambda done, total: None,
    cancelled: Cancelled = lambda: False,
) -> list[tuple[str, str]]:
    """Build and store the frame index of each video whose decoded index is not ready (or of ``media_ids``).

    ``packets_only`` stores the packet index (``packet_table.build_packet_table``, status ``packets``) of the
    videos that have no index yet, which makes them viewable at once; otherwise the decoded index is
    built and replaces (verifies) any packet index, moving annotations made on it with their pictures
    (``store_frame_table``). Progress counts frames over all videos (estimates from the containers).
    Returns (media id, reason) for videos whose index could not be built; those are marked ``failed``
    (not with ``packets_only``: a video whose packets carry no timestamps may still decode).
    """
    with project.read() as s:
        q = select(Media).where(Media.kind == "video", Media.status == "ok")
        if media_ids is not None:
            q = q.where(Media.id.in_(list(media_ids)))
        else:
            q = q.where(Media.index_status != INDEX_READY)
        if packets_only:
            q = q.where(Media.index_status.not_in([INDEX_PACKETS, INDEX_READY]))
        todo = list(s.scalars(q))
    estimates = [((m.extra or {}).get("frame_count_estimate") or 1) for m in todo]
    total = sum(estimates)
    base = 0
    failures: list[tuple[str, str]] = []
    build = packet_table.build_packet_table if packets_only else decoded_table.build_frame_table
    for m, est in zip(todo, estimates):
        if cancelled():
            break
        try:
            path = require_file(project, m)
            table = build(path, progress=lambda d, t, b=base: progress(b + min(d, est), total), cancelled=cancelled)
        except MediaError as exc:
            failures.append((m.id, exc.reason))
            if not packets_only:  # a video without usable packets may still decode: the decoded pass decides
                with project.write() as s:
                    s.get(Media, m.id).index_status = INDEX_FAILED
            continue
        except InterruptedError:
            break
        store_frame_table(project, m.id, table, status=INDEX_PACKETS if packets_only else INDEX_READY)
        base += est
        progress(base, total)
    return failures


@dataclass
class IndexStep:
    """What ``index_next_video`` did to one video.

    ``status`` is the video's ``index_status`` afterwards (``packets``, ``ready``, ``failed``, or
    ``interrupted`` when cancelled, the index unchanged); ``table`` the index stored (None unless
    packets or ready); ``replaced`` is True when a decoded index differed from the packet index it
    verified, ``moved`` how many annotations and rating items moved with their pictures then.
    ``counts`` holds the project's videos by ``index_status`` afterwards.
    """

    media_id: str
    file_name: str
    status: str
    table: frame_table.FrameTable | None = None
    replaced: bool = False
    moved: int = 0
    error: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


def index_counts(project: Project) -> dict[str, int]:
    """Readable videos of the project by ``index_status`` (pending, packets, ready, failed)."""
    with project.read() as s:
        rows = s.execute(select(Media.index_status, func.count()).where(
            Media.kind == "video", Media.status == "ok").group_by(Media.index_status)).all()
    counts = dict.fromkeys((INDEX_PENDING, INDEX_PACKETS, INDEX_READY, INDEX_FAILED), 0)
    for status, n in rows:
        counts[status or INDEX_PENDING] = counts.get(status or INDEX_PENDING, 0) + n
    return counts


def next_to_index(project: Project, prefer: str | None = None) -> tuple[Media, bool] | None:
    """The video to index next and whether it needs its packet index (True) or its decoded one (False).

    Every video gets its packet index before any is decoded, so that all of them open at once; ``prefer``
    (the video on screen) goes first at each stage. None when every video is ready or failed.
    """
    with project.read() as s:
        base = select(Media).where(Media.kind == "video", Media.status == "ok")
        for statuses, packets in (((INDEX_PENDING, None), True), ((INDEX_PACKETS,), False)):
            wanted = Media.index_status.in_([x for x in statuses if x]) | (
                Media.index_status.is_(None) if None in statuses else False)
            if prefer is not None:
                row = s.scalars(base.where(Media.id == prefer, wanted)).first()
                if row is not None:
                    return row, packets
            row = s.scalars(base.where(wanted).order_by(Media.file_name, Media.id).limit(1)).first()
            if row is not None:
                return row, packets
    return None


def index_next_video(
    project: Project,
    prefer: str | None = None,
    *,
    started: Callable[[str, str, bool], None] = lambda media_id, file_name, packets: None,
    progress: Progress = lambda done, total: None,
    cancelled: Cancelled = lambda: False,
) -> IndexStep | None:
    """Index one video: the next one ``next_to_index`` names, after ``started(media_id, file_name,
    packets)`` is called. A packet index is stored with status ``packets``; a decoded index replaces it
    (``store_frame_table`` moves annotations made on the packet index with their pictures) with status
    ``ready``. A video that cannot be decoded is marked ``failed``, its packet index kept if it had one.
    Returns None when there is nothing left to index.
    """
    nxt = next_to_index(project, prefer)
    if nxt is None:
        return None
    media, packets = nxt
    started(media.id, media.file_name, packets)
    step = IndexStep(media.id, media.file_name, INDEX_PACKETS if packets else INDEX_READY)
    try:
        path = require_file(project, media)
        if packets:
            try:
                step.table = packet_table.build_packet_table(path, progress=progress, cancelled=cancelled)
            except MediaError:  # no packet with a timestamp: decoding may still read the video
                step.status = INDEX_READY
        if step.table is None:
            step.table = decoded_table.build_frame_table(path, progress=progress, cancelled=cancelled)
    except InterruptedError:
        step.status, step.table = "interrupted", None
    except MediaError as exc:
        step.status, step.error, step.table = INDEX_FAILED, exc.reason, None
        with project.write() as s:
            s.get(Media, media.id).index_status = INDEX_FAILED
    else:
        step.moved, step.replaced = _store_frame_table(project, media.id, step.table, status=step.status)
    step.counts = index_counts(project)
    return step
