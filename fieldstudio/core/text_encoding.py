"""Decoding text files whose encoding nobody wrote down: UTF-8 first, then what charset-normalizer detects.

Excel's "CSV" on Western-European Windows is cp1252 and on Japanese Windows cp932 (Shift-JIS), with no
marker saying so; "CSV UTF-8" adds a BOM. ``decode_text`` reads all three.
"""

from __future__ import annotations

from charset_normalizer import from_bytes

PREFERRED = ("cp1252", "cp932")
"""Excel's code pages on Western-European and Japanese Windows: on a short text that several code pages
decode without noise (charset-normalizer's "chaos" equal to the least), these win, in this order."""


def guess_decode(raw: bytes) -> tuple[str, str] | None:
    """(text, Python codec name) as charset-normalizer decodes ``raw``, or None when it looks binary.

    A short text often decodes cleanly in several code pages (``Größe`` is as clean in hp_roman8 and
    cp1250 as in cp1252); when one of ``PREFERRED`` gives the text of a match with the least chaos, it
    wins, else charset-normalizer's best.
    """
    matches = from_bytes(raw)
    best = matches.best()
    if best is None:
        return None
    least = min(m.chaos for m in matches)
    clean = {str(m) for m in matches if m.chaos == least}  # charset-normalizer drops codecs that read alike
    for encoding in PREFERRED:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        if text in clean:
            return text, encoding
    return str(best), best.encoding


def decode_text(raw: bytes) -> tuple[str, str]:
    """(text without a BOM, codec name): UTF-8 (a BOM allowed) when ``raw`` is valid UTF-8, else detected.

    Raises UnicodeDecodeError (the UTF-8 error) when no encoding gives text.
    """
    try:
        return raw.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        guessed = guess_decode(raw)
        if guessed is None or "\x00" in guessed[0]:
            raise exc from None
        text, encoding = guessed
        return text.removeprefix("\ufeff"), encoding
