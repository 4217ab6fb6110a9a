"""The media library: adding files and folders to a project, finding them and relinking them.

``add_paths`` is the one service behind ``fieldstudio add``, the GUI's Add dialog and drag-and-drop.
A file that cannot be read never stops the others: it is listed with its reason and stored with
status ``unreadable`` so the library can show it.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sqlalchemy import delete, func, insert, select

from fieldstudio.core import media_roots
from fieldstudio.core.errors import MediaError, NotFound
from fieldstudio.core.file_names import printable_path, undecodable_name
from fieldstudio.media import images, video
from fieldstudio.store.library_rows import resolve_media_path
from fieldstudio.store.models import DocumentPage, Media, new_id
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


@dataclass
class AddReport:
    """What ``add_paths`` did: media imported per kind, duplicates skipped, files that could not be read.

    ``unreadable`` holds (path, reason); ``damaged`` (path, reason) of files imported although only part of
    them decodes (a cut JPEG; a partial video is named when its frame index is built); ``skipped`` holds
    files in folders whose type is not media.
    A path whose name is not valid UTF-8 cannot be printed as it is: show it with ``printable_path``.
    """

    imported: Counter = field(default_factory=Counter)
    media_ids: list[str] = field(default_factory=list)
    duplicates: list[Path] = field(default_factory=list)
    unreadable: list[tuple[Path, str]] = field(default_factory=list)
    damaged: list[tuple[Path, str]] = field(default_factory=list)
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
        return {"width": p.width, "height": p.height, "format": p.format, "orientation": p.orientation,
                "error": p.damage}  # an ok image with an error decodes only partly: damaged
    if kind == "video":
        p = video.probe_video(path)
        return {
            "width": p.width, "height": p.height, "format": p.format, "codec": p.codec,
            "duration_s": p.duration_s, "time_base_num": p.time_base.numerator,
            "time_base_den": p.time_base.denominator, "rotation": p.rotation, "has_audio": p.has_audio,
            "avg_fps": p.avg_fps, "index_status": "pending",
            "extra": {"frame_count_estimate": p.frame_count_estimate, "container_duration_s": p.duration_s},
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
    are refused as decompression bombs, and so are files whose name, or a folder's on the way, is not valid
    UTF-8 (the project stores names as text; they are stored as unreadable under ``printable_path`` of the name,
    the reason naming the folder at fault, ``core.file_names.undecodable_name``).

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
        reason = undecodable_name(path)
        if reason is not None:
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
            if row.get("error"):
                report.damaged.append((path, row["error"]))
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
