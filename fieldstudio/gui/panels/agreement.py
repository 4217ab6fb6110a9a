"""The agreement panel of a rating set: how far raters agree with each other, and a scorer with them.

Shows (issue 6, item 3; issue 10, items 3-4): counts per verdict; Krippendorff's alpha (nominal for the
verdicts, interval for each number field) with its 95 % bootstrap interval; per rater the acceptance
rate and the agreement with the majority of the other raters; every pair's raw agreement and Cohen's
kappa; each scorer or model (never counted as a rater) against the rater majority with precision,
recall, F1, false-accept and miss rates; the items where raters disagree and the items where the scorer
and the majority disagree (choosing one emits ``open_item``); CSV export; scoring and tuning the
acceptability rules in the background with progress and cancel.

Every number comes from ``ratings.review`` / ``core.agreement`` / ``ratings.acceptability.service``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QGroupBox, QHBoxLayout, QHeaderView,
                               QLabel, QMessageBox, QPushButton, QScrollArea, QTableView,
                               QVBoxLayout, QWidget)

from fieldstudio.core.agreement import AgreementSummary
from fieldstudio.core.statistics import Interval
from fieldstudio.gui import raw_cells_choice, workers
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings import review as rating_review
from fieldstudio.ratings.acceptability import service as acceptability
from fieldstudio.ratings.csv_table import write_agreement_csv
from fieldstudio.store.project import Project

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
N_RESAMPLES = 1000
SEED = 0


def fmt(value: Any, digits: int = 3) -> str:
    """A number for a table cell: "–" when undefined."""
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_ci(iv: Interval | None, digits: int = 3) -> str:
    """``0.812 [0.55, 1.00]``; "undefined" without an estimate."""
    if iv is None or iv.estimate is None:
        return "undefined"
    ci = "" if iv.ci_low is None else f" [{iv.ci_low:.2f}, {iv.ci_high:.2f}]"
    return f"{iv.estimate:.{digits}f}{ci}"


class RowsModel(QAbstractTableModel):
    """A read-only table of rows (lists of cell texts); each row may carry an id (``ITEM_ROLE``)."""

    def __init__(self, headers: Sequence[str], parent: QWidget | None = None):
        super().__init__(parent)
        self.headers = list(headers)
        self.rows: list[list[str]] = []
        self.ids: list[str | None] = []
        self.tips: list[str | None] = []

    def set_rows(self, rows: Sequence[Sequence[Any]], ids: Sequence[str | None] | None = None,
                 tips: Sequence[str | None] | None = None) -> None:
        self.beginResetModel()
        self.rows = [[str(c) for c in r] for r in rows]
        self.ids = list(ids) if ids is not None else [None] * len(self.rows)
        self.tips = list(tips) if tips is not None else [None] * len(self.rows)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.rows[index.row()][index.column()]
        if role == ITEM_ROLE:
            return self.ids[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tips[index.row()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt override
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None


def _table(model: RowsModel, clickable: bool = False) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.verticalHeader().hide()
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    view.horizontalHeader().setStretchLastSection(False)
    view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    model.modelReset.connect(lambda: _fit_height(view))
    _fit_height(view)
    if clickable:
        view.setToolTip("Click an item to open it in rater mode")
        view.setCursor(Qt.CursorShape.PointingHandCursor)
    return view


def _fit_height(view: QTableView, max_rows: int = 10) -> None:
    """Make a table as tall as its rows (at most ``max_rows``; more scroll), so the panel has no blank space."""
    n = min(max(view.model().rowCount(), 1), max_rows)
    row = view.verticalHeader().defaultSectionSize()
    scroll = view.horizontalScrollBar().sizeHint().height()
    view.setFixedHeight(view.horizontalHeader().sizeHint().height() + n * row + 2 * view.frameWidth() + scroll)


class AgreementPanel(QWidget):
    """Agreement statistics of one rating set, recomputed in the background.

    Signals: ``open_item(item_id)`` when an item of a disagreement list is clicked (connect it to
    ``RaterPanel.show_item(item_id, review=True)``); ``status(str)`` for the status bar;
    ``scored()`` after the scorer's verdicts were stored.
    """

    open_item = Signal(str)
    status = Signal(str)
    scored = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.set_id: str | None = None
        self.summary: AgreementSummary | None = None
        self._token = 0
        self._worker: workers.Worker | None = None
        self._build()
        self.set_project(None)

    def _build(self) -> None:
        self.set_combo = QComboBox()
        self.set_combo.setToolTip("The rating set whose agreement is shown")
        self.set_combo.currentIndexChanged.connect(lambda _i: self._set_chosen())
        refresh = QPushButton("Refresh")
        refresh.setToolTip("Recompute every statistic from the stored ratings")
        refresh.clicked.connect(self.refresh)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setToolTip("Write the agreement tables as CSV")
        self.export_button.clicked.connect(self._export_dialog)
        self.score_button = QPushButton("Score with rules")
        self.score_button.setToolTip("Apply the set's acceptability rules to every item and store the verdicts "
                                     f"as '{acceptability.SOURCE}'")
        self.score_button.clicked.connect(self.score_with_rules)
        self.tune_button = QPushButton("Tune rules on raters")
        self.tune_button.setToolTip("Tune the rule thresholds on a seeded 60 % of the rated items and report "
                                    "on the other 40 %")
        self.tune_button.clicked.connect(self.tune_rules)
        top = QHBoxLayout()
        for w in (QLabel("Set"), self.set_combo, refresh, self.export_button, self.score_button, self.tune_button):
            top.addWidget(w)
        top.addStretch(1)

        self.headline = QLabel()
        self.headline.setObjectName("agreement_headline")
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.counts_label = QLabel()
        self.counts_label.setObjectName("agreement_counts")
        self.counts_label.setWordWrap(True)

        self.raters_model = RowsModel(["Rater", "Rated", "Accept", "Reject", "Unsure", "Acceptance rate",
                                       "vs majority of others [95% CI]", "Compared", "Ties", "Unsure left out"])
        self.pairs_model = RowsModel(["Rater A", "Rater B", "Items both decided", "Agree", "Raw agreement",
                                      "Cohen's κ"])
        self.sources_model = RowsModel(["Scorer / model", "Compared", "Agreement [95% CI]", "Precision", "Recall",
                                        "F1", "False-accept rate", "Miss rate", "Ties", "Unsure"])
        self.disagree_model = RowsModel(["Item", "Accept", "Reject", "Unsure", "Majority", "Raters"])
        self.scorer_model = RowsModel(["Item", "Majority", "Scorer", "Failing terms"])
        self.raters_view = _table(self.raters_model)
        self.pairs_view = _table(self.pairs_model)
        self.sources_view = _table(self.sources_model)
        self.disagree_view = _table(self.disagree_model, clickable=True)
        self.scorer_view = _table(self.scorer_model, clickable=True)
        for view in (self.disagree_view, self.scorer_view):
            view.clicked.connect(self._item_clicked)
            view.activated.connect(self._item_clicked)
        self.tune_label = QLabel()
        self.tune_label.setObjectName("agreement_tune")
        self.tune_label.setWordWrap(True)

        body = QWidget()
        col = QVBoxLayout(body)
        col.addWidget(self.headline)
        col.addWidget(self.counts_label)
        for title, view in (("Raters (human; scorers and models are not counted as raters)", self.raters_view),
                            ("Pairs of raters", self.pairs_view),
                            ("Scorers and models against the rater majority (accept is positive)", self.sources_view),
                            ("Items where raters disagree (one accepted, another rejected)", self.disagree_view),
                            ("Items where the scorer and the rater majority disagree", self.scorer_view)):
            box = QGroupBox(title)
            QVBoxLayout(box).addWidget(view)
            col.addWidget(box)
        col.addWidget(self.tune_label)
        col.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(scroll, 1)

    # ------------------------------------------------------------------------------------ project
    def set_project(self, project: Project | None) -> None:
        """Show the rating sets of ``project`` (None: empty and disabled)."""
        self.project = project
        self.setEnabled(project is not None)
        self.set_combo.blockSignals(True)
        self.set_combo.clear()
        if project is not None:
            for info in ratings.list_rating_sets(project):
                self.set_combo.addItem(info.name, info.id)
        self.set_combo.blockSignals(False)
        self._set_chosen()

    def on_rating_saved(self, _item_id: str) -> None:
        """A rating was saved in the Rate tab: the statistics on screen follow."""
        if self.isVisible():
            self.refresh()

    def on_ratings_imported(self) -> None:
        """Rating sets arrived from outside (a package was merged): read them again."""
        self.set_project(self.project)

    def on_tab_shown(self) -> None:
        """The tab comes forward again: recompute what the other tabs may have changed."""
        self.refresh()

    def set_rating_set(self, ref: str) -> None:
        """Show the rating set ``ref`` (name or id)."""
        info = ratings.get_rating_set(self.project, ref)
        k = self.set_combo.findData(info.id)
        if k < 0:
            self.set_combo.addItem(info.name, info.id)
            k = self.set_combo.count() - 1
        if k == self.set_combo.currentIndex():
            self.refresh()
        else:
            self.set_combo.setCurrentIndex(k)

    def _set_chosen(self) -> None:
        self.set_id = self.set_combo.currentData()
        self.refresh()

    def busy(self) -> bool:
        """True while statistics are being computed (tests wait on it)."""
        return self._worker is not None

    def refresh(self) -> None:
        """Recompute the statistics in the background (a newer request replaces an older one)."""
        self._token += 1
        for model in (self.raters_model, self.pairs_model, self.sources_model, self.disagree_model, self.scorer_model):
            model.set_rows([])
        if self.project is None or not self.set_id:
            self.summary = None
            self._worker = None
            self.headline.setText("No rating set in this project yet." if self.project else "")
            self.counts_label.setText("")
            return
        self.headline.setText("Computing agreement…")
        token, project, set_id = self._token, self.project, self.set_id

        def compute(*, progress: Callable, cancelled: Callable) -> dict[str, Any]:
            return {"summary": rating_review.set_agreement(project, set_id, n_resamples=N_RESAMPLES, seed=SEED,
                                                           progress=progress, cancelled=cancelled),
                    "counts": rating_review.verdict_counts(project, set_id),
                    "disagree": rating_review.rater_disagreements(project, set_id),
                    "scorer": acceptability.disagreements(project, set_id)}

        worker = workers.Worker(compute)
        worker.signals.result.connect(lambda out: self._show(token, out))
        worker.signals.error.connect(lambda msg: self._failed(token, msg))
        self._worker = workers.start(worker)

    def _failed(self, token: int, message: str) -> None:
        if token == self._token:
            self._worker = None
            self.headline.setText(f"Could not compute agreement: {message}")
            self.status.emit(message)

    # ------------------------------------------------------------------------------------ display
    def _show(self, token: int, out: dict[str, Any]) -> None:
        if token != self._token:
            return
        s: AgreementSummary = out["summary"]
        self.summary = s
        alpha = s.alpha
        lines = [f"<b>Krippendorff's α (nominal, verdicts) = {fmt_ci(alpha)}</b> over {alpha.n} items with two or "
                 "more decided verdicts"]
        for name, iv in s.field_alpha.items():
            lines.append(f"α (interval) of “{name}” = {fmt_ci(iv)} over {iv.n} items")
        lines.append(f"<span style='color:#555'>95% percentile bootstrap over items, {N_RESAMPLES} resamples, "
                     f"seed {SEED}; unsure verdicts excluded and counted; ties excluded from the majority "
                     "statistics.</span>")
        self.headline.setText("<br>".join(lines))
        c = out["counts"]
        self.counts_label.setText(
            f"{s.n_items} items rated by {s.n_raters} raters · {s.n_ratings} ratings: accept {c['accept']}, "
            f"reject {c['reject']}, unsure {c['unsure']} (excluded) · majority ties: {s.majority_ties}")
        self.raters_model.set_rows([
            [name, a["rated"], a["accept"], a["reject"], a["unsure"], fmt(a["acceptance_rate"]),
             fmt_ci(s.raters[name].agreement) if name in s.raters else "–",
             s.raters[name].n if name in s.raters else 0, s.raters[name].ties if name in s.raters else 0,
             s.raters[name].unsure if name in s.raters else 0]
            for name, a in s.acceptance.items()])
        self.pairs_model.set_rows([[p.rater_a, p.rater_b, p.n, p.agree, fmt(p.rate), fmt(p.kappa)]
                                   for p in s.pairwise])
        self.sources_model.set_rows([
            [name, v.n, fmt_ci(v.agreement), fmt(v.metrics.get("precision")), fmt(v.metrics.get("recall")),
             fmt(v.metrics.get("f1")), fmt(v.metrics.get("false_accept_rate")), fmt(v.metrics.get("miss_rate")),
             v.ties, v.unsure] for name, v in s.sources.items()])
        dis: list[rating_review.ItemVotes] = out["disagree"]
        self.disagree_model.set_rows(
            [[d.item.label, d.accept, d.reject, d.unsure, d.majority or d.status,
              ", ".join(f"{r}: {v}" for r, v in sorted(d.votes.items()))] for d in dis],
            ids=[d.item.id for d in dis])
        sc: list[acceptability.Disagreement] = out["scorer"]
        self.scorer_model.set_rows(
            [[d.item.label, d.majority, d.verdict, ", ".join(d.failing) or "(none failed)"] for d in sc],
            ids=[d.item.id for d in sc])
        self._worker = None
        self.status.emit(f"Agreement: α = {fmt(alpha.estimate)} over {alpha.n} items")

    def _item_clicked(self, index: QModelIndex) -> None:
        item_id = index.data(ITEM_ROLE)
        if item_id:
            self.open_item.emit(str(item_id))

    # ------------------------------------------------------------------------------------ actions
    def export_csv(self, path: Path, *, raw_cells: bool = False) -> None:
        """Write the shown agreement tables to ``path`` (atomically, ``rating_csv.write_agreement_csv``); a cell a
        spreadsheet would run as a formula gets a leading ' unless ``raw_cells``."""
        if self.summary is None:
            raise ValueError("no agreement computed yet")
        write_agreement_csv(self.summary, Path(path), rating_set=self.set_combo.currentText(), raw_cells=raw_cells)
        self.status.emit(f"Wrote agreement to {path}")

    def _export_dialog(self) -> None:
        if self.summary is None:
            return
        choice = raw_cells_choice.ask_save_path(self, "Export agreement", "agreement.csv", "CSV files (*.csv)")
        if choice is not None:
            try:
                self.export_csv(Path(choice.path), raw_cells=choice.raw_cells)
            except OSError as exc:
                QMessageBox.critical(self, "Export failed", str(exc))

    def _run_with_progress(self, title: str, fn: Callable, done: Callable[[Any], None]) -> workers.Worker:
        return workers.run_with_progress(
            self, f"{title}…", fn, self.project, self.set_id, title=title, done=done,
            failed=lambda msg: (self.status.emit(f"{title} failed: {msg}"),
                                self.tune_label.setText(f"{title} failed: {msg}")))

    def score_with_rules(self) -> workers.Worker | None:
        """Measure every item and store the rules' verdicts (background, with progress and cancel)."""
        if self.project is None or not self.set_id:
            return None

        def done(report: acceptability.ScoreReport) -> None:
            c = report.counts
            errors = f"; {len(report.errors)} could not be measured" if report.errors else ""
            self.tune_label.setText(f"Scored: accept {c['accept']}, reject {c['reject']}, unsure {c['unsure']}{errors}")
            self.scored.emit()
            self.refresh()

        return self._run_with_progress("Scoring with rules", acceptability.score_rating_set, done)

    def tune_rules(self) -> workers.Worker | None:
        """Tune the rules on the raters (seed 0) and show the held-out report."""
        if self.project is None or not self.set_id:
            return None

        def done(report: Any) -> None:
            t = report.test
            self.tune_label.setText(
                f"Tuned on {len(report.train_ids)} items (seed {report.rules.tuned['seed']}, "
                f"{report.rules.tuned['date']}); held out {len(report.test_ids)}: agreement {fmt_ci(t['agreement'])}, "
                f"precision {fmt_ci(t['precision'])}, recall {fmt_ci(t['recall'])}, F1 {fmt_ci(t['f1'])}, "
                f"false-accept {fmt_ci(t['false_accept_rate'])}, miss {fmt_ci(t['miss_rate'])}; "
                f"{report.test_unsure} unsure. Rules: " + "; ".join(term.name for term in report.rules.terms)
                + ". Press “Score with rules” to store the tuned verdicts.")

        return self._run_with_progress("Tuning rules", acceptability.tune_rating_set, done)
