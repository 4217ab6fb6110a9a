"""The media library panel: thumbnails with badges, filtered by kind and searched by name.

Rows are read with plain sqlite3 queries, the first screenful before the window's first paint and the rest in the
next turn of the event loop (every row of 5,000 media takes 10-15 ms, a tenth of a cold start); thumbnails are decoded only for rows that are drawn, a few at a time
between paints (a grey tile until then), so a project of thousands of media opens and scrolls without the GUI
thread stalling on a screenful of thumbnails.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QAbstractListModel, QModelIndex, QSize, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QListView, QVBoxLayout, QWidget

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.first_paint import after_first_paint
from fieldstudio.store.library_rows import MediaRow, media_rows, resolve_media_path, thumbnail_jpeg, thumbnail_jpegs
from fieldstudio.store.location import is_database_url

log = logging.getLogger(__name__)

ICON = QSize(96, 72)
KINDS = (("All media", None), ("Videos", "video"), ("Photos", "image"), ("Documents", "document"))
MEDIA_ID_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
DECODE_BUDGET_S = 0.02  # thumbnails decoded per turn of the event loop, at most about this long
DECODE_BATCH = 24  # thumbnails read in one query (about a screenful of rows)
MIN_NAME_CHARS = 18  # a name beside its thumbnail keeps about this many characters at the narrowest
FIRST_ROWS = 100  # listed before the first paint: more than a screenful of 72 px thumbnails


class MediaListModel(QAbstractListModel):
    """The media of the project file ``path`` as a list model; icons are decoded lazily and cached (LRU, 512).

    A row's first request for its icon gets a grey tile; its thumbnail is decoded in a later turn of the event
    loop (:data:`DECODE_BUDGET_S` of them per turn) and announced with ``dataChanged``.

    Rows come from plain sqlite3 reads (:mod:`fieldstudio.store.library_rows`), so the model can be shown
    before the project is fully open. A new model lists the first :data:`FIRST_ROWS` at once and the others in
    the turn of the event loop after its window's first paint (the next turn without a window shown; ``list_all``),
    then emits ``all_listed``.
    """

    all_listed = Signal()

    def __init__(self, path: Path, parent=None, *, rows: list[MediaRow] | None = None):  # noqa: ANN001 - QObject
        super().__init__(parent)
        shared = is_database_url(path)
        self.path = path if shared else Path(path)
        self._folder = Path.home() if shared else self.path.parent  # as Project.folder
        self.rows: list[MediaRow] = []
        self._icons: OrderedDict[str, QIcon] = OrderedDict()
        self._missing: dict[str, bool] = {}
        self._wanted: OrderedDict[str, int] = OrderedDict()  # media id -> row, icons asked for, not yet decoded
        self._pending = QIcon(self._tile())
        self._decoder = QTimer(self)
        self._decoder.setSingleShot(True)
        self._decoder.setInterval(0)
        self._decoder.timeout.connect(self._decode_wanted)
        # the first screenful now and the rest in the next turn: the rows read already (``rows``, on the worker that
        # opened the project: 5,000 rows took 100-400 ms on two loaded cores), else read here. Either way listing
        # them is a turn of its own (the filter sees each row: 30-60 ms for 5,000 on two loaded cores)
        self._read = rows
        self.rows = rows[:FIRST_ROWS] if rows is not None else media_rows(self.path, first=FIRST_ROWS)
        self._rest_pending = len(rows) > FIRST_ROWS if rows is not None else len(self.rows) == FIRST_ROWS
        # after the window's first paint, where the model is shown in one (gui/first_paint.py)
        after_first_paint(self, self.list_all if self._rest_pending else self.all_listed.emit)

    def reload(self) -> None:
        """Read every row again (after an import, new thumbnails); icons are decoded again as they are drawn."""
        self.beginResetModel()
        self._rest_pending = False
        self._read = None
        self.rows = media_rows(self.path)
        self._wanted.clear()
        self._icons.clear()
        self._missing.clear()
        self.endResetModel()

    def thumbnails_changed(self, media_ids: Iterable[str]) -> None:
        """The thumbnails of ``media_ids`` were made: their rows only are told (one ``dataChanged`` of the
        decoration over the rows they span), and each icon is decoded again when it is drawn.

        Not a ``reload``: the indexer makes the thumbnails of 5,000 media at a project's first open, and a reset
        re-read and re-filtered every row on the GUI thread (263-471 ms stalls at load 13, open8's figures).
        """
        ids = set(media_ids)
        for media_id in ids:
            self._icons.pop(media_id, None)
        rows = [r for r, row in enumerate(self.rows) if row.id in ids]
        if rows:
            self.dataChanged.emit(self.index(rows[0]), self.index(rows[-1]), [Qt.ItemDataRole.DecorationRole])

    def list_all(self) -> None:
        """List every row now if only the first ones are (anything that needs every row calls this first).

        The rows already listed stay (the others are inserted after them) when the full list begins with them;
        otherwise (names ordered differently beyond ASCII) the model is reset to the full list.
        """
        if not self._rest_pending:
            return
        self._rest_pending = False
        rows = self._read if self._read is not None else media_rows(self.path)
        self._read = None
        shown = len(self.rows)
        if [r.id for r in rows[:shown]] == [r.id for r in self.rows]:
            if len(rows) > shown:
                self.beginInsertRows(QModelIndex(), shown, len(rows) - 1)
                self.rows = rows
                self.endInsertRows()
        else:
            self.beginResetModel()
            self.rows = rows
            self._wanted.clear()
            self.endResetModel()
        self.all_listed.emit()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: ANN001, N802, B008 - Qt override
        return 0 if parent.isValid() else len(self.rows)

    def missing(self, row: MediaRow) -> bool:
        if row.id not in self._missing:
            try:
                self._missing[row.id] = not resolve_media_path(self._folder, row.path, row.media_root).is_file()
            except FieldstudioError:  # its media root is not mapped on this machine
                self._missing[row.id] = True
        return self._missing[row.id]

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: ANN201 - Qt
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            badges = row.badges(self.missing(row))
            return row.file_name + ("\n" + " · ".join(badges) if badges else "")
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icon_or_pending(row, index.row())
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row)
        if role == Qt.ItemDataRole.ForegroundRole and (row.status != "ok" or row.error or self.missing(row)):
            return QColor("#d93025")
        if role == MEDIA_ID_ROLE:
            return row.id
        if role == KIND_ROLE:
            return row.kind
        return None

    def _tooltip(self, row: MediaRow) -> str:
        lines = [row.path]
        if row.width:
            lines.append(f"{row.width} × {row.height} px")
        if row.duration_s:
            lines.append(f"{row.duration_s:.3f} s")
        if row.page_count:
            lines.append(f"{row.page_count} pages")
        if row.ocr_pages:
            n, pages = len(row.ocr_pages), ", ".join(map(str, row.ocr_pages))
            which = f"page {pages} needs" if n == 1 else f"pages {pages} need"
            lines.append(f"{n} of {row.page_count} pages scanned (no text layer): {which} OCR; "
                         "models get no text from them")
        if row.status != "ok":
            lines.append(f"unreadable: {row.error}")
        elif row.error:
            lines.append(f"damaged: {row.error}")
        if self.missing(row):
            lines.append("the file is missing: File ▸ Relink media… finds it again")
        return "\n".join(lines)

    def _icon_or_pending(self, row: MediaRow, r: int) -> QIcon:
        icon = self._icons.get(row.id)
        if icon is not None:
            self._icons.move_to_end(row.id)
            return icon
        self._wanted[row.id] = r
        self._decoder.start()
        return self._pending

    def _decode_wanted(self) -> None:
        start = time.perf_counter()
        while self._wanted and time.perf_counter() - start < DECODE_BUDGET_S:
            batch = []
            while self._wanted and len(batch) < DECODE_BATCH:
                media_id, r = self._wanted.popitem(last=False)
                if r < len(self.rows) and self.rows[r].id == media_id and media_id not in self._icons:
                    batch.append(r)
            try:  # one read for the batch (see library_rows.thumbnail_jpegs)
                jpegs = thumbnail_jpegs(self.path, [self.rows[r].id for r in batch])
            except FieldstudioError as exc:  # a damaged page: each is read alone, its placeholder logged by _icon
                log.debug("%s: thumbnails read one by one (%s)", self.path, exc)
                jpegs = None
            for r in batch:
                self._icon(self.rows[r], jpegs)
                self.dataChanged.emit(self.index(r), self.index(r), [Qt.ItemDataRole.DecorationRole])
        if self._wanted:
            self._decoder.start()

    @staticmethod
    def _tile() -> QPixmap:
        pix = QPixmap(ICON)
        pix.fill(QColor("#3c4043"))
        return pix

    def _icon(self, row: MediaRow, jpegs: dict[str, bytes] | None = None) -> QIcon:
        """``row``'s icon, cached; ``jpegs``: the thumbnails read already (``thumbnail_jpegs``), None: read it."""
        try:
            jpeg = thumbnail_jpeg(self.path, row.id) if jpegs is None else jpegs.get(row.id)
        except FieldstudioError as exc:  # a damaged page: the placeholder, not an error on every paint
            log.warning("%s: no thumbnail for %s (%s)", self.path.name, row.file_name, exc)
            jpeg = None
        image = QImage.fromData(jpeg) if jpeg else QImage()
        pix = self._tile()
        p = QPainter(pix)
        if not image.isNull():
            scaled = image.scaled(ICON, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
            p.drawImage((ICON.width() - scaled.width()) // 2, (ICON.height() - scaled.height()) // 2, scaled)
        else:
            p.setPen(QColor("#e8eaed"))
            p.drawText(pix.rect(), Qt.AlignmentFlag.AlignCenter, {"video": "VIDEO", "image": "PHOTO"}.get(row.kind, "DOC"))
        p.end()
        icon = QIcon(pix)
        self._icons[row.id] = icon
        while len(self._icons) > 512:
            self._icons.popitem(last=False)
        return icon


class MediaFilter(QSortFilterProxyModel):
    """Keeps rows of one kind (or all) whose name contains the search text (case-insensitive)."""

    def __init__(self, parent=None):  # noqa: ANN001 - QObject
        super().__init__(parent)
        self.kind: str | None = None
        self.text = ""

    def set_filter(self, kind: str | None, text: str) -> None:
        self.beginFilterChange()
        self.kind, self.text = kind, text.casefold().strip()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, parent: QModelIndex) -> bool:  # noqa: N802 - Qt override
        if not self.kind and not self.text:  # every row: no lookup (Qt asks this of each of 5,000 rows per listing)
            return True
        row = self.sourceModel().rows[source_row]
        if self.kind and row.kind != self.kind:
            return False
        return not self.text or self.text in row.file_name.casefold()


class LibraryPanel(QWidget):
    """Thumbnails of the media of the project file ``path``. ``media_activated(media_id)`` when the user chooses
    one (the window asks the state to show it); ``show_media`` follows the media shown.

    Raises ProjectError when the file cannot be read.
    """

    media_activated = Signal(str)

    def __init__(self, path: Path, parent: QWidget | None = None, *, rows: list[MediaRow] | None = None):
        super().__init__(parent)
        self.path = path if is_database_url(path) else Path(path)
        self.model = MediaListModel(self.path, self, rows=rows)
        self.proxy = MediaFilter(self)
        self.proxy.setSourceModel(self.model)
        self.kind = QComboBox()
        for text, kind in KINDS:
            self.kind.addItem(text, kind)
        self.kind.setToolTip("Show only one kind of media")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search by name")
        self.search.setClearButtonEnabled(True)
        self.list = QListView()
        self.list.setModel(self.proxy)
        self.list.setIconSize(ICON)
        self.list.setUniformItemSizes(True)
        self.list.setSpacing(2)
        self.list.setWordWrap(True)
        self.list.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        top = QHBoxLayout()
        top.addWidget(self.kind)
        top.addWidget(self.search, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)
        # after the first paint: measuring it makes QStyle's Python type, 16 enums built in ~8 ms, before a window
        # a user sees (benchmarks/bench_viewer.py); the dock's default 300 px is wider anyway
        after_first_paint(self, self._set_narrowest_width)
        self._following = False  # selecting the media the viewer shows: not a choice to report
        self.kind.currentIndexChanged.connect(self._refilter)
        self.search.textChanged.connect(self._refilter)
        self.list.selectionModel().currentChanged.connect(self._current_changed)
        self.list.activated.connect(self._current_changed)

    def _set_narrowest_width(self) -> None:
        self.setMinimumWidth(self.narrowest_width())

    def narrowest_width(self) -> int:
        """The panel's minimum width in pixels: a thumbnail and about :data:`MIN_NAME_CHARS` characters of
        its name beside it (the name's start and extension, elided in the middle), with the list's frame,
        item margins and vertical scroll bar.

        Without it the dock could shrink to its combo box and search field, which leaves the text beside a
        96 px thumbnail a few pixels: every name drawn as "…".
        """
        from PySide6.QtWidgets import QStyle  # here, not at import: see __init__

        style = self.list.style()
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self.list) + 1
        text = self.list.fontMetrics().averageCharWidth() * MIN_NAME_CHARS
        # the item's margins: around the icon and on both sides of the text (QCommonStyle's item layout)
        item = ICON.width() + 6 * margin + 2 * self.list.spacing()
        chrome = (2 * self.list.frameWidth() + style.pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self.list)
                  + sum(self.layout().getContentsMargins()[0::2]))
        return item + text + chrome

    def _refilter(self) -> None:
        self.proxy.set_filter(self.kind.currentData(), self.search.text())

    def _current_changed(self, index: QModelIndex, *_: object) -> None:
        if index.isValid() and not self._following:
            self.media_activated.emit(index.data(MEDIA_ID_ROLE))

    def reload(self) -> None:
        self.model.reload()

    def thumbnails_changed(self, media_ids: Iterable[str]) -> None:
        """New thumbnails of ``media_ids`` (the indexer's): their rows are drawn again."""
        self.model.thumbnails_changed(media_ids)

    def visible_ids(self) -> list[str]:
        """Media ids shown after filtering, top to bottom."""
        self.model.list_all()
        return [self.proxy.index(r, 0).data(MEDIA_ID_ROLE) for r in range(self.proxy.rowCount())]

    def show_media(self, media_id: str) -> None:
        """Select the row of ``media_id``, the media the viewer shows, without choosing it again (no
        ``media_activated``); a filter that hides it is cleared."""
        self._following = True
        try:
            self.select(media_id)
        finally:
            self._following = False

    def select(self, media_id: str) -> bool:
        """Select ``media_id`` in the list (clearing the filter if it hides it); False when unknown."""
        self.model.list_all()
        for attempt in range(2):
            for r in range(self.proxy.rowCount()):
                idx = self.proxy.index(r, 0)
                if idx.data(MEDIA_ID_ROLE) == media_id:
                    self.list.setCurrentIndex(idx)
                    return True
            if attempt == 0:
                self.kind.setCurrentIndex(0)
                self.search.clear()
        return False
