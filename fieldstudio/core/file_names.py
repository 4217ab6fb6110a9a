"""File names that are not valid UTF-8, as text that can be printed and stored, and back.

POSIX file names are bytes; a project stores names as text. ``printable_path`` writes each byte that is not
part of valid UTF-8 as ``\\xNN`` (Python's ``backslashreplace``), and ``from_printable`` turns those back
into the bytes, so the library can still find such a file on disk and say it is there.
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


def from_printable(text: str) -> str:
    """The file system path that ``printable_path`` wrote as ``text`` (``\\xNN`` back to byte NN), as a str
    with surrogate escapes (``os.fsdecode``); ``text`` without such escapes is returned unchanged."""
    if "\\x" not in text:
        return text
    raw = _ESCAPED_BYTE.sub(lambda m: bytes([int(m[1], 16)]), os.fsencode(text))
    return os.fsdecode(raw)
