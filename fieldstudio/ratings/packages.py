"""Rating packages: a rating set carried to an offline rater and back, merged by UUID.

A package is a ZIP file holding ``package.json`` and, unless left out, the media files under
``media/<sha256><suffix>`` (each file once); or a bare ``.json`` file without media (for a rater who
already has the files: media are found again by their SHA-256).

``package.json``::

    {"format": "fieldstudio-rating-package", "version": 1, "exported_at": ISO-8601 UTC,
     "rating_set": {"id", "name", "requirement", "reasons", "fields"},
     "items": [{"id", "position", "frame_index", "sha256", "file_name", "kind", "member",
                "ground_truth" (only when asked)}],
     "ratings": [{"id", "item_id", "rater", "verdict", "reasons", "fields", "seconds_spent", "saved_at"}]}

A package made for a rater carries no answers (blind); the rater's package back carries their ratings.
Merging (``import_package``) never duplicates and never loses:

* the rating set and items are matched by UUID; an item whose UUID is new but whose (media, frame) is
  already in the set is matched to that item (``items_aliased``);
* a rating is matched by (item, rater): a new one is added; an identical one is left alone (importing
  twice changes nothing); when the two differ, the version saved last is kept and the other is
  appended to the kept rating's ``_history`` (so a conflicting edit is never lost); ratings of
  different raters never touch each other;
* a media file not found in the project by SHA-256 is extracted beside the project (folder
  ``<project name>_rating_media``) and added; without the file, the item is kept and listed. A member whose
  bytes do not have the SHA-256 its item names is not kept (listed the same way).

Before anything is read, a ZIP's headers are checked against limits (`check_archive`: files in it, bytes
unpacked in all, the inflation of one member), and the manifest is read no further than `MAX_MANIFEST_BYTES`
and no deeper than Python's JSON decoder goes (`core.json_limits`): a bomb is refused with one line.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy import select

from fieldstudio.core.atomic import atomic_writer
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.json_limits import JsonLimitError, load_json
from fieldstudio.media import library, video_index
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.models import Media, Rating, RatingItem, RatingSet
from fieldstudio.store.project import Project

__all__ = ["FORMAT", "VERSION", "PackageError", "ExportReport", "ImportReport", "export_package", "import_package",
           "read_package", "check_archive"]

FORMAT = "fieldstudio-rating-package"
VERSION = 1
_MANIFEST = "package.json"
#: Limits of a package, checked on its ZIP headers before anything is unpacked (`check_archive`) and, for the
#: manifest, on the bytes read: files in it, bytes unpacked in all, inflation of one member, the manifest's size.
MAX_MEMBERS = 200_000
MAX_UNCOMPRESSED_BYTES = 200_000_000_000
MAX_RATIO = 200
MAX_MANIFEST_BYTES = 256_000_000


class PackageError(FieldstudioError):
    """A rating package cannot be read or merged; the message names the file and the reason."""


@dataclass
class ExportReport:
    """``items``, ``ratings`` and ``media_files`` written, media ``missing`` on disk (file names)."""

    path: Path
    items: int = 0
    ratings: int = 0
    media_files: int = 0
    missing: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    """What a merge did. ``conflicts``: (item label, rater, kept) with kept "local" or "package"."""

    rating_set: str = ""
    set_created: bool = False
    items_added: int = 0
    items_aliased: int = 0
    items_known: int = 0
    media_added: int = 0
    media_missing: list[str] = field(default_factory=list)
    ratings_added: int = 0
    ratings_updated: int = 0
    ratings_unchanged: int = 0
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)


def _iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    if dt.tzinfo is not None:
        dt = dt.astimezone(timezone.utc).replace(tzinfo=None)
    return dt.isoformat()


def _parse_dt(text: str | None) -> datetime | None:
    if not text:
        return None
    dt = datetime.fromisoformat(text)
    return dt.astimezone(timezone.utc).replace(tzinfo=None) if dt.tzinfo else dt


def export_package(project: Project, ref: str, path: Path, *, ratings_of: Sequence[str] | str | None = None,
                   include_media: bool = True, include_ground_truth: bool = False,
                   progress: Callable[[int, int], None] = lambda done, total: None,
                   cancelled: Callable[[], bool] = lambda: False) -> ExportReport:
    """Write a rating package of set ``ref`` to ``path`` (atomically).

    Args:
        ratings_of: None = no ratings (a blind package for a new rater); "all" = every human rating;
            a list of rater names = only theirs (a rater sending their work back).
        include_media: put the media files in the ZIP (``path`` must then end in ``.zip``); False
            writes the manifest alone (``.json`` or ``.zip``).
        include_ground_truth: carry the items' known ground truth (never for a blind package).
    Raises NotFound for an unknown set, PackageError when ``path`` has the wrong suffix.
    """
    path = Path(path)
    if path.suffix.lower() not in (".zip", ".json"):
        raise PackageError(f"{path}: a rating package is a .zip (with media) or a .json (without)")
    if include_media and path.suffix.lower() == ".json":
        raise PackageError(f"{path}: a .json package cannot hold media files; use .zip or leave media out")
    info = ratings.get_rating_set(project, ref)
    items = ratings.list_items(project, ref)
    report = ExportReport(path)
    media_files: dict[str, Path] = {}
    manifest_items = []
    with project.read() as s:
        wanted = [i.media_id for i in items if i.media_id]
        media = {m.id: m for m in s.scalars(select(Media).where(Media.id.in_(wanted)))}
    for item in items:
        m = media.get(item.media_id) if item.media_id else None
        member = None
        if include_media and m is not None and m.sha256:
            file = library.media_path(project, m)
            if file.is_file():
                member = f"media/{m.sha256}{Path(m.file_name).suffix.lower()}"
                media_files[member] = file
            else:
                report.missing.append(m.file_name)
        entry = {"id": item.id, "position": item.position, "frame_index": item.frame_index,
                 "sha256": m.sha256 if m else item.sha256, "file_name": m.file_name if m else None,
                 "kind": m.kind if m else None, "member": member}
        if include_ground_truth and item.ground_truth:
            entry["ground_truth"] = item.ground_truth
        manifest_items.append(entry)
    chosen: list[dict[str, Any]] = []
    if ratings_of is not None:
        wanted = None if ratings_of == "all" else {ratings_of} if isinstance(ratings_of, str) else set(ratings_of)
        with project.read() as s:
            rows = s.scalars(select(Rating).join(RatingItem, Rating.item_id == RatingItem.id)
                             .where(RatingItem.rating_set_id == info.id).order_by(Rating.rater, Rating.id))
            for r in rows:
                if ratings.is_machine(r.rater) or (wanted is not None and r.rater not in wanted):
                    continue
                chosen.append({"id": r.id, "item_id": r.item_id, "rater": r.rater, "verdict": r.verdict,
                               "reasons": list(r.reasons or []), "fields": dict(r.fields or {}),
                               "seconds_spent": r.seconds_spent, "saved_at": _iso(r.created_at)})
    manifest = {"format": FORMAT, "version": VERSION,
                "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "rating_set": {"id": info.id, "name": info.name, "requirement": info.requirement,
                               "reasons": info.reasons, "fields": info.fields},
                "items": manifest_items, "ratings": chosen}
    text = json.dumps(manifest, indent=1, ensure_ascii=False)
    if path.suffix.lower() == ".json":
        with atomic_writer(path) as fh:
            fh.write(text)
    else:
        with atomic_writer(path, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(_MANIFEST, text)
            for done, (member, file) in enumerate(sorted(media_files.items())):
                if cancelled():
                    raise InterruptedError("export cancelled; nothing was written")
                z.write(file, member, compress_type=zipfile.ZIP_STORED)  # photos and videos are compressed
                progress(done + 1, len(media_files))
    report.items, report.ratings, report.media_files = len(manifest_items), len(chosen), len(media_files)
    return report


def read_package(path: Path) -> dict[str, Any]:
    """The manifest of a package (ZIP or JSON), checked. Raises PackageError naming the file and reason."""
    path = Path(path)
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                check_archive(z, path)
                with z.open(_MANIFEST) as fh:    # read no further than the limit, whatever the header says
                    raw = fh.read(MAX_MANIFEST_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_MANIFEST_BYTES + 1)
        if len(raw) > MAX_MANIFEST_BYTES:
            raise PackageError(f"{path}: its {_MANIFEST} is larger than {MAX_MANIFEST_BYTES:,} bytes; not read")
        data = load_json(raw.decode("utf-8"))
    except FileNotFoundError:
        raise PackageError(f"{path}: no such file") from None
    except KeyError:
        raise PackageError(f"{path}: is a ZIP file without {_MANIFEST}; not a rating package") from None
    except JsonLimitError as exc:
        raise PackageError(f"{path}: its {_MANIFEST} {exc}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, zipfile.BadZipFile) as exc:
        raise PackageError(f"{path}: cannot be read as a rating package ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PackageError(f"{path}: is not a fieldstudio rating package")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise PackageError(f"{path}: package version {data.get('version')!r} is newer than this fieldstudio reads")
    rs = data.get("rating_set")
    if not isinstance(rs, dict) or not rs.get("id") or not rs.get("name"):
        raise PackageError(f"{path}: the rating set has no id or name")
    for key in ("items", "ratings"):
        if not isinstance(data.get(key), list):
            raise PackageError(f"{path}: '{key}' is not a list")
    return data


def _extract_media(project: Project, path: Path, data: dict[str, Any], folder: Path | None,
                   report: ImportReport) -> dict[str, str]:
    """sha256 -> local media id, adding files from the package that the project lacks."""
    with project.read() as s:
        known = {sha: mid for sha, mid in s.execute(select(Media.sha256, Media.id).where(Media.status == "ok"))}
    wanted = {it["sha256"]: it for it in data["items"] if it.get("sha256") and it["sha256"] not in known}
    if not wanted:
        return known
    folder = folder or project.folder / f"{project.path.stem}_rating_media"
    new_files: list[Path] = []
    forged: set[str] = set()
    is_zip = zipfile.is_zipfile(path)
    with (zipfile.ZipFile(path) if is_zip else _NoZip()) as z:
        members = set(z.namelist()) if is_zip else set()
        for sha, it in wanted.items():
            member = it.get("member")
            if not member or member not in members:
                report.media_missing.append(it.get("file_name") or sha)
                continue
            folder.mkdir(parents=True, exist_ok=True)
            name = PurePosixPath(it.get("file_name") or PurePosixPath(member).name).name
            target = folder / name
            if target.exists():
                target = folder / f"{sha[:8]}_{name}"
            try:
                with z.open(member) as src, atomic_writer(target, "wb") as dst:
                    digest = hashlib.sha256()
                    while chunk := src.read(1 << 20):
                        digest.update(chunk)
                        dst.write(chunk)
                    if digest.hexdigest() != sha:    # raised inside: the file is removed, never kept
                        raise _HashMismatch()
            except _HashMismatch:
                forged.add(sha)
                report.media_missing.append(f"{it.get('file_name') or member} (its SHA-256 does not match the "
                                            "package's: not kept)")
                continue
            new_files.append(target)
    if new_files:
        added = library.add_paths(project, new_files)
        video_index.index_videos(project, added.media_ids)
        report.media_added = added.imported_total
        with project.read() as s:
            known = {sha: mid for sha, mid in s.execute(select(Media.sha256, Media.id).where(Media.status == "ok"))}
        for sha in wanted:
            name = wanted[sha].get("file_name") or sha
            if sha not in known and sha not in forged and name not in report.media_missing:
                report.media_missing.append(name)
    return known


class _HashMismatch(Exception):
    """A package member's bytes are not the ones its SHA-256 names."""


def check_archive(z: zipfile.ZipFile, path: Path) -> None:
    """Refuse a ZIP whose headers declare more members than `MAX_MEMBERS`, more than `MAX_UNCOMPRESSED_BYTES` in
    all, or a member inflating more than `MAX_RATIO` times (above 1 MB): a bomb, checked before anything is read.

    Raises PackageError naming the file and the limit.
    """
    infos = z.infolist()
    if len(infos) > MAX_MEMBERS:
        raise PackageError(f"{path}: holds {len(infos):,} files, more than the {MAX_MEMBERS:,} a package may hold; "
                           "not read")
    total = sum(i.file_size for i in infos)
    if total > MAX_UNCOMPRESSED_BYTES:
        raise PackageError(f"{path}: would unpack to {total:,} bytes, more than {MAX_UNCOMPRESSED_BYTES:,}; not read")
    for i in infos:
        if i.file_size > 1_000_000 and i.file_size > MAX_RATIO * max(i.compress_size, 1):
            raise PackageError(f"{path}: {i.filename} would inflate {i.file_size / max(i.compress_size, 1):,.0f} "
                               f"times ({i.compress_size:,} to {i.file_size:,} bytes), more than {MAX_RATIO}; not read")


class _NoZip:
    def __enter__(self) -> _NoZip:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _content(fields: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (fields or {}).items() if k != ratings.HISTORY_KEY}


def _version(verdict: str, reasons: list, fields: dict | None, seconds: float | None, saved: datetime | None,
             rating_id: str) -> dict[str, Any]:
    return {"id": rating_id, "verdict": verdict, "reasons": list(reasons or []), "fields": _content(fields),
            "seconds_spent": seconds, "saved_at": _iso(saved)}


def import_package(project: Project, path: Path, *, media_folder: Path | None = None,
                   progress: Callable[[int, int], None] = lambda done, total: None) -> ImportReport:
    """Merge a rating package into the project (see the module docstring for the rules).

    Returns an ImportReport. Raises PackageError for a file that is not a package or whose rating set's
    name is taken in this project by a different set (rename one of them first).
    """
    path = Path(path)
    data = read_package(path)
    rs = data["rating_set"]
    report = ImportReport(rating_set=rs["name"])
    by_sha = _extract_media(project, path, data, media_folder, report)
    with project.write() as s:
        row = s.get(RatingSet, rs["id"])
        if row is None:
            clash = s.scalars(select(RatingSet).where(RatingSet.name == rs["name"])).first()
            if clash is not None:
                raise PackageError(f"{path}: this project already has a different rating set named {rs['name']!r} "
                                   f"(id {clash.id[:8]}, the package's is {rs['id'][:8]}); rename one first")
            row = RatingSet(id=rs["id"], name=rs["name"], requirement=rs.get("requirement") or "",
                            reasons=list(rs.get("reasons") or ratings.REASONS),
                            fields=ratings.validate_fields(rs.get("fields")))
            s.add(row)
            s.flush()
            report.set_created = True
        local_items = {i.id: i for i in s.scalars(select(RatingItem).where(RatingItem.rating_set_id == row.id))}
        by_place = {(i.media_id, i.frame_index): i.id for i in local_items.values() if i.media_id}
        id_map: dict[str, str] = {}
        labels: dict[str, str] = {}
        for it in data["items"]:
            media_id = by_sha.get(it.get("sha256"))
            labels[it["id"]] = (it.get("file_name") or "?") + ("" if it.get("frame_index") is None
                                                              else f"#{it['frame_index']}")
            if it["id"] in local_items:
                id_map[it["id"]] = it["id"]
                report.items_known += 1
                if local_items[it["id"]].media_id is None and media_id:
                    local_items[it["id"]].media_id = media_id
                continue
            if media_id and (media_id, it.get("frame_index")) in by_place:
                id_map[it["id"]] = by_place[(media_id, it.get("frame_index"))]
                report.items_aliased += 1
                continue
            other = s.get(RatingItem, it["id"])
            if other is not None:
                raise PackageError(f"{path}: item {it['id'][:8]} belongs to another rating set in this project")
            new = RatingItem(id=it["id"], rating_set_id=row.id, position=int(it.get("position") or 0),
                             media_id=media_id, frame_index=it.get("frame_index"), sha256=it.get("sha256"),
                             ground_truth=it.get("ground_truth"))
            s.add(new)
            id_map[it["id"]] = it["id"]
            if media_id:
                by_place[(media_id, it.get("frame_index"))] = it["id"]
            report.items_added += 1
        s.flush()
        for done, r in enumerate(data["ratings"]):
            _merge_rating(s, r, id_map, labels, report, path)
            progress(done + 1, len(data["ratings"]))
    return report


def _merge_rating(s, r: dict[str, Any], id_map: dict[str, str], labels: dict[str, str],  # noqa: ANN001
                  report: ImportReport, path: Path) -> None:
    item_id = id_map.get(r.get("item_id"))
    if item_id is None:
        raise PackageError(f"{path}: rating {str(r.get('id'))[:8]} names an item that is not in the package")
    if r.get("verdict") not in ratings.VERDICT_VALUES or not r.get("rater"):
        raise PackageError(f"{path}: rating {str(r.get('id'))[:8]} has no rater or a bad verdict {r.get('verdict')!r}")
    saved = _parse_dt(r.get("saved_at"))
    incoming = _version(r["verdict"], r.get("reasons"), r.get("fields"), r.get("seconds_spent"), saved, r["id"])
    local = s.scalars(select(Rating).where(Rating.item_id == item_id, Rating.rater == r["rater"])).one_or_none()
    if local is None:
        rid = r["id"] if s.get(Rating, r["id"]) is None else None
        s.add(Rating(**({"id": rid} if rid else {}), item_id=item_id, rater=r["rater"], verdict=r["verdict"],
                     reasons=list(r.get("reasons") or []), fields=dict(r.get("fields") or {}),
                     seconds_spent=r.get("seconds_spent"), created_at=saved or datetime.now(timezone.utc)))
        report.ratings_added += 1
        return
    mine = _version(local.verdict, local.reasons, local.fields, local.seconds_spent, _parse_dt(_iso(local.created_at)),
                    local.id)
    same = {k: v for k, v in mine.items() if k != "id"} == {k: v for k, v in incoming.items() if k != "id"}
    history = list((local.fields or {}).get(ratings.HISTORY_KEY) or [])
    for h in (r.get("fields") or {}).get(ratings.HISTORY_KEY) or []:
        if h not in history:
            history.append(h)
    if same:
        if history != list((local.fields or {}).get(ratings.HISTORY_KEY) or []):
            local.fields = {**_content(local.fields), ratings.HISTORY_KEY: history}
            report.ratings_updated += 1
        else:
            report.ratings_unchanged += 1
        return
    package_wins = saved is not None and (mine["saved_at"] is None or incoming["saved_at"] > mine["saved_at"])
    loser = mine if package_wins else incoming
    if not package_wins and loser in history and history == list((local.fields or {}).get(ratings.HISTORY_KEY) or []):
        report.ratings_unchanged += 1          # this conflict was merged before: nothing new
        return
    if loser not in history:
        history.append(loser)
    if package_wins:
        local.verdict, local.reasons = r["verdict"], list(r.get("reasons") or [])
        local.seconds_spent, local.created_at = r.get("seconds_spent"), saved
        local.fields = {**_content(r.get("fields")), ratings.HISTORY_KEY: history}
    else:
        local.fields = {**_content(local.fields), ratings.HISTORY_KEY: history}
    report.ratings_updated += 1
    report.conflicts.append((labels.get(r.get("item_id"), item_id[:8]), r["rater"],
                             "package" if package_wins else "local"))
