"""File names that are not valid UTF-8, as text that can be printed and stored, and back.

POSIX file names are bytes; a project stores names as text. ``printable_path`` writes each byte that is not
part of valid UTF-8 as ``\\xNN`` (Python's ``backslashreplace``), and ``from_printable`` turns those back
into the bytes, so the library can still find such a file on disk and say it is there. ``undecodable_name`` says
which part of a path is not UTF-8: the file's own name, or a folder on the way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# backslashreplace writes undecodable bytes, all of them 0x80 or above, as lowercase \xNN
_ESCAPED_BYTE = re.compile(rb"\\x([89a-f][0-9a-f])")


def printable_path(path: Path | str) -> str:
    """``path`` as text that can always be printed and stored: bytes that are not UTF-8 become ``\\xff``."""
    return os.fsencode(path).decode("utf-8", errors="backslashreplace")


def printable_text(text: str) -> str:
    """A message that may quote such a path (its bytes held as surrogate escapes, ``os.fsdecode``), as text that can
    always be printed: those bytes as ``\\xff``, as :func:`printable_path` writes them; other text unchanged."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="backslashreplace")


def from_printable(text: str) -> str:
    """The file system path that ``printable_path`` wrote as ``text`` (``\\xNN`` back to byte NN), as a str
    with surrogate escapes (``os.fsdecode``); ``text`` without such escapes is returned unchanged."""
    if "\\x" not in text:
        return text
    raw = _ESCAPED_BYTE.sub(lambda m: bytes([int(m[1], 16)]), os.fsencode(text))
    return os.fsdecode(raw)


def _is_utf8(part: bytes) -> bool:
    try:
        part.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def undecodable_name(path: Path | str) -> str | None:
    """Why ``path`` cannot be stored as text, naming the part at fault, or None when every part of it is UTF-8.

    A folder on the way whose name is not UTF-8 is named (the outermost one: renaming it is what makes the files
    under it importable): "the folder /data/caf\\xe9 has a name that is not valid UTF-8 (rename the folder to
    import the files in it)"; else "its name is not valid UTF-8 (rename the file to import it)" for the file's
    own name."""
    parts = Path(path).parts
    own = os.fsencode(parts[-1]) if parts else b""
    for n, part in enumerate(parts[:-1]):
        if not _is_utf8(os.fsencode(part)):
            also = "" if _is_utf8(own) else "; the file's own name is not UTF-8 either"
            return (f"the folder {printable_path(Path(*parts[:n + 1]))} has a name that is not valid UTF-8 (rename "
                    f"the folder to import the files in it{also})")
    if not _is_utf8(own):
        return "its name is not valid UTF-8 (rename the file to import it)"
    return None
