"""Score from the Compare tab: choose the scorer and the judge, see what it will cost, then watch it run.

The dialog calls the services the CLI's ``fieldstudio score`` calls: ``scoring.estimate.estimate_scoring``
before starting (judge calls, tokens and cost; prompts already in the response cache are free, so scoring
again asks only what changed) and ``scoring.service.score_answers`` in a ``gui.workers.Worker`` with
progress, ETA, the judge's cost so far and Cancel (the batches written stay). ``scores_written(scorer)``
is emitted as batches arrive (at most every ``REFRESH_S`` seconds) and at the end, so the grid refreshes.

The scorer list says what each scorer is (its description as the item's tooltip and below the list) and
whether it needs a judge; scorers that need one are disabled, with the reason, when no model profile exists.

An official scorer (``REGISTRY[name].benchmark`` set) reads the benchmark's own judge files (issue 18 §1).
The "Official source folder" row is prefilled from the folder ``fieldstudio benchmarks locate`` remembered
(``scoring.official.source.located_folder``), checked with ``load_source``, and shows the files' versions and
fingerprints and the official judge settings. Browse… (or Score, when nothing is located) asks for the
folder through ``ask_for_folder`` with a folder dialog: asked once, then remembered for the CLI too; a
refused folder's reason is shown in the row. The folder is passed to the estimate and to ``score_answers``
as ``official_source``.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from fieldstudio.core import user_settings
from fieldstudio.gui import settings, workers
from fieldstudio.scoring import service as scoring
from fieldstudio.scoring.estimate import estimate_scoring, judge_use
from fieldstudio.scoring.official.source import (BENCHMARK_TITLES, OfficialSource, OfficialSourceError,
                                                 ask_for_folder, load_source, locate, located_folder)
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.store.project import Project

__all__ = ["ScoreDialog", "REFRESH_S", "eta_text", "scorer_item_text"]

REFRESH_S = 1.5
"""Fewest seconds between two grid refreshes while scores arrive."""
NO_JUDGE = "(no judge: deterministic matchers only)"
SCORE_TIP = "Score the answers with the chosen scorer and judge (the estimate above is what it costs)"
_USE_TEXT = {"required": "needs a judge: without one nothing is scored",
             "optional": "judge optional: without one the deterministic matchers decide what they can, the rest "
                         "stays unscored",
             "none": "no judge: scored by rules alone"}
_USE_TAG = {"required": "needs a judge", "optional": "judge optional", "none": "no judge"}
NO_PROFILE_REASON = ("needs a judge and there is no model profile yet: add one (Runs tab ▸ Model profiles…), then "
                     "open Score… again")


def scorer_item_text(name: str) -> str:
    """The scorer list's entry: '<name> · needs a judge · <benchmark>'s own prompts' for an official scorer."""
    info = REGISTRY[name]
    text = f"{name} · {_USE_TAG[judge_use(name)]}"
    if info.benchmark:
        text += f" · {BENCHMARK_TITLES[info.benchmark]}'s own prompts"
    elif info.needs_judge:
        text += " · fieldstudio's prompts"
    return text


def eta_text(done: int, total: int, elapsed_s: float) -> str:
    """'ETA 1 min 20 s' from the rate so far; '' before the first answer or when done."""
    if done <= 0 or done >= total or elapsed_s <= 0:
        return ""
    left = elapsed_s / done * (total - done)
    return f"ETA {int(left // 60)} min {int(left % 60)} s" if left >= 60 else f"ETA {left:.0f} s"


class _CostMeter:
    """Wraps ``inference.client.chat`` to add up the judge's calls and cost as they happen (worker thread)."""

    def __init__(self) -> None:
        from fieldstudio.inference import client  # only a judge needs the OpenAI client

        self._client = client
        self._lock = threading.Lock()
        self.calls = 0
        self.cost_usd = 0.0
        self.cost_known = True

    def __call__(self, profile: Any, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        result = self._client.chat(profile, messages, **kwargs)
        cost = self._client.cost(profile, result)
        with self._lock:
            self.calls += 1
            if cost is None:
                self.cost_known = False
            else:
                self.cost_usd += cost
        return result

    def text(self) -> str:
        with self._lock:
            cost = f"${self.cost_usd:.4f}" + ("" if self.cost_known else " + unknown")
            return f"{self.calls} judge calls, cost so far {cost}"


class ScoreDialog(QDialog):
    """Choose scorer and judge, see the estimate, score with progress and cancel (see the module docstring).

    Signals: ``scores_written(scorer)`` while and after scoring; ``scored(report)`` with the
    ``ScoringReport`` when the scoring ends (also when cancelled); ``status(text)``.
    """

    scores_written = Signal(str)
    scored = Signal(object)
    status = Signal(str)

    def __init__(self, project: Project, scorer: str | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Score answers")
        self.project = project
        self.worker: workers.Worker | None = None
        self.estimate_worker: workers.Worker | None = None
        self.estimate = None
        self.report = None
        self._meter: _CostMeter | None = None
        self._started = 0.0
        self._last_refresh = 0.0
        self._estimate_generation = 0
        self._estimate_error: str | None = None        # why the last estimate failed; None: it succeeded
        self._estimating = False

        self._source: OfficialSource | None = None
        self._refusal = ""                             # why the last folder chosen in Browse… was refused
        self._source_for: str | None = None            # the benchmark the official row was filled for
        profile_names = _profile_names()
        self.scorer_combo = QComboBox()
        self.scorer_note = QLabel("")
        self.scorer_note.setWordWrap(True)
        items = self.scorer_combo.model()
        disabled = []
        for name in sorted(REGISTRY):
            self.scorer_combo.addItem(scorer_item_text(name), name)
            item = items.item(self.scorer_combo.count() - 1) if isinstance(items, QStandardItemModel) else None
            tip = f"{REGISTRY[name].name} {REGISTRY[name].version}: {REGISTRY[name].description}"
            if REGISTRY[name].needs_judge and not profile_names and item is not None:
                item.setEnabled(False)
                tip = f"{name} {NO_PROFILE_REASON}.\n\n{tip}"
                disabled.append(name)
            self.scorer_combo.setItemData(self.scorer_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        if disabled:
            self.scorer_note.setText(f"Not available: {', '.join(disabled)}: each {NO_PROFILE_REASON}.")
        self.scorer_note.setVisible(bool(disabled))
        if scorer not in REGISTRY or scorer in disabled:
            scorer = _first_scorer(project, profile_names)
        self.scorer_combo.setCurrentIndex(self.scorer_combo.findData(scorer))
        self.description = QLabel("")
        self.description.setWordWrap(True)
        self.judge_use = QLabel("")
        self.judge_use.setWordWrap(True)
        self.judge_combo = QComboBox()
        self.judge_combo.addItem(NO_JUDGE, None)
        for name in profile_names:
            self.judge_combo.addItem(name, name)
        self.judge_combo.setToolTip("Model profile used as the LLM judge (Runs tab ▸ Model profiles…)")
        self.official_edit = QLineEdit()
        self.official_edit.setObjectName("official_source")
        self.official_edit.setPlaceholderText("the benchmark's own evaluation files (its judge prompts)")
        self.official_edit.editingFinished.connect(self._official_edited)
        self.official_browse = QPushButton("Browse…")
        self.official_browse.clicked.connect(self.browse_official)
        self.official_note = QLabel("")
        self.official_note.setObjectName("official_note")
        self.official_note.setWordWrap(True)
        self.official_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        official = QHBoxLayout()
        official.addWidget(self.official_edit, 1)
        official.addWidget(self.official_browse)
        self.estimate_label = QLabel("")
        self.estimate_label.setObjectName("estimate")
        self.estimate_label.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress_label = QLabel("")
        self.progress_label.setObjectName("progress")
        self.progress_label.setWordWrap(True)
        self.score_button = QPushButton("Score")
        self.score_button.setDefault(True)
        self.score_button.setObjectName("score")
        self.cancel_button = QPushButton("Cancel")
        self.close_button = QPushButton("Close")
        self.score_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        self.cancel_button.setEnabled(False)

        # a grid, not a QFormLayout: the form pads every word-wrapped label with empty lines
        form = QGridLayout()
        form.setColumnStretch(1, 1)
        rows = [("Scorer", self.scorer_combo), ("", self.scorer_note), ("", self.description), ("", self.judge_use),
                ("Judge profile", self.judge_combo), ("Official source folder", official), ("", self.official_note)]
        for row, (title, item) in enumerate(rows):
            if title:
                form.addWidget(QLabel(title), row, 0)
            if isinstance(item, QWidget):
                form.addWidget(item, row, 1)
            else:
                form.addLayout(item, row, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.score_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("Before starting"))
        layout.addWidget(self.estimate_label)
        layout.addWidget(self.progress)
        layout.addWidget(self.progress_label)
        layout.addStretch(1)                           # spare height below the text, not between its rows
        layout.addLayout(buttons)
        self.resize(720, 520)

        self.scorer_combo.currentIndexChanged.connect(self._changed)
        self.judge_combo.currentIndexChanged.connect(self._changed)
        # an estimate that ends after the dialog closed has no widgets to fill: a new generation drops it
        self.finished.connect(self._drop_estimates)
        self._changed()

    def _drop_estimates(self, *_args: object) -> None:
        self._estimate_generation += 1
        if self.estimate_worker is not None:
            self.estimate_worker.cancel()

    # ------------------------------------------------------------ choices
    def scorer(self) -> str:
        return str(self.scorer_combo.currentData())

    def judge(self) -> str | None:
        return self.judge_combo.currentData()

    def official_source(self) -> Path | None:
        """The checked folder of the benchmark's own judge files for the chosen scorer; None when the scorer
        reads none or no folder passed the check."""
        return None if self._source is None else self._source.folder

    # ------------------------------------------------------------ the benchmark's own judge files
    def _benchmark(self) -> str | None:
        return REGISTRY[self.scorer()].benchmark

    def _update_official(self) -> None:
        """Fill the official row for the chosen scorer: the located folder, checked, or why there is none."""
        benchmark = self._benchmark()
        for w in (self.official_edit, self.official_browse):
            w.setEnabled(benchmark is not None and self.worker is None)
        if benchmark is None:
            self._source, self._source_for = None, None
            self.official_edit.clear()
            info = REGISTRY[self.scorer()]
            self.official_note.setText(
                f"{info.name} reads no benchmark files: " + ("the judge is asked with fieldstudio's own prompts "
                                                             "(not comparable with published tables)."
                                                             if info.needs_judge else "no judge prompt is used."))
            return
        if self._source_for != benchmark:
            self._source_for = benchmark
            folder = located_folder(benchmark)
            self.official_edit.setText("" if folder is None else str(folder))
        self._check_official()

    def _check_official(self) -> None:
        """Check the folder in the row (``load_source``) and show its versions and settings, or the reason."""
        benchmark = self._benchmark()
        if benchmark is None:
            return
        text = self.official_edit.text().strip()
        title = BENCHMARK_TITLES[benchmark]
        if not text:
            self._source = None
            self.official_note.setText(f"{self.scorer()} reads {title}'s own judge prompts, which are not shipped "
                                       "with fieldstudio: Browse… to choose their folder (asked once, then "
                                       "remembered).")
            return
        try:
            self._source = load_source(benchmark, text)
        except OfficialSourceError as exc:
            self._source = None
            self.official_note.setText(f"Refused: {exc}")
            return
        self.official_note.setText(_describe_source(self._source))

    def _official_edited(self) -> None:
        self._check_official()
        self._estimate()

    def _choose_folder(self, message: str) -> str | None:
        """``ask_for_folder``'s ``choose``: the message (what to point at, why the last folder was refused)
        is shown in the row, and a folder dialog asks."""
        problem, _, _ = message.rpartition("\n\n")          # ask_for_folder puts a refusal's reason first
        self._refusal = problem
        self.official_note.setText(message)
        start = self.official_edit.text().strip()
        folder = QFileDialog.getExistingDirectory(
            self, f"The {BENCHMARK_TITLES.get(self._benchmark() or '', '')} judge files' folder", start)
        return folder or None

    def browse_official(self) -> OfficialSource | None:
        """Ask for the benchmark's folder (``ask_for_folder``, remembered once it passes the check); when a
        checked folder is already located, the folder dialog asks for another one. Returns the source, or
        None when cancelled or refused (the row says why)."""
        benchmark = self._benchmark()
        if benchmark is None:
            return None
        try:
            load_source(benchmark)                      # a good folder is located: choose another one
            located = True
        except OfficialSourceError:
            located = False
        self._refusal = ""
        try:
            if located:
                folder = self._choose_folder(f"Choose another folder for {BENCHMARK_TITLES[benchmark]}'s judge "
                                             "files (the remembered one is kept when you cancel).")
                source = None if folder is None else locate(benchmark, folder)
            else:
                source = ask_for_folder(benchmark, self._choose_folder)
        except OfficialSourceError as exc:
            kept = "" if self._source is None else f"\n\nStill in use: {self._source.folder}"
            self.official_note.setText(f"Refused: {exc}{kept}")
            return None
        if source is None:                              # cancelled: the row keeps its folder, the note the reason
            self._check_official()
            if self._refusal:
                self.official_note.setText(f"Refused: {self._refusal}")
            return None
        self._source = source
        self.official_edit.setText(str(source.folder))
        self.official_note.setText(_describe_source(source))
        self._estimate()
        return source

    def _changed(self, *_args: object) -> None:
        info = REGISTRY[self.scorer()]
        use = judge_use(info.name)
        self._update_official()
        self.description.setText(f"{info.name} {info.version}: {info.description}")
        self.judge_use.setText(_USE_TEXT[use])
        self.judge_combo.setEnabled(use != "none")
        if use == "none":
            self.judge_combo.setCurrentIndex(0)
        elif self.judge() is None:
            # the judge scored with last time, else, for a scorer that cannot work without one, the only profile
            last = self.judge_combo.findData(settings.get(user_settings.LAST_JUDGE))
            if last > 0:
                self.judge_combo.setCurrentIndex(last)
            elif use == "required" and self.judge_combo.count() == 2:
                self.judge_combo.setCurrentIndex(1)
        self._estimate()

    def _estimate(self) -> None:
        """Estimate in the background (the scorer runs over every answer with a stand-in judge)."""
        self._estimate_generation += 1
        gen = self._estimate_generation
        self._estimating, self._estimate_error = True, None
        self.estimate_label.setText("estimating…")
        self._update_score_button()
        w = workers.Worker(_estimate, self.project, self.scorer(), self.judge(), self.official_source())
        w.signals.result.connect(lambda est: self._on_estimate(gen, est))
        w.signals.error.connect(lambda msg: self._on_estimate_error(gen, msg))
        self.estimate_worker = w
        workers.start(w)

    def _on_estimate(self, gen: int, est: Any) -> None:
        if gen != self._estimate_generation or not shiboken6.isValid(self.estimate_label):
            return
        self.estimate = est
        self._estimating = False
        text = est.text()
        if judge_use(self.scorer()) == "required" and self.judge() is None:
            text = f"{self.scorer()} needs a judge: choose a judge profile. " + text
        self.estimate_label.setText(text)
        self._update_score_button()

    def _on_estimate_error(self, gen: int, message: str) -> None:
        if gen != self._estimate_generation or not shiboken6.isValid(self.estimate_label):
            return
        self._estimating, self._estimate_error = False, message
        self.estimate_label.setText(f"Cannot estimate: {message}")
        self._update_score_button()

    def _update_score_button(self) -> None:
        """Score is enabled only when nothing is scoring, a judge the scorer needs is chosen and the estimate
        for these choices succeeded (the user sees the judge calls and cost before starting); otherwise its
        tooltip says why."""
        tip = SCORE_TIP
        why = None
        if self.worker is not None:
            why = "scoring is running"
        elif judge_use(self.scorer()) == "required" and self.judge() is None:
            why = f"{self.scorer()} needs a judge: choose a judge profile"
        elif self._estimate_error is not None and self._benchmark() is not None and self._source is None:
            # the one failure Score itself mends: it asks for the benchmark's folder first (``start``)
            tip = (f"Score asks first for the folder of the {self._benchmark()} judge files (once: it is "
                   "remembered), then shows the estimate")
        elif self._estimate_error is not None:
            # what cannot be estimated cannot be scored either (the same reads): the reason, not a later failure
            why = f"the judge calls cannot be estimated: {self._estimate_error}"
        elif self._estimating:
            why = "estimating the judge calls and their cost…"
        self.score_button.setEnabled(why is None)
        self.score_button.setToolTip(tip if why is None else f"Not available: {why}")

    # ------------------------------------------------------------ running
    def start(self) -> None:
        """Score with the chosen scorer and judge in a worker (progress, ETA, cost, Cancel)."""
        if self.worker is not None:
            return
        scorer, judge = self.scorer(), self.judge()
        benchmark = self._benchmark()
        if benchmark is not None and self._source is None and self.browse_official() is None:
            self.progress_label.setText(f"Not started: {scorer} needs {BENCHMARK_TITLES[benchmark]}'s own judge "
                                        "files; choose their folder (Browse…) or pick a scorer with fieldstudio's "
                                        "prompts.")
            return
        kwargs: dict[str, Any] = {}
        if judge is not None:
            settings.set(user_settings.LAST_JUDGE, judge)
            self._meter = kwargs["chat"] = _CostMeter()
        else:
            self._meter = None
        if self.official_source() is not None:
            kwargs["official_source"] = self.official_source()
        self.worker = workers.Worker(scoring.score_answers, self.project, scorer, None, judge, **kwargs)
        self.worker.signals.progress.connect(self._on_progress)
        self.worker.signals.result.connect(self._on_done)
        self.worker.signals.error.connect(self._on_error)
        self._started = self._last_refresh = time.monotonic()
        self._reached = (0, 0)  # (answers done, of total) as the last progress said
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.progress_label.setText("starting…")
        for w in (self.score_button, self.scorer_combo, self.judge_combo, self.close_button, self.official_edit,
                  self.official_browse):
            w.setEnabled(False)
        self.cancel_button.setEnabled(True)
        workers.start(self.worker)

    def cancel(self) -> None:
        """Stop after the answer being scored; what is written stays."""
        if self.worker is not None:
            self.worker.cancel()
            self.progress_label.setText(self.progress_label.text() + " — cancelling…")

    def _on_progress(self, done: int, total: int) -> None:
        self._reached = (done, total)
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(min(done, total))
        eta = eta_text(done, total, time.monotonic() - self._started)
        cost = self._meter.text() if self._meter is not None else "no judge"
        self.progress_label.setText(f"{done} of {total} answers" + (f" · {eta}" if eta else "") + f" · {cost}")
        now = time.monotonic()
        if done and now - self._last_refresh >= REFRESH_S:
            self._last_refresh = now
            self.scores_written.emit(self.scorer())

    def _finish(self) -> None:
        self.worker = None
        for w in (self.scorer_combo, self.close_button):
            w.setEnabled(True)
        self.judge_combo.setEnabled(judge_use(self.scorer()) != "none")
        for w in (self.official_edit, self.official_browse):
            w.setEnabled(self._benchmark() is not None)
        self.cancel_button.setEnabled(False)
        self._update_score_button()

    def _on_done(self, report: Any) -> None:
        self.report = report
        self._finish()
        cost = ("" if not report.judge else f"; judge {report.judge}: {report.judge_calls} calls, "
                f"{report.judge_cache_hits} from the cache, cost "
                + ("unknown" if report.judge_cost_usd is None else f"${report.judge_cost_usd:.4f}"))
        done, total = self._reached
        if report.cancelled:
            # the bar stays where scoring stopped: a full bar would say every answer was reached
            cached = "; the judge's replies so far are cached" if report.judge else ""
            head = f"Cancelled after {done} of {total} answers ({total - done} not reached: Score again{cached}): "
        else:
            head = f"Done: {report.answers} answers, "
            self.progress.setRange(0, 1)
            self.progress.setValue(1)
        text = (f"{head}{report.scored} scored, "
                f"{report.unscored} unscored" + (f" ({report.failed_answers} failed model calls)"
                                                  if report.failed_answers else "")
                + (f", {report.kept_overrides} set by a person kept" if report.kept_overrides else "")
                + report.currency_text + cost)
        self.progress_label.setText(text)
        self.status.emit(text)
        self.scores_written.emit(report.scorer)
        self.scored.emit(report)
        self._estimate()

    def _on_error(self, message: str) -> None:
        self._finish()
        self.progress_label.setText(f"Scoring stopped: {message} (the batches scored before it are kept)")
        self.status.emit(f"Scoring stopped: {message}")
        self.scores_written.emit(self.scorer())

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if self.worker is not None:          # scoring goes on in the worker: do not close under it
            event.ignore()
            self.status.emit("Scoring is running: Cancel first")
            return
        super().closeEvent(event)

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Escape and self.worker is not None:
            self.cancel()
            return
        super().keyPressEvent(event)


def _estimate(project: Project, scorer: str, judge: str | None, official_source: Path | None, *,
              progress: Any = None, cancelled: Any = None) -> Any:
    """``estimate_scoring`` for a worker (which passes progress and cancelled, unused here)."""
    return estimate_scoring(project, scorer, None, judge, official_source=official_source)


def _describe_source(source: OfficialSource) -> str:
    """The official row's text: files, versions and fingerprints, then the judge settings they set."""
    model = (f"judge model {source.settings.model} in the benchmark's code (the judge profile's model is the one "
             "asked); " if source.settings.model else "")
    return f"{source.describe()}.\nOfficial judge settings: {model}{source.settings.describe()}."


def _first_scorer(project: Project, profile_names: list[str]) -> str:
    """The scorer the dialog opens on when none is shown yet: the one ``fieldstudio score`` proposes
    (``scoring.default_scorer``), with a judge when the dialog will choose one (the profile scored with
    last, else the only one). A scorer that needs a judge while there is no profile is proposed all the
    same, disabled: the note says why, as the command line stops with "needs a judge"."""
    last = settings.get(user_settings.LAST_JUDGE)
    return scoring.default_scorer(project, judged=last in profile_names or len(profile_names) == 1)


def _profile_names() -> list[str]:
    """The model profiles a judge can be (``inference.profiles.load_profiles``); [] when none can be read."""
    from fieldstudio.inference.base_urls import ProfileError
    from fieldstudio.inference.profiles import load_profiles

    try:
        return sorted(load_profiles())
    except (ProfileError, OSError):
        return []
