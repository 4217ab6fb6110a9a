"""A scanned page of a real manual: page 1 of OSHA's lockout/tagout fact sheet (sample_data, public domain)
rasterised with PyMuPDF and put back as a picture only, its text layer dropped, and the words of that text layer
to check what OCR reads against."""

from __future__ import annotations

from pathlib import Path

MANUAL = Path(__file__).resolve().parents[2] / "sample_data" / "media" / "docs" / "osha_factsheet_lockout_tagout_2002.pdf"

#: The scan's resolution, dots per inch (an office scanner's usual setting).
SCAN_DPI = 200


def scan_first_page(folder: Path, name: str = "scanned lockout.pdf") -> tuple[Path, list[tuple[str, tuple]]]:
    """Write a one-page PDF holding only the picture of the manual's first page, same page size.

    Returns (its path, the original page's text-layer words as (word, (x0, y0, x1, y1) in PDF points)).
    """
    import pymupdf

    with pymupdf.open(MANUAL) as source:
        page = source[0]
        words = [(w[4], tuple(w[:4])) for w in page.get_text("words")]
        pix = page.get_pixmap(matrix=pymupdf.Matrix(SCAN_DPI / 72, SCAN_DPI / 72), colorspace=pymupdf.csRGB,
                              alpha=False)
        rect = page.rect
        png = pix.tobytes("png")
    out = pymupdf.open()
    scanned = out.new_page(width=rect.width, height=rect.height)
    scanned.insert_image(scanned.rect, stream=png)
    path = Path(folder) / name
    out.save(path)
    out.close()
    return path, words
