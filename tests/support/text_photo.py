"""A photo with known text on it (a pump's label and a pressure reading), drawn with PIL's own font, to check what
OCR reads against what was drawn and where."""

from __future__ import annotations

from pathlib import Path

#: What is drawn, and the box (x, y, w, h) in pixels around each line.
LINES = {"PUMP 7": (60, 60, 240, 70), "4.2 bar": (420, 330, 220, 70)}


def write_text_photo(path: Path) -> Path:
    """An 800 x 480 PNG: grey background, two black-on-white labels (LINES)."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (800, 480), (120, 130, 120))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=48)
    for text, (x, y, w, h) in LINES.items():
        draw.rectangle((x, y, x + w, y + h), fill="white")
        draw.text((x + 16, y + 8), text, fill="black", font=font)
    image.save(path)
    return path
