"""The Compare tab's judge audit: a person marks a sample of judged answers correct or incorrect from the
keyboard, and sees the judge's agreement with people per scorer and judge model, and its false accepts.

Keys in the sample table: C or Y marks the answer correct, X or N incorrect, Delete clears the mark;
each mark moves to the next answer. A mark is a ``compare.audit.MarkJudged`` edit on the panel's undo
stack (Ctrl+Z takes it back). The numbers come from ``compare.audit`` (``audit_agreement``,
``people_agreement``, ``false_accepts``), which use ``core.agreement``.

Blind (on by default, as in rater mode): the judge's verdict and reply of an answer stay hidden until the
person has marked it, so several people can mark the same sample without being led by the judge; their
agreement with each other is shown beside the judge's.
"""

from __future__ import annotations

import getpass
import math
from typing import Any

import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QKeyEvent, QShowEvent, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from fieldstudio.compare import audit
from fieldstudio.compare.coverage import MIN_INTERVAL_N, N_TOO_SMALL
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.undo import EditCommand
from fieldstudio.store.project import Project

__all__ = ["JudgeAuditPanel", "SampleModel", "agreement_text", "people_text", "HIDDEN"]

_COLUMNS = ("Task", "Source", "Judge", "Your mark", "Answer", "Ground truth", "Question")
_JUDGE, _MARK = 2, 3
HIDDEN = "hidden until you mark it"
"""What the Judge column and the detail say in blind mode before the person's mark."""
_CORRECT_KEYS = {Qt.Key.Key_C, Qt.Key.Key_Y}
_INCORRECT_KEYS = {Qt.Key.Key_X, Qt.Key.Key_N}
_CLEAR_KEYS = {Qt.Key.Key_Delete, Qt.Key.Key_Backspace}


def _verdict(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return "correct" if bool(v) else "incorrect"


def _one_line(text: Any, limit: int = 70) -> str:
    t = " ".join(str(text or "").split())
    return t if len(t) <= limit else t[: limit - 1] + "…"


class SampleModel(QAbstractTableModel):
    """The audit sample: one row per judged answer (``audit.audit_sample``'s frame)."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.sample = pd.DataFrame()
        self.blind = True

    def set_blind(self, blind: bool) -> None:
        """Hide (True) or show the judge's verdict of the rows not marked yet."""
        self.blind = blind
        if len(self.sample):
            self.dataChanged.emit(self.index(0, _JUDGE), self.index(len(self.sample) - 1, _JUDGE))

    def judge_hidden(self, row: int) -> bool:
        """True while the judge's verdict of ``row`` is hidden (blind mode, no mark yet)."""
        return self.blind and self.sample.iloc[row]["mark"] is None

    def set_sample(self, sample: pd.DataFrame) -> None:
        self.beginResetModel()
        self.sample = sample.reset_index(drop=True)
        self.endResetModel()

    def set_mark(self, row: int, mark: bool | None) -> None:
        self.sample.at[row, "mark"] = mark
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(_COLUMNS) - 1))

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.sample)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return _COLUMNS[section] if orientation == Qt.Orientation.Horizontal else str(section + 1)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r = self.sample.iloc[index.row()]
        c = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            judge = HIDDEN if self.judge_hidden(index.row()) else _verdict(r["judge_pass"])
            return (str(r["external_id"]), str(r["source"]), judge, _verdict(r["mark"]),
                    _one_line(r["answer"]), _one_line(r["ground_truth"], 40), _one_line(r["query"]))[c]
        if role == Qt.ItemDataRole.BackgroundRole and c == _MARK and r["mark"] is not None:
            agree = bool(r["mark"]) == bool(r["judge_pass"])
            return QBrush(QColor(200, 235, 205) if agree else QColor(245, 190, 185))
        if role == Qt.ItemDataRole.ToolTipRole:
            text = {0: "external_id", 1: "source", 4: "answer", 5: "ground_truth", 6: "query"}
            return str(r[text[c]]) if c in text else "C or Y: correct, X or N: incorrect, Delete: clear"
        return None


def agreement_text(table: pd.DataFrame) -> str:
    """One line per (scorer, judge model): 'fwa-official, judge gpt-4o: 20 marked, accuracy 0.800 [0.584–0.919],
    Cohen's kappa 0.600 [0.249–0.951], 3 false accepts, 1 false rejects' ('kappa undefined' with one label
    only; '(n too small)' for the intervals below ``coverage.MIN_INTERVAL_N`` marks)."""
    if table.empty:
        return "No judged answer is marked yet."

    lines = []
    for r in table.itertuples(index=False):
        def ci(lo: Any, hi: Any, n: int = int(r.n)) -> str:
            if n < MIN_INTERVAL_N:
                return f" ({N_TOO_SMALL})"
            return "" if lo is None or hi is None or (isinstance(lo, float) and math.isnan(lo)) else \
                f" [{float(lo):.3f}–{float(hi):.3f}]"

        kappa = "kappa undefined (one label only)" if r.kappa is None or (isinstance(r.kappa, float) and
                                                                          math.isnan(r.kappa)) \
            else f"Cohen's kappa {r.kappa:.3f}{ci(r.kappa_ci_low, r.kappa_ci_high)}"
        lines.append(f"{r.scorer}, judge {r.judge_model}: {r.n} marked, accuracy {r.accuracy:.3f}"
                     f"{ci(r.accuracy_ci_low, r.accuracy_ci_high)}, {kappa}, {r.false_accepts} false accepts, "
                     f"{r.false_rejects} false rejects")
    return "\n".join(lines)


class _SampleTable(QTableView):
    """The sample table; C/Y, X/N and Delete mark the current row (``mark`` signal: row, verdict)."""

    mark = Signal(int, object)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        key = Qt.Key(event.key())
        row = self.currentIndex().row()
        if row >= 0 and event.modifiers() in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier):
            if key in _CORRECT_KEYS:
                self.mark.emit(row, True)
                return
            if key in _INCORRECT_KEYS:
                self.mark.emit(row, False)
                return
            if key in _CLEAR_KEYS:
                self.mark.emit(row, None)
                return
        super().keyPressEvent(event)


def people_text(table: pd.DataFrame) -> str:
    """The people's agreement with each other, one line per measure: "fwa-official, people Ana, Ben: 6 answers
    marked by two or more, Krippendorff's alpha 0.650 [0.120–1.000]" and "... Ana / Ben: Cohen's kappa ..."
    ('(n too small)' for the intervals below ``MIN_INTERVAL_N`` answers); a hint when nobody shares an answer."""
    if table.empty:
        return "People with each other: no answer is marked by two people yet (several people can mark the same "\
               "sample, each under their own name)."
    lines = []
    for r in table.itertuples(index=False):
        value = "undefined" if r.estimate is None or (isinstance(r.estimate, float) and math.isnan(r.estimate)) \
            else f"{r.estimate:.3f}"
        if value != "undefined":
            value += f" ({N_TOO_SMALL})" if r.n < MIN_INTERVAL_N else (
                "" if r.ci_low is None or r.ci_high is None else f" [{float(r.ci_low):.3f}–{float(r.ci_high):.3f}]")
        lines.append(f"{r.scorer}, people {r.people}: {r.n} answers, {r.measure} {value}")
    return "People with each other:\n" + "\n".join(lines)


class JudgeAuditPanel(QWidget):
    """The Audit page of the Compare tab (see the module docstring). ``set_view(project, scorer, answers,
    flagged)`` fills it from the comparison shown; ``status`` carries messages for the status bar. Its marks go on
    ``undo_stack`` (one of its own when none is given)."""

    status = Signal(str)

    def __init__(self, parent: QWidget | None = None, undo_stack: QUndoStack | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.scorer: str | None = None
        self._answers: pd.DataFrame | None = None
        self._flagged: list[str] = []
        self._dirty = False
        # the Compare panel makes the stack before it builds this page (a later step), so the window's undo group
        # holds it from the start
        self.undo_stack = undo_stack if undo_stack is not None else QUndoStack(self)
        self.person = QLineEdit(_user_name())
        self.person.setToolTip("Your name, stored with every mark")
        self.size_spin = QSpinBox()
        self.size_spin.setRange(1, 5000)
        self.size_spin.setValue(audit.DEFAULT_SAMPLE)
        self.size_spin.setToolTip("Judged answers in the sample (answers the matchers flag come first)")
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 1_000_000)
        self.seed_spin.setToolTip("Seed of the random sample: the same seed gives the same sample")
        self.blind = QCheckBox("Blind")
        self.blind.setChecked(True)
        self.blind.setToolTip("Hide the judge's verdict until you have marked the answer (rater mode)")
        self.blind.toggled.connect(self._set_blind)
        self.sample_button = QPushButton("Draw sample")
        self.sample_button.clicked.connect(self.refresh)
        self.intro = QLabel("")
        self.intro.setWordWrap(True)
        self.model = SampleModel(self)
        self.table = _SampleTable()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.mark.connect(self.mark_row)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._show_row(cur.row()))
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText("Select an answer to read it in full; C or Y: correct, X or N: incorrect.")
        self.agreement = QLabel("")
        self.agreement.setObjectName("audit_agreement")
        self.agreement.setWordWrap(True)
        self.agreement.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # several lines (one per pair of people): a text box, since a wrapped label was squeezed to one line here
        self.people = QPlainTextEdit()
        self.people.setObjectName("audit_people")
        self.people.setReadOnly(True)
        self.people.setMaximumHeight(self.people.fontMetrics().lineSpacing() * 5 + 12)
        self.false_accepts = QPlainTextEdit()
        self.false_accepts.setReadOnly(True)
        self.false_accepts.setObjectName("audit_false_accepts")

        bar = QHBoxLayout()
        for label, w in (("Person", self.person), ("Sample", self.size_spin), ("Seed", self.seed_spin)):
            bar.addWidget(QLabel(label))
            bar.addWidget(w)
        bar.addWidget(self.blind)
        bar.addWidget(self.sample_button)
        bar.addStretch(1)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(QLabel("Answer"))
        rl.addWidget(self.detail, 2)
        heading = QLabel("Judge against people (per scorer and judge model; 95 % intervals: Wilson for "
                         "accuracy, Cohen 1960 for kappa)")
        heading.setWordWrap(True)  # on one line it set the Compare tab's, and so the window's, minimum width
        rl.addWidget(heading)
        rl.addWidget(self.agreement)
        rl.addWidget(self.people)
        rl.addWidget(QLabel("False accepts: the judge passed, a person failed"))
        rl.addWidget(self.false_accepts, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.intro)
        layout.addWidget(split, 1)

    # ------------------------------------------------------------ data
    def set_view(self, project: Project | None, scorer: str | None, answers: pd.DataFrame | None,
                 flagged: list[str] | None = None) -> None:
        """Audit ``scorer``'s judged answers in ``answers`` (the comparison's long table); ``flagged``: answer
        ids the matcher audit flags, put first in the sample."""
        if project is not self.project:
            self.undo_stack.clear()
        self.project, self.scorer, self._answers, self._flagged = project, scorer, answers, list(flagged or [])
        self._dirty = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def refresh(self) -> None:
        """Draw the sample again (size and seed from the widgets) and recount the agreement."""
        self._dirty = False
        if self.project is None or not self.scorer:
            self.model.set_sample(pd.DataFrame())
            self.intro.setText("No scores to audit yet.")
            self._show_agreement()
            return
        sample = audit.audit_sample(self.project, self.scorer, size=self.size_spin.value(), seed=self.seed_spin.value(),
                                    auditor=self.person.text().strip() or None, first=self._flagged,
                                    answers=self._answers)
        current = self.table.currentIndex().row()
        self.model.set_sample(sample)
        n_judged = len(audit.judged_answers(self.project, self.scorer, answers=self._answers)) \
            if self._answers is not None else len(sample)
        self.intro.setText(
            f"{len(sample)} of {n_judged} judged answers of {self.scorer} (seeded sample"
            + (f"; the {min(len(self._flagged), len(sample))} the deterministic matchers decide otherwise first"
               if self._flagged else "") + "). Is the answer correct? C or Y: correct, X or N: incorrect, "
            "Delete: clear; Ctrl+Z undoes." if len(sample) else
            f"No judged answer under {self.scorer}: score with a judge first (Score… in the Grid).")
        if len(sample):
            self.table.selectRow(min(max(current, 0), len(sample) - 1))
            self.table.resizeColumnsToContents()
        self._show_agreement()

    def _show_row(self, row: int) -> None:
        s = self.model.sample
        if row < 0 or row >= len(s):
            self.detail.setPlainText("")
            return
        r = s.iloc[row]
        judge = HIDDEN if self.model.judge_hidden(row) else \
            f"{_verdict(r['judge_pass'])}; its reply: {r['judge_raw'] or '(none stored)'}"
        self.detail.setPlainText(f"Task {r['external_id']} · {r['source']}\n\nQuestion: {r['query']}\n\nGround truth: "
                                 f"{r['ground_truth']}\n\nAnswer: {r['answer']}\n\nJudge ({r['judge_model']}): "
                                 f"{judge}\n\nYour mark: {_verdict(r['mark'])}")

    def _set_blind(self, blind: bool) -> None:
        self.model.set_blind(blind)
        self._show_row(self.table.currentIndex().row())
        self._show_agreement()

    def _show_agreement(self) -> None:
        if self.project is None:
            self.agreement.setText("")
            self.people.setPlainText("")
            self.false_accepts.setPlainText("")
            return
        self.agreement.setText(agreement_text(audit.audit_agreement(self.project)))
        self.people.setPlainText(people_text(audit.people_agreement(self.project)))
        fa = audit.false_accepts(self.project)
        if self.blind.isChecked():            # another person's false accept would show the judge's verdict
            fa = fa[fa["auditor"] == self.person.text().strip()]
        self.false_accepts.setPlainText("\n".join(
            f"{r.external_id} ({r.scorer}, {r.judge_model}, marked by {r.auditor}): {_one_line(r.answer, 90)} "
            f"— ground truth {_one_line(r.ground_truth, 60)}" for r in fa.itertuples()) or "None so far.")

    # ------------------------------------------------------------ marking
    def mark_row(self, row: int, verdict: bool | None) -> None:
        """Mark the sample's ``row`` (True correct, False incorrect, None clear) and move to the next row."""
        s = self.model.sample
        if self.project is None or row < 0 or row >= len(s):
            return
        edit = audit.MarkJudged(self.project, str(s.at[row, "score_id"]), verdict, self.person.text(),
                                where=f"{s.at[row, 'external_id']} / {s.at[row, 'source']}")
        try:
            edit.do()
        except FieldstudioError as exc:
            self.status.emit(f"Not marked: {exc}")
            return
        self.undo_stack.push(EditCommand(edit, self._after_undo))
        self.model.set_mark(row, verdict)
        self.status.emit(f"{s.at[row, 'external_id']} / {s.at[row, 'source']}: {_verdict(verdict)} "
                         f"(judge: {_verdict(s.at[row, 'judge_pass'])})")
        if row + 1 < len(s):
            self.table.selectRow(row + 1)
        self._show_agreement()
        self._show_row(self.table.currentIndex().row())

    def _after_undo(self, _edit: audit.MarkJudged, op: str, error: str | None) -> None:
        if error:
            self.status.emit(f"Could not {op}: {error}")
        self.refresh()


def _user_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
