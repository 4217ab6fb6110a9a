"""Colours of marks that stay readable: WCAG 2 contrast of caption text, and label colours kept apart.

The relative luminance and contrast ratio are WCAG 2.1's (success criterion 1.4.3, "Contrast
(Minimum)", and its definitions of relative luminance and contrast ratio): sRGB channels linearised with
the 0.03928 threshold, ``L = 0.2126 R + 0.7152 G + 0.0722 B``, ratio ``(L1 + 0.05) / (L2 + 0.05)``.
Black or white text on any opaque colour reaches at least 4.58:1 with the better of the two, above the
4.5:1 that WCAG asks of normal text, which is why a caption is a filled chip of the label's colour with
black or white text rather than text in the label's colour over the picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

#: Colours given to new labels (Okabe-Ito colour-blind-safe palette, then a few extra).
PALETTE = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7",
           "#999999", "#ff4f79", "#7fdbff")
BLACK, WHITE = "#000000", "#ffffff"
#: WCAG 2.1 level AA minimum for normal text.
MIN_TEXT_CONTRAST = 4.5


def rgb(color: str) -> tuple[int, int, int]:
    """``#rrggbb`` (or ``#rrggbbaa``, alpha ignored) as three 0-255 ints. Raises ValueError for another form."""
    text = color.strip().lstrip("#")
    if len(text) not in (6, 8):
        raise ValueError(f"colour {color!r} is not of the form #rrggbb")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def relative_luminance(color: str) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour, 0 (black) to 1 (white)."""
    def linear(c: int) -> float:
        v = c / 255.0
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two colours, 1 (same) to 21 (black on white)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


@lru_cache(maxsize=256)  # each box and caption asks at every paint, 60+ times a second while a video plays
def text_colour_for(background: str) -> str:
    """Black or white, whichever contrasts more with ``background`` (always >= 4.58:1)."""
    return BLACK if contrast_ratio(background, BLACK) >= contrast_ratio(background, WHITE) else WHITE


def _distance(a: str, b: str) -> float:
    # "redmean" weighted RGB distance: cheap, and closer to how far apart colours look than plain RGB
    (r1, g1, b1), (r2, g2, b2) = rgb(a), rgb(b)
    rm = (r1 + r2) / 2
    return ((2 + rm / 256) * (r1 - r2) ** 2 + 4 * (g1 - g2) ** 2 + (2 + (255 - rm) / 256) * (b1 - b2) ** 2) ** 0.5


def next_colour(used: Sequence[str]) -> str:
    """The palette colour farthest from every colour in ``used`` (the first unused one on a tie), so a new
    label does not look like one already there; with every palette colour used, the least used one."""
    if not used:
        return PALETTE[0]
    used_rgb = [u.lower()[:7] for u in used]
    free = [c for c in PALETTE if c not in used_rgb]
    if not free:
        return min(PALETTE, key=lambda c: (used_rgb.count(c), PALETTE.index(c)))
    return max(free, key=lambda c: (min(_distance(c, u) for u in used_rgb), -PALETTE.index(c)))
