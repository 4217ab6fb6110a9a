"""Named media roots: where each machine keeps a team's footage (issue 22, item 2).

A media under a root is stored as the root's name plus a POSIX path relative to it (``Media.media_root``,
``Media.path``), so one shared project serves machines that keep the same files in different folders. Each
machine maps a root name to its own folder in the user's configuration (``<config dir>/media_roots.json``,
``{"site-footage": "/mnt/nas/site"}``), never in the project. A file added from below a mapped folder is
stored under that root (the deepest one when roots nest).
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.user_settings import MEDIA_ROOTS

FILE_NAME = MEDIA_ROOTS.name
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_cache: tuple[Path, float, dict[str, Path]] | None = None


class MediaRootError(FieldstudioError):
    """A media root name is malformed, or it is not mapped to a folder on this machine."""


def roots_file() -> Path:
    """The user's media root map (it may not exist yet)."""
    return MEDIA_ROOTS.path()


def roots() -> dict[str, Path]:
    """Root name -> this machine's folder. Raises MediaRootError naming the file when it is not valid JSON."""
    global _cache
    path = roots_file()
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return {}
    if _cache is not None and _cache[0] == path and _cache[1] == mtime:
        return dict(_cache[2])
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MediaRootError(f"{path}: is not a media root map ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise MediaRootError(f"{path}: must map root names to folders, e.g. {{\"site-footage\": \"/mnt/site\"}}")
    mapped = {str(k): Path(v) for k, v in data.items()}
    _cache = (path, mtime, mapped)
    return dict(mapped)


def check_name(name: str) -> str:
    """``name`` if it can name a root (letters, digits, ``.``, ``_``, ``-``; at most 100), else MediaRootError."""
    if not _NAME.match(name or ""):
        raise MediaRootError(f"{name!r} cannot name a media root: use letters, digits, '.', '_' or '-' (e.g. site-footage)")
    return name


def set_root(name: str, folder: Path) -> Path:
    """Map root ``name`` to ``folder`` (made absolute) on this machine; returns the folder.

    Raises MediaRootError for a bad name or a folder that does not exist.
    """
    check_name(name)
    folder = Path(folder).expanduser().resolve()
    if not folder.is_dir():
        raise MediaRootError(f"{folder}: is not a folder; media root {name!r} was not changed")
    mapped = {k: str(v) for k, v in roots().items()}
    mapped[name] = str(folder)
    atomic_write_text(roots_file(), json.dumps(mapped, indent=2, sort_keys=True) + "\n")
    return folder


def remove_root(name: str) -> bool:
    """Forget this machine's folder of root ``name``; False when it was not mapped."""
    mapped = {k: str(v) for k, v in roots().items()}
    if mapped.pop(name, None) is None:
        return False
    atomic_write_text(roots_file(), json.dumps(mapped, indent=2, sort_keys=True) + "\n")
    return True


def locate(path: Path) -> tuple[str, str] | None:
    """(root name, POSIX path relative to its folder) of a file below a mapped root (the deepest), else None."""
    absolute = Path(path).resolve()
    best = None
    for name, folder in roots().items():
        try:
            rel = absolute.relative_to(folder)
        except ValueError:
            continue
        if best is None or len(folder.parts) > best[0]:
            best = (len(folder.parts), name, PurePosixPath(rel.as_posix()).as_posix())
    return None if best is None else (best[1], best[2])


def resolve(name: str, stored: str) -> Path:
    """The file ``stored`` (relative to root ``name``) on this machine. Raises MediaRootError when the root is
    not mapped here, saying how to map it."""
    folder = roots().get(name)
    if folder is None:
        raise MediaRootError(f"media root {name!r} is not set on this computer: "
                             f"`fieldstudio media-root set {name} FOLDER` (or open the project in the window)")
    return folder / Path(*PurePosixPath(stored).parts)
