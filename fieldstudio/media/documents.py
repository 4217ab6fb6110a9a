"""Documents (PDF manuals, plain-text notes): probe, page text in reading order, page rendering, search.

Qt-free. PDF work goes through PyMuPDF (``pymupdf``); text-file encodings are detected with
charset_normalizer. Coordinates returned for PDF pages are PDF points (1/72 inch) with the origin at
the top-left corner of the page *as displayed* (after the page's /Rotate is applied), y pointing down:
the same space as a page rendered with :func:`render_page` at zoom 1, so a viewer maps a rectangle to
pixels by multiplying by the zoom it rendered with.

Every function raises :class:`fieldstudio.core.errors.MediaError` (``path``, plain-words ``reason``)
when the file cannot be used: missing, empty (0 bytes), not a PDF although named ``.pdf``, truncated or
damaged, password-protected, or (for text files) binary content. See pitfalls.md section 18 for the
PyMuPDF traps handled here (column order, ligatures, scanned pages).
"""

from __future__ import annotations

import contextlib
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from pathlib import Path

import numpy as np

from fieldstudio.core.errors import MediaError
from fieldstudio.core.text_encoding import guess_decode

if TYPE_CHECKING:
    import pymupdf

PDF_SUFFIXES = frozenset({".pdf"})
TEXT_SUFFIXES = frozenset({".txt", ".text"})

#: Largest rendered page, in pixels (width x height). 40 MP is 120 MB of RGB; beyond it the zoom is
#: lowered so the page fits, keeping its aspect ratio.
MAX_RENDER_PIXELS = 40_000_000

#: Text-extraction flags: PyMuPDF's defaults for text and search, minus ligature preservation, so that
#: U+FB01 "fi", U+FB04 "ffl" etc. come out as plain letters (pitfalls.md section 18).
def _mupdf():  # noqa: ANN202 - the pymupdf module
    # Imported on first use: PyMuPDF 2 loads its layout model at import (1-2 s), which the window's
    # start-up and every command that never opens a PDF should not pay.
    import pymupdf

    return pymupdf


def _text_flags() -> int:
    m = _mupdf()
    return m.TEXTFLAGS_BLOCKS & ~m.TEXT_PRESERVE_LIGATURES

#: A word hyphenated at a line end: lower-case letter, "-", line break, lower-case letter. Joined again
#: ("employ-" + "ees" -> "employees") as search_text (TEXT_DEHYPHENATE) and pdftotext do; PyMuPDF's
#: dehyphenate flag has no effect on "blocks" output. "Permit-" + "Required" is left alone.
_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-\n(?=[^\W\d_])")


def _join_hyphenated(text: str) -> str:
    return _LINE_END_HYPHEN.sub(lambda m: "" if text[m.end()].islower() else m.group(0), text)
def _search_flags() -> int:
    m = _mupdf()
    return m.TEXTFLAGS_SEARCH & ~m.TEXT_PRESERVE_LIGATURES

#: Latin ligature presentation forms U+FB00..U+FB06 and their letters (what NFKC gives for them).
_LIGATURES = str.maketrans({
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
    "\ufb05": "st", "\ufb06": "st",
})
#: The same table for other readers of document text (OCR'd words are searched as the text layer is).
LIGATURES = _LIGATURES

#: A PDF's "%PDF-" header must lie in its first 1024 bytes; "%%EOF" in (about) its last 1024.
_HEADER_WINDOW = 1024
_TRAILER_WINDOW = 1024


@dataclass
class PageText:
    """Text of one document page.

    page_number: 0-based index of the page.
    text: the page's text in reading order (columns left to right, top to bottom within a column),
        ligatures expanded to plain letters, words hyphenated at a line end joined again; blocks are
        separated by a blank line.
    needs_ocr: True when the page has no text layer but shows images (a scanned page).
    """

    page_number: int
    text: str
    needs_ocr: bool


@dataclass
class DocumentProbe:
    """What :func:`probe_document` found in a document.

    kind: ``"pdf"`` or ``"txt"``.
    page_count: number of pages (1 for a text file).
    pages: one :class:`PageText` per page, in page order.
    encoding: for a text file, the Python codec name that decodes it (``"utf_8"``, ``"utf_16"``,
        ``"cp1252"``, ``"cp932"``...); None for a PDF.
    """

    kind: str
    page_count: int
    pages: list[PageText] = field(default_factory=list)
    encoding: str | None = None


# --------------------------------------------------------------------------------------------- probe

def probe_document(path: Path) -> DocumentProbe:
    """Read a PDF or text document: page count, and each page's text in reading order.

    A PDF gives one :class:`PageText` per page; blocks are ordered by detected column (see
    :func:`_reading_order`), ligatures are dissolved, and a page with no text but with images is
    flagged ``needs_ocr``. A file is a PDF when its content starts with ``%PDF-``, whatever its name.
    A text file (``.txt``) gives a single page; its encoding is detected
    (UTF-8, UTF-16/32 with BOM, cp1252, Shift-JIS/cp932, ...) and line ends are normalised to ``\\n``.

    Raises:
        MediaError: the file is missing, empty, of an unsupported type, not a PDF although named
            ``.pdf``, truncated or damaged, password-protected, or a text file with binary content.
    """
    path = Path(path)
    kind = _document_kind(path)
    if kind == "txt":
        text, encoding = _read_text_file(path)
        return DocumentProbe(kind="txt", page_count=1,
                             pages=[PageText(page_number=0, text=text, needs_ocr=False)],
                             encoding=encoding)
    with _open_pdf(path) as doc:
        pages = []
        for page in doc:
            try:
                text = _page_text(page)
                needs_ocr = not text.strip() and bool(page.get_image_info())
            except Exception as exc:  # MuPDF raises plain RuntimeError/ValueError on broken content
                raise MediaError(path, f"is damaged: page {page.number + 1} cannot be read ({exc})") from exc
            pages.append(PageText(page_number=page.number, text=text, needs_ocr=needs_ocr))
        return DocumentProbe(kind="pdf", page_count=doc.page_count, pages=pages, encoding=None)


def _document_kind(path: Path) -> str:
    """``pdf`` when the content starts like a PDF (whatever the name), else by suffix."""
    try:
        with open(path, "rb") as fh:
            if fh.read(5) == b"%PDF-":
                return "pdf"
    except OSError:
        pass  # reported by the reader that follows
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES:
        return "pdf"
    if suffix in TEXT_SUFFIXES:
        return "txt"
    raise MediaError(path, f"is not a supported document type ({suffix or 'no extension'}; "
                           "expected .pdf or .txt)")


def _page_text(page: pymupdf.Page) -> str:
    """The page's text blocks joined in reading order, ligatures expanded."""
    blocks = [b for b in page.get_text("blocks", flags=_text_flags()) if b[6] == 0 and b[4].strip()]
    rot = page.rotation_matrix
    placed = [(_mupdf().Rect(b[:4]) * rot, _join_hyphenated(b[4].strip())) for b in blocks]
    ordered = _reading_order([(r.x0, r.y0, r.x1, r.y1) for r, _ in placed])
    return "\n\n".join(placed[i][1] for i in ordered).translate(_LIGATURES)


def _reading_order(rects: list[tuple[float, float, float, float]]) -> list[int]:
    """Indices of text blocks in reading order: columns left to right, each top to bottom.

    1. Columns are found by clustering the blocks' left edges (x0) (:func:`_columns`).
    2. A block that runs from one column across the start of a later column (a full-width heading,
       a footer, a caption under both columns) is a *spanning* block. Spanning blocks cut the page into
       horizontal bands; only columns of two or more blocks count here, so a lone page number does not
       turn ordinary lines into spanning blocks.
    3. Reading order: band 0 column by column, the first spanning block, band 1 column by column, ...
       A block belongs to the band of the spanning blocks that start above its top edge.

    Args:
        rects: (x0, y0, x1, y1) per block, in PDF points of the displayed page.
    Returns:
        A permutation of range(len(rects)).
    """
    starts = [min(rects[i][0] for i in column) for column in _columns(rects, range(len(rects)))
              if len(column) >= 2]
    tol = 2.0  # points
    spanning = sorted((i for i, (x0, _, x1, _) in enumerate(rects)
                       if any(x0 + tol < start < x1 - tol for start in starts)),
                      key=lambda i: (rects[i][1], rects[i][0]))
    bands: list[list[int]] = [[] for _ in range(len(spanning) + 1)]
    spanning_set = set(spanning)
    for i in range(len(rects)):
        if i not in spanning_set:
            bands[sum(rects[j][1] < rects[i][1] for j in spanning)].append(i)
    order: list[int] = []
    for k, band in enumerate(bands):
        for column in _columns(rects, band):
            order.extend(sorted(column, key=lambda i: (rects[i][1], rects[i][0])))
        if k < len(spanning):
            order.append(spanning[k])
    return order


def _columns(rects: list[tuple[float, float, float, float]], indices) -> list[list[int]]:
    """Cluster blocks into columns, left to right, by their left edges (x0).

    Blocks are taken in order of x0; a block starts a new column when its x0 lies at or right of the
    median right edge (x1) of the column being built, i.e. it begins where that column's text usually
    ends. Indented bullets, a centred title or a right-aligned page number therefore stay in the column
    they sit in, while a second column, whose text starts past the first column's lines, is its own.
    """
    columns: list[list[int]] = []
    for i in sorted(indices, key=lambda i: (rects[i][0], rects[i][1])):
        if columns and rects[i][0] < statistics.median(rects[j][2] for j in columns[-1]):
            columns[-1].append(i)
        else:
            columns.append([i])
    return columns


# ----------------------------------------------------------------------------------------- text files

def _read_text_file(path: Path) -> tuple[str, str]:
    """Decode a text file; returns (text with ``\\n`` line ends and no BOM, Python codec name)."""
    raw = _read_bytes(path)
    if raw.startswith(b"%PDF-"):
        raise MediaError(path, "is a PDF, not a text file (rename it to .pdf)")
    guessed = guess_decode(raw)
    if guessed is None:
        raise MediaError(path, "is not a text file: its content is binary")
    text, encoding = guessed
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        raise MediaError(path, "is not a text file: its content is binary")
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def _read_bytes(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MediaError(path, "does not exist") from None
    except IsADirectoryError:
        raise MediaError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise MediaError(path, f"cannot be read ({exc.strerror or exc})") from exc
    if not raw:
        raise MediaError(path, "is empty (0 bytes)")
    return raw


# ---------------------------------------------------------------------------------------------- PDFs

@contextlib.contextmanager
def _open_pdf(path: Path) -> Iterator[pymupdf.Document]:
    """Open a PDF after checking it is one, complete, and not password-protected; closes it after.

    Raises:
        MediaError: missing, empty, not a PDF, truncated or damaged, or password-protected.
    """
    path = Path(path)
    head, tail = _read_ends(path)
    if b"%PDF-" not in head:
        raise MediaError(path, "is not a PDF (it has no PDF header), although it is named like one")
    try:
        doc = _mupdf().open(str(path), filetype="pdf")
    except Exception as exc:  # pymupdf.FileDataError and friends
        raise MediaError(path, f"is damaged and cannot be opened as a PDF ({exc})") from exc
    try:
        if doc.needs_pass:
            raise MediaError(path, "is password-protected")
        truncated = b"%%EOF" not in tail
        if doc.is_repaired and (truncated or doc.page_count == 0):
            reason = ("is truncated (the end of the file is missing; was the copy or download cut short?)"
                      if truncated else "is damaged: no pages could be recovered")
            raise MediaError(path, reason)
        if doc.page_count == 0:
            raise MediaError(path, "is damaged: it has no pages")
        yield doc
    finally:
        doc.close()


def _read_ends(path: Path) -> tuple[bytes, bytes]:
    """First and last 1024 bytes of a file, without reading the rest (PDFs can be large)."""
    try:
        with path.open("rb") as f:
            head = f.read(_HEADER_WINDOW)
            size = f.seek(0, 2)
            f.seek(max(size - _TRAILER_WINDOW, 0))
            tail = f.read()
    except FileNotFoundError:
        raise MediaError(path, "does not exist") from None
    except IsADirectoryError:
        raise MediaError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise MediaError(path, f"cannot be read ({exc.strerror or exc})") from exc
    if not head:
        raise MediaError(path, "is empty (0 bytes)")
    return head, tail


def _load_page(doc: pymupdf.Document, path: Path, page_number: int) -> pymupdf.Page:
    if not 0 <= page_number < doc.page_count:
        raise MediaError(path, f"has no page {page_number} (pages are numbered 0 to {doc.page_count - 1})")
    try:
        return doc.load_page(page_number)
    except Exception as exc:
        raise MediaError(path, f"is damaged: page {page_number + 1} cannot be read ({exc})") from exc


def page_size_pt(path: Path, page_number: int) -> tuple[float, float]:
    """Size of a PDF page as displayed (its /Rotate applied), in PDF points (1/72 inch).

    Args:
        path: the PDF.
        page_number: 0-based page index.
    Returns:
        (width, height) in points; :func:`render_page` at zoom z gives about (width*z, height*z) pixels.
    Raises:
        MediaError: the PDF cannot be opened (see :func:`probe_document`) or has no such page.
    """
    path = Path(path)
    with _open_pdf(path) as doc:
        rect = _load_page(doc, path, page_number).rect
        return (float(rect.width), float(rect.height))


def render_page(path: Path, page_number: int, zoom: float = 1.0) -> np.ndarray:
    """Render one PDF page to an RGB image.

    Args:
        path: the PDF.
        page_number: 0-based page index.
        zoom: pixels per PDF point (1.0 = 72 dpi, 2.0 = 144 dpi); must be > 0.
    Returns:
        uint8 array of shape (H, W, 3), RGB, with W x H about page_size_pt x zoom (MuPDF rounds the page
        rectangle outward to whole pixels). If that would exceed MAX_RENDER_PIXELS pixels, the zoom is
        lowered so the image fits the cap, keeping the aspect ratio; the caller can read the zoom used
        as W / page width.
    Raises:
        ValueError: zoom is not a positive finite number.
        MediaError: the PDF cannot be opened (see :func:`probe_document`), has no such page, or the
            page cannot be drawn.
    """
    if not (np.isfinite(zoom) and zoom > 0):
        raise ValueError(f"zoom must be a positive number, got {zoom!r}")
    path = Path(path)
    with _open_pdf(path) as doc:
        page = _load_page(doc, path, page_number)
        width_pt, height_pt = page.rect.width, page.rect.height
        # +1 per side: MuPDF rounds the transformed rectangle outward.
        if (width_pt * zoom + 1) * (height_pt * zoom + 1) > MAX_RENDER_PIXELS:
            zoom = min(zoom, (MAX_RENDER_PIXELS / max(width_pt * height_pt, 1e-9)) ** 0.5)
            while (width_pt * zoom + 1) * (height_pt * zoom + 1) > MAX_RENDER_PIXELS and zoom > 1e-6:
                zoom *= 0.99
        try:
            m = _mupdf()
            pix = page.get_pixmap(matrix=m.Matrix(zoom, zoom), colorspace=m.csRGB, alpha=False)
        except Exception as exc:
            raise MediaError(path, f"page {page_number + 1} cannot be drawn ({exc})") from exc
        image = np.frombuffer(pix.samples, dtype=np.uint8)
        # pix.stride may exceed width*n in principle; slice each row to width*3.
        image = image.reshape(pix.height, pix.stride)[:, : pix.width * 3].reshape(pix.height, pix.width, 3)
        return image.copy()


def search_text(path: Path, query: str) -> list[tuple[int, list[tuple[float, float, float, float]]]]:
    """Find a phrase in a PDF, ignoring case and ligatures.

    "scientific" is found where the PDF typesets it with the U+FB01 fi ligature, and a query typed with
    ligature characters matches plain letters too. A phrase may run across a line break.

    Args:
        path: the PDF.
        query: the text to find; surrounding whitespace is ignored; an empty query finds nothing.
    Returns:
        For each page with at least one hit, in page order: (0-based page number, hit rectangles), each
        rectangle (x0, y0, x1, y1) in PDF points of the displayed page (top-left origin, y down), i.e.
        pixels of render_page(..., zoom=1). A phrase across lines gives one rectangle per line part.
    Raises:
        MediaError: the PDF cannot be opened (see :func:`probe_document`) or a page cannot be read.
    """
    path = Path(path)
    needle = " ".join(query.translate(_LIGATURES).split())
    if not needle:
        return []
    hits: list[tuple[int, list[tuple[float, float, float, float]]]] = []
    with _open_pdf(path) as doc:
        for page in doc:
            try:
                found = page.search_for(needle, flags=_search_flags())
            except Exception as exc:
                raise MediaError(path, f"is damaged: page {page.number + 1} cannot be read ({exc})") from exc
            if found:
                rot = page.rotation_matrix
                rects = []
                for rect in found:
                    r = rect * rot  # unrotated page space -> displayed page space
                    rects.append((float(r.x0), float(r.y0), float(r.x1), float(r.y1)))
                hits.append((page.number, rects))
    return hits
