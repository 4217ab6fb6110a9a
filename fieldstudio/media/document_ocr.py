"""OCR of the document pages that need it (scanned pages, no text layer), their words stored and searched.

Qt-free. A page flagged ``needs_ocr`` on import (``media.documents``) is rendered at ``OCR_DPI`` and read by
``media.ocr``; its text goes into ``DocumentPage.text`` (so the agent's document reading and the benchmark
strategies get it like a text layer's), ``DocumentPage.ocr_engine`` names what read it, and each word is an
``OcrWord`` row with its box in PDF points of the displayed page, the space of ``documents.search_text``'s
hits. Pages are read one at a time, each in its own short write, so an import of a long scanned manual can be
interrupted and continued (``pages_to_read`` names what is left).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import delete, insert, select, update

from fieldstudio.core.errors import MediaError
from fieldstudio.media import documents, ocr
from fieldstudio.media.library import require_file
from fieldstudio.store.models import DocumentPage, Media, OcrWord
from fieldstudio.store.project import Project

#: Rendering resolution for OCR, dots per inch: PP-OCR reads 10-point body text reliably from 150 dpi.
OCR_DPI = 150.0


@dataclass(frozen=True)
class PageToRead:
    """A page waiting for OCR: its media id, file name and 0-based page number."""

    media_id: str
    file_name: str
    page_number: int


@dataclass
class PageRead:
    """What reading one page gave: the page, its word count, or ``error`` (a plain-words reason)."""

    page: PageToRead
    words: int = 0
    error: str | None = None


@dataclass
class OcrReport:
    """What ``read_pages`` did: the pages read, those that failed with why, and whether it was cancelled."""

    read: list[PageRead] = field(default_factory=list)
    failed: list[PageRead] = field(default_factory=list)
    cancelled: bool = False


def pages_to_read(project: Project, media_ids: Sequence[str] | None = None) -> list[PageToRead]:
    """The pages flagged ``needs_ocr`` that OCR has not read yet, in media name and page order.

    ``media_ids`` limits them to those documents (None: every document of the project).
    """
    q = (select(DocumentPage.media_id, Media.file_name, DocumentPage.page_number)
         .join(Media, Media.id == DocumentPage.media_id)
         .where(DocumentPage.needs_ocr.is_(True), DocumentPage.ocr_engine.is_(None))
         .order_by(Media.file_name, DocumentPage.media_id, DocumentPage.page_number))
    if media_ids is not None:
        q = q.where(DocumentPage.media_id.in_(list(media_ids)))
    with project.read() as s:
        return [PageToRead(*row) for row in s.execute(q)]


def read_page(project: Project, page: PageToRead) -> PageRead:
    """OCR one page and store its text and words (replacing any earlier reading of it).

    Returns the PageRead with its word count, or with ``error`` when the file is missing or the page cannot
    be rendered (MediaError's reason); the page then stays waiting. Raises OcrUnavailable when the models
    cannot be loaded (no page can be read then), ProjectReadOnly when the project cannot be written.
    """
    with project.read() as s:
        media = s.get(Media, page.media_id)
    try:
        path = require_file(project, media)
        size = documents.page_size_pt(path, page.page_number)
        rgb = documents.render_page(path, page.page_number, zoom=OCR_DPI / 72.0)
    except MediaError as exc:
        return PageRead(page, error=exc.reason)
    scale = size[0] / rgb.shape[1]  # points per pixel (render_page may lower the zoom of a huge page)
    lines = ocr.read_text(rgb, page=True)
    words = [w for line in lines for w in line.words]
    engine = ocr.engine_version()
    with project.write() as s:
        s.execute(delete(OcrWord).where(OcrWord.media_id == page.media_id,
                                        OcrWord.page_number == page.page_number))
        if words:
            s.execute(insert(OcrWord), [
                {"media_id": page.media_id, "page_number": page.page_number, "position": k, "text": w.text,
                 "score": round(w.score, 4), "x0": round(w.box[0] * scale, 2), "y0": round(w.box[1] * scale, 2),
                 "x1": round(w.box[2] * scale, 2), "y1": round(w.box[3] * scale, 2)}
                for k, w in enumerate(words)])
        s.execute(update(DocumentPage)
                  .where(DocumentPage.media_id == page.media_id, DocumentPage.page_number == page.page_number)
                  .values(text=ocr.text_of(lines), ocr_engine=engine))
    return PageRead(page, words=len(words))


def read_pages(project: Project, media_ids: Sequence[str] | None = None, *,
               progress: Callable[[int, int], None] = lambda done, total: None,
               cancelled: Callable[[], bool] = lambda: False) -> OcrReport:
    """OCR every page ``pages_to_read(project, media_ids)`` names, one page per step of ``progress``.

    Returns an OcrReport; a page that cannot be rendered is in ``failed`` with the reason and the others go on.
    Raises OcrUnavailable (before any page is stored) when the models cannot be loaded, ProjectReadOnly.
    """
    todo = pages_to_read(project, media_ids)
    report = OcrReport()
    progress(0, len(todo))
    for k, page in enumerate(todo):
        if cancelled():
            report.cancelled = True
            break
        done = read_page(project, page)
        (report.failed if done.error else report.read).append(done)
        progress(k + 1, len(todo))
    return report


def read_next_page(project: Project, skip: set[tuple[str, int]] = frozenset(), *,
                   started: Callable[[PageToRead, int], None] = lambda page, left: None) -> PageRead | None:
    """OCR the first page ``pages_to_read`` names that is not in ``skip`` ((media id, page number) pairs: those that
    failed before), after ``started(page, pages left including it)``; None when no page is left.

    The window's background work calls it one page at a time. Raises OcrUnavailable, ProjectReadOnly.
    """
    todo = [t for t in pages_to_read(project) if (t.media_id, t.page_number) not in skip]
    if not todo:
        return None
    started(todo[0], len(todo))
    return read_page(project, todo[0])


@dataclass(frozen=True)
class StoredWord:
    """A word OCR read, as stored: text, confidence, box (x0, y0, x1, y1) in PDF points of the displayed page."""

    text: str
    score: float
    box: tuple[float, float, float, float]


def page_words(project: Project, media_id: str) -> dict[int, list[StoredWord]]:
    """The OCR'd words of a document, per 0-based page number, in reading order ({} when none was read)."""
    with project.read() as s:
        rows = s.execute(select(OcrWord.page_number, OcrWord.text, OcrWord.score, OcrWord.x0, OcrWord.y0,
                                OcrWord.x1, OcrWord.y1).where(OcrWord.media_id == media_id)
                         .order_by(OcrWord.page_number, OcrWord.position)).all()
    out: dict[int, list[StoredWord]] = {}
    for page, text, score, x0, y0, x1, y1 in rows:
        out.setdefault(page, []).append(StoredWord(text, score, (x0, y0, x1, y1)))
    return out


def ocr_pages_of(project: Project, media_id: str) -> tuple[list[int], str | None]:
    """(0-based page numbers whose text OCR read, the engine that read them) of one document."""
    with project.read() as s:
        rows = s.execute(select(DocumentPage.page_number, DocumentPage.ocr_engine)
                         .where(DocumentPage.media_id == media_id, DocumentPage.ocr_engine.is_not(None))
                         .order_by(DocumentPage.page_number)).all()
    return [p for p, _ in rows], (rows[0][1] if rows else None)


def _fold(text: str) -> str:
    return text.translate(documents.LIGATURES).casefold()


def search_words(words: dict[int, list[StoredWord]], query: str
                 ) -> list[tuple[int, list[tuple[float, float, float, float]]]]:
    """Find a phrase among OCR'd words, ignoring case and ligatures, as ``documents.search_text`` does.

    The phrase's first word may end a stored word and its last may begin one ("tagout" finds "Lockout/Tagout"'s
    word only if it is inside it: any word containing the query's single word matches); the words between must
    be equal. A phrase may run across lines.
    Returns, for each page with a hit, in page order: (page number, hit rectangles in PDF points): one rectangle
    per line part of each hit, as ``documents.search_text`` gives.
    """
    needle = _fold(query).split()
    if not needle:
        return []
    hits = []
    for page in sorted(words):
        folded = [_fold(w.text) for w in words[page]]
        rects: list[tuple[float, float, float, float]] = []
        n = len(needle)
        for start in range(len(folded) - n + 1):
            window = folded[start:start + n]
            if n == 1:
                ok = needle[0] in window[0]
            else:
                ok = (window[0].endswith(needle[0]) and window[-1].startswith(needle[-1])
                      and window[1:-1] == needle[1:-1])
            if ok:
                rects.extend(_line_parts([w.box for w in words[page][start:start + n]]))
        if rects:
            hits.append((page, rects))
    return hits


def _line_parts(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """The words' boxes joined into one rectangle per line: a word starts a new line when it does not overlap the
    previous one vertically or lies left of it."""
    parts: list[list[float]] = []
    for x0, y0, x1, y1 in boxes:
        last = parts[-1] if parts else None
        if last is not None and x0 >= last[0] and min(y1, last[3]) > max(y0, last[1]):
            last[:] = [last[0], min(last[1], y0), max(last[2], x1), max(last[3], y1)]
        else:
            parts.append([x0, y0, x1, y1])
    return [tuple(p) for p in parts]
