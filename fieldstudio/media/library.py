"""The media library: adding files and folders to a project, finding, relinking and indexing them.

``add_paths`` is the one service behind ``fieldstudio add``, the GUI's Add dialog and drag-and-drop.
A file that cannot be read never stops the others: it is listed with its reason and stored with
status ``unreadable`` so the library can show it.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path, PurePosixPath

import numpy as np
from sqlalchemy import delete, func, insert, select

from fieldstudio.core import media_roots
from fieldstudio.core.errors import MediaError, NotFound
from fieldstudio.core.file_names import printable_path
from fieldstudio.media import images, video
from fieldstudio.store.library_rows import resolve_media_path
from fieldstudio.store.models import Annotation, DocumentPage, FrameIndexRow, Media, RatingItem, new_id
from fieldstudio.store.project import Project
from fieldstudio.core.progress import Cancelled, Progress

DOCUMENT_SUFFIXES = {".pdf", ".txt"}
KINDS = ("image", "video", "document")
_BATCH = 200
_HASH_CHUNK = 1 << 20


def kind_of(path: Path) -> str | None:
    """Media kind by file suffix: ``image``, ``video``, ``document`` or None (not media).

    Decides only which files of a folder are candidates; ``content_kind`` decides what a candidate is.
    """
    suffix = path.suffix.lower()
    if suffix in images.IMAGE_SUFFIXES:
        return "image"
    if suffix in video.VIDEO_SUFFIXES:
        return "video"
    if suffix in DOCUMENT_SUFFIXES:
        return "document"
    return None


# Leading bytes of the formats fieldstudio reads, by the kind they are (offset, magic).
_IMAGE_MAGIC = ((0, b"\xff\xd8\xff"), (0, b"\x89PNG\r\n\x1a\n"), (0, b"BM"), (0, b"II*\0"), (0, b"MM\0*"))
_VIDEO_MAGIC = ((4, b"ftyp"), (4, b"moov"), (4, b"mdat"), (4, b"wide"), (4, b"free"), (0, b"\x1aE\xdf\xa3"),
                (0, b"GIF87a"), (0, b"GIF89a"), (0, b"\x00\x00\x01\xba"), (0, b"\x00\x00\x01\xb3"))
_DOCUMENT_MAGIC = ((0, b"%PDF-"),)


def content_kind(path: Path) -> str | None:
    """Media kind from the file's leading bytes (JPEG, PNG, WebP, BMP, TIFF; MP4/MOV, AVI, MKV/WebM,
    GIF, MPEG; PDF), or None when they name no known format (text files, MPEG-TS, damaged files).

    A JPEG named ``.mp4`` is an image; an MP4 named ``.jpg`` is a video. Raises OSError when the file
    cannot be read.
    """
    with open(path, "rb") as fh:
        head = fh.read(16)
    if head[:4] == b"RIFF":
        return {b"WEBP": "image", b"AVI ": "video"}.get(head[8:12])
    for kind, table in (("image", _IMAGE_MAGIC), ("video", _VIDEO_MAGIC), ("document", _DOCUMENT_MAGIC)):
        if any(head[at:at + len(magic)] == magic for at, magic in table):
            return kind
    return None


def _name_is_utf8(path: Path) -> bool:
    try:
        os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclass
class AddReport:
    """What ``add_paths`` did: media imported per kind, duplicates skipped, files that could not be read.

    ``unreadable`` holds (path, reason); ``skipped`` holds files in folders whose type is not media.
    A path whose name is not valid UTF-8 cannot be printed as it is: show it with ``printable_path``.
    """

    imported: Counter = field(default_factory=Counter)
    media_ids: list[str] = field(default_factory=list)
    duplicates: list[Path] = field(default_factory=list)
    unreadable: list[tuple[Path, str]] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)
    cancelled: bool = False

    @property
    def imported_total(self) -> int:
        return sum(self.imported.values())


def sha256_file(path: Path) -> tuple[str, int]:
    """SHA-256 hex digest and size in bytes of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb", buffering=0) as fh:
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def scan(paths: Iterable[Path]) -> tuple[list[Path], list[Path], list[tuple[Path, str]]]:
    """Expand files and folders (recursively, sorted) into candidate media files.

    Returns (candidates, skipped, unreadable): files inside folders whose suffix is not media are
    skipped; a named file with an unknown suffix or a path that does not exist is unreadable.
    """
    candidates: list[Path] = []
    skipped: list[Path] = []
    unreadable: list[tuple[Path, str]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.startswith("."):
                        continue
                    f = Path(root) / name
                    (candidates if kind_of(f) else skipped).append(f)
        elif path.is_file():
            if kind_of(path):
                candidates.append(path)
            else:
                unreadable.append((path, f"is not a supported media type ({path.suffix or 'no suffix'})"))
        else:
            unreadable.append((path, "does not exist"))
    return candidates, skipped, unreadable


def stored_location(project: Project, path: Path) -> tuple[str | None, str]:
    """(media root, path) to store for a file: below a media root this machine maps, the root's name and the
    POSIX path relative to it (``core.media_roots``); else no root and the POSIX path relative to the project
    file's folder when below it, else absolute (a shared project has no folder: absolute)."""
    under = media_roots.locate(path)
    if under is not None:
        return under
    absolute = path.resolve()
    if not project.is_shared:
        try:
            return None, PurePosixPath(absolute.relative_to(project.folder).as_posix()).as_posix()
        except ValueError:
            pass
    return None, absolute.as_posix()


def stored_path(project: Project, path: Path) -> str:
    """The path part of ``stored_location``."""
    return stored_location(project, path)[1]


def media_path(project: Project, media: Media) -> Path:
    """The file of a media on this machine (it may be missing; see ``require_file``). Raises
    core.media_roots.MediaRootError when the media's root is not mapped on this machine."""
    return resolve_media_path(project.folder, media.path, media.media_root)


def require_file(project: Project, media: Media) -> Path:
    """The file of a media; raises MediaError when it was moved or deleted, or its media root is not mapped here."""
    try:
        p = media_path(project, media)
    except media_roots.MediaRootError as exc:
        raise MediaError(media.path, str(exc)) from None
    if not p.is_file():
        raise MediaError(p, "is missing (moved or deleted); use `fieldstudio relink` to find it again")
    return p


def _probe(path: Path, kind: str, max_image_pixels: int) -> dict:
    """Column values for a new media row; raises MediaError when the file cannot be read."""
    if kind == "image":
        p = images.probe_image(path)
        if p.width * p.height > max_image_pixels:
            raise MediaError(path, f"is {p.width}x{p.height} pixels ({p.width * p.height / 1e6:.0f} megapixels), "
                                   f"above the import limit of {max_image_pixels / 1e6:g} megapixels "
                                   "(a decompression bomb, or too large to work with)")
        return {"width": p.width, "height": p.height, "format": p.format, "orientation": p.orientation}
    if kind == "video":
        p = video.probe_video(path)
        return {
            "width": p.width, "height": p.height, "format": p.format, "codec": p.codec,
            "duration_s": p.duration_s, "time_base_num": p.time_base.numerator,
            "time_base_den": p.time_base.denominator, "rotation": p.rotation, "has_audio": p.has_audio,
            "avg_fps": p.avg_fps, "index_status": "pending",
            "extra": {"frame_count_estimate": p.frame_count_estimate},
        }
    from fieldstudio.media import documents  # PyMuPDF loads only when documents are added

    p = documents.probe_document(path)
    return {"format": p.kind, "page_count": p.page_count, "text_encoding": p.encoding,
            "_pages": [(pg.page_number, pg.text, pg.needs_ocr) for pg in p.pages]}


def add_paths(
    project: Project,
    paths: Sequence[Path],
    *,
    progress: Progress = lambda done, total: None,
    cancelled: Cancelled = lambda: False,
    max_image_pixels: int = images.MAX_IMAGE_PIXELS,
) -> AddReport:
    """Add image, video and document files (folders recursively) to the project.

    A file's kind comes from its content (``content_kind``), its suffix only when the content names
    no format. Each file is hashed (SHA-256) and probed: images for upright size and EXIF orientation, videos
    for codec, time base, rotation, audio and duration (the frame index is built by
    ``index_videos``), documents for page count and per-page text. Files already in the project
    (same SHA-256, readable) are skipped as duplicates, checked again inside each write transaction so
    two imports of the same files at once store each file once; a file stored as unreadable that reads now
    replaces its unreadable row. Rows are written in short transactions of up to 200.
    Images whose header claims more than ``max_image_pixels`` (width x height; default 250 megapixels)
    are refused as decompression bombs, and so are files whose name is not valid UTF-8 (the project
    stores names as text; they are stored as unreadable under ``printable_path`` of the name).

    Returns an AddReport. A file that cannot be read never stops the others: it is reported with
    its reason and stored as ``unreadable``. Raises ProjectReadOnly if the project cannot be written.
    """
    report = AddReport()
    candidates, report.skipped, report.unreadable = scan(paths)
    with project.read() as s:
        known = set(s.scalars(select(Media.sha256).where(Media.sha256.is_not(None), Media.status == "ok")))
        known_unreadable = set(s.scalars(select(Media.path).where(Media.status == "unreadable")))
    total = len(candidates)
    pending: list[dict] = []

    def flush() -> None:
        """Write the pending rows in one transaction, checking inside it for what another writer just stored."""
        if not pending:
            return
        with project.write() as s:
            ok = [v for v in pending if v.get("status", "ok") == "ok"]
            stored = set(s.scalars(select(Media.sha256).where(
                Media.status == "ok", Media.sha256.in_([v["sha256"] for v in ok])))) if ok else set()
            bad = set(s.scalars(select(Media.path).where(
                Media.status == "unreadable", Media.path.in_([v["path"] for v in pending]))))
            for values in pending:
                source, pages = values.pop("_source"), values.pop("_pages", None)
                if values.get("status", "ok") == "ok":
                    if values["sha256"] in stored:  # another import stored the same file meanwhile
                        report.imported[values["kind"]] -= 1
                        report.media_ids.remove(values["id"])
                        report.duplicates.append(source)
                        continue
                    # a file that was unreadable before reads now
                    s.execute(delete(Media).where(Media.path == values["path"], Media.status == "unreadable"))
                elif values["path"] in bad:
                    continue
                s.add(Media(**values))
                if pages:
                    s.flush()
                    s.execute(insert(DocumentPage), [
                        {"media_id": values["id"], "page_number": n, "text": t, "needs_ocr": o} for n, t, o in pages
                    ])
        pending.clear()

    for done, path in enumerate(candidates):
        if cancelled():
            report.cancelled = True
            break
        if not _name_is_utf8(path):
            reason = "its name is not valid UTF-8 (rename the file to import it)"
            report.unreadable.append((path, reason))
            shown = printable_path(stored_path(project, path))
            if shown not in known_unreadable:
                known_unreadable.add(shown)
                pending.append({"id": new_id(), "kind": kind_of(path) or "document", "path": shown, "_source": path,
                                "file_name": printable_path(path.name), "status": "unreadable", "error": reason})
            progress(done + 1, total)
            continue
        try:
            kind = content_kind(path) or kind_of(path) or "document"
            digest, size = sha256_file(path)
        except FileNotFoundError:
            report.unreadable.append((path, "no longer exists (deleted before it could be read)"))
            continue
        except OSError as exc:
            report.unreadable.append((path, f"cannot be read ({exc.strerror or exc})"))
            continue
        if digest in known:
            report.duplicates.append(path)
            progress(done + 1, total)
            continue
        root, stored = stored_location(project, path)
        row = {"id": new_id(), "kind": kind, "path": stored, "media_root": root, "_source": path,
               "file_name": path.name, "sha256": digest, "size_bytes": size}
        try:
            row.update(_probe(path, kind, max_image_pixels))
        except MediaError as exc:
            report.unreadable.append((path, exc.reason))
            if row["path"] not in known_unreadable:
                row.update(status="unreadable", error=exc.reason)
                known_unreadable.add(row["path"])
                pending.append(row)
        else:
            known.add(digest)
            report.imported[kind] += 1
            report.media_ids.append(row["id"])
            pending.append(row)
        if len(pending) >= _BATCH:
            flush()
        progress(done + 1, total)
    flush()
    return report


# -- finding media ---------------------------------------------------------------------------------
def find_media(project: Project, ref: str) -> Media:
    """The media named by ``ref``: its id, an id prefix of 6+ characters, its file name or stored path.

    Raises NotFound when nothing matches, or when a file name matches several media (listing them).
    """
    with project.read() as s:
        row = s.get(Media, ref)
        if row is not None:
            return row
        rows = list(s.scalars(select(Media).where((Media.file_name == ref) | (Media.path == ref))))
        if not rows and len(ref) >= 6:
            rows = list(s.scalars(select(Media).where(Media.id.startswith(ref.lower()))))
        if not rows:
            rows = list(s.scalars(select(Media).where(Media.file_name == Path(ref).name)))
    if len(rows) == 1:
        return rows[0]
    if not rows:
        raise NotFound(f"no media named {ref!r} in {project.path.name}")
    listing = ", ".join(f"{r.id[:8]} ({r.path})" for r in rows[:10])
    raise NotFound(f"{ref!r} names {len(rows)} media in {project.path.name}: {listing}; give an id instead")


def media_counts(project: Project) -> dict[str, int]:
    """Number of readable media per kind (image, video, document)."""
    with project.read() as s:
        rows = s.execute(select(Media.kind, func.count()).where(Media.status == "ok").group_by(Media.kind)).all()
    counts = dict.fromkeys(KINDS, 0)
    counts.update({k: n for k, n in rows})
    return counts


# -- relinking -------------------------------------------------------------------------------------
def relink(
    project: Project,
    folder: Path,
    *,
    progress: Progress = lambda done, total: None,
    cancelled: Cancelled = lambda: False,
) -> dict[str, str]:
    """Find media whose files are missing in ``folder`` (recursively) by SHA-256 and update their paths.

    Only files whose size equals a missing media's size are hashed. Returns {media id: new path}.
    """
    with project.read() as s:
        rows = list(s.scalars(select(Media).where(Media.sha256.is_not(None))))
    missing = [m for m in rows if not _present(project, m)]
    by_size: dict[int, list[Media]] = {}
    for m in missing:
        by_size.setdefault(m.size_bytes or -1, []).append(m)
    candidates, _, _ = scan([folder])
    candidates = [c for c in candidates if c.stat().st_size in by_size]
    found: dict[str, str] = {}
    for done, path in enumerate(candidates):
        if cancelled():
            break
        digest, size = sha256_file(path)
        for m in by_size.get(size, []):
            if m.sha256 == digest and m.id not in found:
                found[m.id] = path
        progress(done + 1, len(candidates))
    if found:
        with project.write() as s:
            for media_id, path in found.items():
                row = s.get(Media, media_id)
                row.media_root, row.path = stored_location(project, path)
                row.file_name = path.name
    return {media_id: stored_path(project, path) for media_id, path in found.items()}


def _present(project: Project, media: Media) -> bool:
    """True when the media's file is where its stored path says on this machine (an unmapped root: False)."""
    try:
        return media_path(project, media).is_file()
    except media_roots.MediaRootError:
        return False


# -- frame index -----------------------------------------------------------------------------------
#: ``Media.index_status``: ``pending`` (no index yet), ``packets`` (the packet index, from demuxing only,
#: in use until the decoded index verifies it), ``ready`` (the decoded index), ``failed``.
INDEX_PENDING, INDEX_PACKETS, INDEX_READY, INDEX_FAILED = "pending", "packets", "ready", "failed"


def first_frame_table(project: Project, media: Media) -> tuple[video.FrameTable, str]:
    """The index a video without one opens on at once, and its status: the packet index, or the decoded
    index when its packets carry no timestamps. Nothing is stored (``store_frame_table(if_missing=True)``).
    Raises MediaError when the file is missing or cannot be read."""
    path = require_file(project, media)
    try:
        return video.build_packet_table(path), INDEX_PACKETS
    except MediaError:
        return video.build_frame_table(path), INDEX_READY


def store_frame_table(project: Project, media_id: str, table: video.FrameTable, *, status: str = INDEX_READY,
                      if_missing: bool = False) -> int:
    """Replace the stored frame index of a video with ``table``; record its count, VFR flag and ``status``.

    When a different index was stored before (the packet index that the decoded one verifies), the
    video's annotations and rating items move with their pictures in the same transaction: each keeps
    its PTS and gets the index that PTS has in ``table`` (``video.remap_indices``; a frame that no longer
    exists goes to the frame shown at its time, whose PTS it then takes). Returns how many annotations
    and rating items changed frame index. ``if_missing`` stores nothing when the video has an index already.
    """
    return _store_frame_table(project, media_id, table, status=status, if_missing=if_missing)[0]


def _store_frame_table(project: Project, media_id: str, table: video.FrameTable, *, status: str = INDEX_READY,
                       if_missing: bool = False) -> tuple[int, bool]:
    """``store_frame_table``, and whether an index that differs from ``table`` was replaced."""
    with project.write() as s:
        m = s.get(Media, media_id)
        old = _frame_table_in(s, m)
        moved = 0
        if if_missing and old is not None:
            return 0, False
        replaced = old is not None and not video.same_frames(old, table)
        if old is None or replaced:  # else verified as it was: keep the rows, record the status
            if old is not None and len(old):
                moved = _remap_frames(s, media_id, old, table)
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
    return moved, replaced


def _placeholder(s) -> str:  # noqa: ANN001 - Session
    return "?" if s.get_bind().dialect.paramstyle in ("qmark", "numeric") else "%s"


def _insert_frame_rows(s, media_id: str, table: video.FrameTable) -> None:  # noqa: ANN001 - Session
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


def _frame_table_in(s, media: Media) -> video.FrameTable | None:  # noqa: ANN001 - Session
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
    return video.FrameTable(pts=arr[:, 0], keyframe=arr[:, 1].astype(bool),
                            time_base=Fraction(media.time_base_num or 1, media.time_base_den or 1))


def _remap_frames(s, media_id: str, old: video.FrameTable, new: video.FrameTable) -> int:  # noqa: ANN001
    """Move the frame indices of a video's annotations and rating items from table ``old`` to ``new``."""
    if old.time_base != new.time_base:  # the PTS are compared in seconds, on the new time base
        ratio = old.time_base / new.time_base
        old = video.FrameTable(pts=np.round(old.pts * float(ratio)).astype(np.int64), keyframe=old.keyframe,
                               time_base=new.time_base)
    last = len(old) - 1
    moved = 0

    def moved_to(index: int | None) -> int | None:
        if index is None:
            return None
        return int(video.remap_indices(old, new, np.asarray([min(max(index, 0), last)]))[0])

    for a in s.scalars(select(Annotation).where(Annotation.media_id == media_id)):
        changed = False
        for col, pts_col in (("frame_index", "pts"), ("end_frame_index", "end_pts")):
            index = getattr(a, col)
            target = moved_to(index)
            if target is None:
                continue
            if target != index or getattr(a, pts_col) != int(new.pts[target]):
                setattr(a, col, target)
                setattr(a, pts_col, int(new.pts[target]))
                changed = True
        moved += changed
    for item in s.scalars(select(RatingItem).where(RatingItem.media_id == media_id)):
        target = moved_to(item.frame_index)
        if target is not None and target != item.frame_index:
            item.frame_index = target
            moved += 1
    return moved


def load_frame_table(project: Project, media: Media) -> video.FrameTable | None:
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

    ``packets_only`` stores the packet index (``video.build_packet_table``, status ``packets``) of the
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
    build = video.build_packet_table if packets_only else video.build_frame_table
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
    table: video.FrameTable | None = None
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
                step.table = video.build_packet_table(path, progress=progress, cancelled=cancelled)
            except MediaError:  # no packet with a timestamp: decoding may still read the video
                step.status = INDEX_READY
        if step.table is None:
            step.table = video.build_frame_table(path, progress=progress, cancelled=cancelled)
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
