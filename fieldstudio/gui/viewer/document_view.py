"""Safety manuals next to the footage: PDF pages (PyMuPDF) with page navigation, zoom and text search;
text files as text. Every hit on the page shown is highlighted; the current one (Enter: the next) is
drawn stronger and scrolled into view. Scanned pages are searched in the words OCR read on them
(``media.document_ocr``), given to ``open`` or ``set_ocr_words``; the page line says when a page's text is OCR's.

A PDF page is rendered at ``RENDER_ZOOM`` pixels per PDF point, so search hits (PDF points) are drawn at
``RENDER_ZOOM`` times their coordinates in the canvas.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSpinBox,
                               QStackedWidget, QVBoxLayout, QWidget)

from fieldstudio.core.errors import MediaError
from fieldstudio.gui.imaging import qimage_from_rgb
from fieldstudio.gui.viewer.canvas import Canvas

RENDER_ZOOM = 2.0  # 144 dpi: sharp at 100 % on a high-DPI screen


class DocumentView(QWidget):
    """A PDF or text document. Signals ``page_shown(page, page_count)`` (0-based) and ``notice(str)``."""

    page_shown = Signal(int, int)
    notice = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.path: Path | None = None
        self.kind = ""
        self.page = 0
        self.page_count = 0
        self.hits: list[tuple[int, QRectF]] = []
        self.hit_index = -1
        self._query = ""
        self.ocr_words: dict = {}  # page -> media.document_ocr.StoredWord list of the pages OCR read

        self.canvas = Canvas()
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.canvas)
        self.stack.addWidget(self.text)

        self.prev_btn = QPushButton("◀")
        self.prev_btn.setToolTip("Previous page (Page Up)")
        self.next_btn = QPushButton("▶")
        self.next_btn.setToolTip("Next page (Page Down)")
        self.page_box = QSpinBox()
        self.page_box.setMinimum(1)
        self.page_box.setToolTip("Page number")
        self.page_label = QLabel("/ 0")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find in document (Enter: next hit)")
        self.search.setClearButtonEnabled(True)
        self.hit_label = QLabel("")
        bar = QHBoxLayout()
        for w in (self.prev_btn, self.page_box, self.page_label, self.next_btn):
            bar.addWidget(w)
        bar.addSpacing(16)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.hit_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)

        self.prev_btn.clicked.connect(lambda: self.show_page(self.page - 1))
        self.next_btn.clicked.connect(lambda: self.show_page(self.page + 1))
        self.page_box.valueChanged.connect(lambda v: self.show_page(v - 1))
        self.search.returnPressed.connect(self.find_next)
        QShortcut(QKeySequence(QKeySequence.StandardKey.MoveToPreviousPage), self, lambda: self.show_page(self.page - 1))
        QShortcut(QKeySequence(QKeySequence.StandardKey.MoveToNextPage), self, lambda: self.show_page(self.page + 1))

    def open(self, path: Path, page_count: int | None = None, ocr_words: dict | None = None) -> None:
        """Show the document at ``path`` from its first page; ``ocr_words``: the words OCR read on its scanned
        pages (``document_ocr.page_words``), searched with its text layer. Raises MediaError when it cannot be read."""
        from fieldstudio.media import documents

        self.path = Path(path)
        self.ocr_words = dict(ocr_words or {})
        self.hits, self.hit_index, self._query = [], -1, ""
        self.hit_label.clear()
        self.search.clear()
        if self.path.suffix.lower() == ".txt":
            probe = documents.probe_document(self.path)
            self.kind, self.page_count = "txt", 1
            self.text.setPlainText(probe.pages[0].text)
            self.stack.setCurrentWidget(self.text)
            self._set_page_controls(False)
            self.page_shown.emit(0, 1)
            return
        self.kind = "pdf"
        self.page_count = page_count or documents.probe_document(self.path).page_count
        self.stack.setCurrentWidget(self.canvas)
        self._set_page_controls(True)
        self.page = -1
        self.show_page(0)

    def set_ocr_words(self, ocr_words: dict) -> None:
        """OCR has read more pages (in the background): search them too, and search again if a query is shown."""
        self.ocr_words = dict(ocr_words)
        self.page_shown.emit(self.page, self.page_count)
        if self._query:
            self.find(self._query)

    def page_note(self, page: int) -> str:
        """What the page line says of a page's text: "text read by OCR" for a scanned page OCR read, else ""."""
        return "text read by OCR" if page in self.ocr_words else ""

    def _set_page_controls(self, enabled: bool) -> None:
        for w in (self.prev_btn, self.next_btn, self.page_box):
            w.setEnabled(enabled)
        self.page_box.blockSignals(True)
        self.page_box.setMaximum(max(1, self.page_count))
        self.page_box.blockSignals(False)
        self.page_label.setText(f"/ {self.page_count}")

    def show_page(self, page: int) -> None:
        """Render page ``page`` (0-based, clamped) with the search hits that fall on it."""
        from fieldstudio.media import documents

        if self.kind != "pdf" or self.path is None:
            return
        page = min(max(page, 0), self.page_count - 1)
        if page == self.page:
            return
        try:
            rgb = documents.render_page(self.path, page, RENDER_ZOOM)
        except MediaError as exc:
            self.notice.emit(str(exc))
            return
        self.page = page
        self.canvas.set_image(qimage_from_rgb(rgb), keep_view=True)
        self._highlight(page)
        self.page_box.blockSignals(True)
        self.page_box.setValue(page + 1)
        self.page_box.blockSignals(False)
        self.page_shown.emit(page, self.page_count)

    def _highlight(self, page: int) -> None:
        """The hits on ``page``, the current one (``hit_index``) stronger."""
        on_page = [(k, r) for k, (p, r) in enumerate(self.hits) if p == page]
        current = next((i for i, (k, _r) in enumerate(on_page) if k == self.hit_index), None)
        self.canvas.set_highlights([r for _k, r in on_page], current=current)

    def current_hit(self) -> tuple[int, QRectF] | None:
        """(page, rectangle in page pixels) of the current hit, or None."""
        return self.hits[self.hit_index] if 0 <= self.hit_index < len(self.hits) else None

    def find(self, query: str) -> int:
        """Search the document for ``query``; highlight every hit and go to the first. Returns the hit count."""
        from fieldstudio.media import documents

        self.search.setText(query)
        self._query = query
        self.hits, self.hit_index = [], -1
        if self.kind == "txt":
            found = self.text.find(query)
            self.hit_label.setText("found" if found else "no hits")
            return int(found)
        if self.path is None:
            return 0
        from fieldstudio.media.document_ocr import search_words

        try:
            pages = documents.search_text(self.path, query)
        except MediaError as exc:
            self.notice.emit(str(exc))
            return 0
        pages = sorted(pages + search_words(self.ocr_words, query), key=lambda hit: hit[0])
        z = RENDER_ZOOM
        self.hits = [(p, QRectF(x0 * z, y0 * z, (x1 - x0) * z, (y1 - y0) * z)) for p, rects in pages
                     for (x0, y0, x1, y1) in rects]
        if not self.hits:
            self.hit_label.setText("no hits")
            self.canvas.clear_highlights()
            return 0
        self.find_next()
        return len(self.hits)

    def find_next(self) -> None:
        """Go to the next hit (searching first when the query changed)."""
        if self.search.text() != self._query:
            self.find(self.search.text())
            return
        if not self.hits:
            return
        self.hit_index = (self.hit_index + 1) % len(self.hits)
        page, rect = self.hits[self.hit_index]
        if page != self.page:
            self.show_page(page)
        else:
            self._highlight(page)
        self.canvas.center_on(rect)
        self.hit_label.setText(f"{self.hit_index + 1} of {len(self.hits)} (page {page + 1})")
