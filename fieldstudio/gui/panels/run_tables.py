"""Table models for the Run panel and the model profiles dialog: rows of dataclasses shown by column functions.

A row list can hold thousands of answers; only the drawn cells are formatted (model/view).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from fieldstudio.core.costs import amount_text
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.views import AnswerRow

ROW_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class Column:
    """One column: its header, the text of a row's cell, an optional tooltip, right-aligned or not."""

    header: str
    text: Callable[[Any], str]
    tooltip: Callable[[Any], str] | None = None
    numeric: bool = False


class RowsModel(QAbstractTableModel):
    """A read-only table of `rows` (any objects) with the given columns. ``ROW_ROLE`` returns the row object."""

    def __init__(self, columns: Sequence[Column], parent=None):  # noqa: ANN001 - QObject
        super().__init__(parent)
        self.columns = list(columns)
        self.rows: list[Any] = []
        self.colour: Callable[[Any], str | None] = lambda row: None

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def update_rows(self, rows: Sequence[Any], key: Callable[[Any], Any]) -> None:
        """Replace the rows; when the same rows (by `key`) are shown in the same order, only repaint them, so
        the selection and scroll position stay (a live refresh while a run writes)."""
        rows = list(rows)
        if len(rows) != len(self.rows) or any(key(a) != key(b) for a, b in zip(rows, self.rows)):
            self.set_rows(rows)
            return
        self.rows = rows
        if rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, len(self.columns) - 1))

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 - Qt API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt API
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: ANN201
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column.text(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            return column.tooltip(row) if column.tooltip else column.text(row)
        if role == Qt.ItemDataRole.TextAlignmentRole and column.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole:
            colour = self.colour(row)
            return QColor(colour) if colour else None
        if role == ROW_ROLE:
            return row
        return None

    def cell(self, row: int, header: str) -> str:
        """The text shown in a cell, by column header (for tests and accessibility)."""
        column = next(c for c in self.columns if c.header == header)
        return column.text(self.rows[row])


def make_table(model: RowsModel, name: str) -> QTableView:
    """A read-only, row-selecting table view on `model`, named `name` (its objectName)."""
    view = QTableView()
    view.setObjectName(name)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    return view


# -- formatting ----------------------------------------------------------------------------------


def tokens(value: int | None) -> str:
    """``12,345``; ``?`` when not reported."""
    return "?" if value is None else f"{value:,}"


def duration(seconds: float | None) -> str:
    """``1:02:03`` / ``2:03`` / ``4.2 s``; empty when unknown."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    total = int(round(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _clip(text: str | None, width: int = 80) -> str:
    if not text:
        return ""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _price(profile: ModelProfile) -> str:
    prices = (profile.price_input_per_mtok, profile.price_output_per_mtok)
    return "/".join("?" if p is None else f"{p:g}" for p in prices)


def _tested(profile: ModelProfile) -> str:
    caps = profile.capabilities
    if not caps.tested_at:
        return "never"
    images = {True: "images ok", False: "no images", None: "images ?"}[caps.images_accepted]
    return ("ok, " + images if caps.text_ok else "FAILED") + f" ({caps.tested_at[:10]})"


PROFILE_COLUMNS = (
    Column("Name", lambda p: p.name),
    Column("Model", lambda p: p.model),
    Column("Base URL", lambda p: p.shown_url),
    Column("USD / Mtok in/out", _price, lambda p: "US dollars per million input / output tokens", numeric=True),
    Column("Key", lambda p: {"env": f"env {p.api_key_env}", "keyring": "OS keyring", "none": "none"}[p.key_source],
           lambda p: p.key_hint()),
    Column("Privacy", lambda p: p.privacy_mode, lambda p: "the privacy gate: what may leave this machine"),
    Column("Tested", _tested),
)

RUN_COLUMNS = (
    Column("Run", lambda r: r.name, lambda r: f"{r.name}\nrun {r.id}\nmodel {r.model or '?'}"),
    Column("Strategy", lambda r: r.strategy or r.kind),
    Column("Status", lambda r: r.status),
    Column("Batch", lambda r: r.batch or "", lambda r: "where the run's provider batch stands (finished / total "
           "requests, from the provider's counts)" if r.batch else "not sent as a batch"),
    Column("Answered", lambda r: str(r.answered), numeric=True),
    Column("Failed", lambda r: str(r.failed), numeric=True),
    Column("Pending", lambda r: str(r.pending), numeric=True),
    Column("Cached", lambda r: str(r.from_cache), lambda r: "answers served from the response cache (no cost)",
           numeric=True),
    Column("Tokens in/out", lambda r: f"{r.prompt_tokens:,} / {r.completion_tokens:,}", numeric=True),
    Column("Cost", lambda r: r.cost_text if r.kind == "model" else "",
           lambda r: "" if r.cost_complete or r.kind != "model" else
           "priced: answers with a known cost (the profile has prices and the server reported the tokens); "
           + ("the sum is a lower bound" if r.cost_status == "partial" else "none is known"),
           numeric=True),
    Column("Duration", lambda r: duration(r.duration_s), numeric=True),
    Column("Started", lambda r: r.started_at.strftime("%Y-%m-%d %H:%M") if r.started_at else ""),
)


def _answer_shown(a: AnswerRow) -> str:
    if a.state == "failed":
        return f"{a.error_kind}: {_clip(a.error, 70)}"
    return _clip(a.answer)


ANSWER_COLUMNS = (
    Column("Task", lambda a: a.task_label, lambda a: a.query),
    Column("State", lambda a: a.state),
    Column("Answer / error", _answer_shown,
           lambda a: (f"{a.error_kind}: {a.error}" if a.error_kind else a.answer) or ""),
    Column("Tokens in/out", lambda a: "" if a.state == "pending"
           else f"{tokens(a.prompt_tokens)} / {tokens(a.completion_tokens)}", numeric=True),
    Column("Cost", lambda a: "" if a.state == "pending" else amount_text(a.cost_usd, digits=5), numeric=True),
    Column("Latency", lambda a: "" if a.latency_s is None else f"{a.latency_s:.2f} s", numeric=True),
    Column("Cache", lambda a: "yes" if a.from_cache else ""),
    Column("Retries", lambda a: str(a.retries) if a.retries else "", numeric=True),
    Column("Frames", lambda a: str(a.frames) if a.frames else "", numeric=True),
)

ERROR_COLUMNS = (
    Column("Task", lambda e: e[0]),
    Column("Model", lambda e: e[1] or ""),
    Column("Error", lambda e: e[2] or "error"),
    Column("Message", lambda e: _clip(e[3], 120), lambda e: e[3] or ""),
)

STATE_COLOURS = {"failed": "#b00020", "pending": "#777777"}
RUN_STATUS_COLOURS = {"failed": "#b00020", "cancelled": "#8a5a00", "running": "#0b5394", "batch": "#0b5394"}
