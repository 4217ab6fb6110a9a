"""The Run panel: run selected model profiles over selected tasks, watch it, and read past runs' answers.

Top left, the new run: tasks (all, one category, or ids; scenario, answer type, "no answer yet"), model
profiles (checked; "Model profiles…" edits them), a prompt strategy and its sampling settings, and the
estimate of requests, tokens and cost. Top right, the run in progress: a bar (answers finished / total),
the task answered last, tokens and cost so far, ETA, and every failed task with its error. Bottom, the
project's runs (status, counts, cost, duration) and the answers of the selected run with their details.

Everything is done by headless services: `inference.runs.batch` (plan, create, execute),
`inference.runs.provider_batch` ("Run as batch": the provider's Batch API), `run_views` (lists and live
totals) and `run_estimate`. Execution runs in a `workers.Worker`; Stop sets its cancel
flag: requests in flight finish and are stored, the rest stay pending, and Resume (or Start with the
same choice) continues without asking a finished task again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QGroupBox, QHBoxLayout, QLabel, QListWidgetItem, QProgressBar, QPushButton, QSplitter,
                               QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import workers
from fieldstudio.gui.panels.model_profiles import ModelProfilesDialog
from fieldstudio.gui.panels.run_choice import (SCOPE_ALL, SCOPE_CATEGORY, SCOPE_IDS, EstimateAnswer, EstimateAsk,
                                              RunChoice, estimate_for)
from fieldstudio.gui.panels.run_history import RunHistory
from fieldstudio.gui.panels.run_tables import ERROR_COLUMNS, RowsModel, duration, make_table
from fieldstudio.gui.panels.sweep_dialog import SweepDialog
from fieldstudio.inference import profiles as profile_store
from fieldstudio.inference.runs import batch as run_batch
from fieldstudio.inference.runs import estimate as run_estimate
from fieldstudio.inference.runs import ocr_answers
from fieldstudio.inference.runs import provider_batch
from fieldstudio.inference.runs import views as run_views
from fieldstudio.inference.runs.batch import BatchResult
from fieldstudio.inference.strategies import default_strategy_for, get_strategy
from fieldstudio.store.project import Project

@dataclass
class Opening:
    """What the Runs tab reads of a project it opens: its tasks' ``facets`` (``run_views.task_facets``), the
    ``strategy`` ``fieldstudio run`` would choose (``default_strategy_for``) and its ``runs`` (``run_views.list_runs``,
    newest first)."""

    facets: run_views.TaskFacets
    strategy: str
    runs: list[run_views.RunRow]


def read_opening(project: Project, *, progress=None, cancelled=None) -> Opening:  # noqa: ANN001 - a worker's
    """The :class:`Opening` of ``project``, without Qt (a worker reads it)."""
    return Opening(run_views.task_facets(project), default_strategy_for(project), run_views.list_runs(project))


REFRESH_MS = 250
#: Seconds between two polls of a provider batch while the panel waits for it.
BATCH_POLL_S = 30.0


class RunPanel(RunChoice, QWidget):
    """Run models on demand and browse the answers.

    Signals:
        status(str): one-line messages for the status bar.
        open_task(str): a task id, when an answer row is double-clicked.
        runs_changed(): a run was created, finished, stopped or deleted (e.g. to refresh a comparison).
        loaded(): an opened project's tasks and runs are shown (read on a worker, ``read_opening``).
    """

    status = Signal(str)
    open_task = Signal(str)
    runs_changed = Signal()
    loaded = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.worker: workers.Worker | None = None
        self._opening: workers.Worker | None = None   # reading an opened project's facets and runs
        self._estimating: workers.Worker | None = None    # the last estimate asked of a worker
        self._estimate_generation = 0
        self._opening_generation = 0
        self._ocr_worker: workers.Worker | None = None
        self.active_runs: list[str] = []
        self._started_at = 0.0
        self._done_at_start = 0
        self._last_progress = (0, 0)
        self._strategy_chosen = self._proposing = False   # once a strategy is picked, the tasks no longer move it
        self._profiles_dialog: ModelProfilesDialog | None = None
        self._estimate_timer = QTimer(self, singleShot=True, interval=200, timeout=self._estimate_soon)
        self._refresh_timer = QTimer(self, singleShot=True, interval=REFRESH_MS, timeout=self.refresh_live)

        setup = self._build_setup()
        live = self._build_live()
        self.history = RunHistory()
        self.history.resume_requested.connect(self.resume)
        self.history.open_task.connect(self.open_task)
        self.history.deleted.connect(self._run_deleted)
        self.history.status.connect(self.status)
        self.history.records.imported.connect(self.runs_changed)
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(setup), top.addWidget(live)
        top.setSizes([520, 620])
        outer = QSplitter(Qt.Orientation.Vertical)
        outer.addWidget(top), outer.addWidget(self.history)
        outer.setSizes([430, 360])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(outer)
        self._add_shortcuts()
        self.set_project(None)

    # -- construction ----------------------------------------------------------------------------

    def _build_live(self) -> QWidget:
        box = QGroupBox("Run in progress")
        layout = QVBoxLayout(box)
        self.progress = QProgressBar()
        self.progress.setObjectName("progress")
        self.progress.setFormat("%v / %m answers")
        self.progress_label = QLabel("No run yet.")
        self.progress_label.setObjectName("progress_label")
        self.current_label = QLabel("")
        self.current_label.setObjectName("current_label")
        self.usage_label = QLabel("")
        self.usage_label.setObjectName("usage_label")
        self.message = QLabel("")
        self.message.setObjectName("run_message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cancel_button = QPushButton("Stop")
        self.cancel_button.setObjectName("cancel")
        self.cancel_button.setToolTip("Stop after the requests in flight (Esc); finished answers are kept and "
                                      "Resume continues without paying for them again")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        self.errors_model = RowsModel(ERROR_COLUMNS, self)
        self.errors = make_table(self.errors_model, "errors")
        layout.addLayout(row)
        for w in (self.progress_label, self.current_label, self.usage_label, self.message):
            layout.addWidget(w)
        layout.addWidget(QLabel("Failed tasks (the run goes on):"))
        layout.addWidget(self.errors, 1)
        return box

    def _add_shortcuts(self) -> None:
        for keys, slot, tip in (("Ctrl+Return", self.start, "Start"), ("Esc", self.cancel, "Stop")):
            action = QAction(tip, self)
            action.setShortcut(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    # -- project -----------------------------------------------------------------------------------

    def set_project(self, project: Project | None) -> None:
        """Show `project`'s tasks and runs (None: an empty, disabled panel), with the choice of tasks back at
        "All tasks" and nothing of the previous project's run on show. A running run keeps running."""
        self.project = project
        self.setEnabled(project is not None)
        self._forget_choice()
        self.reload_profiles()
        self._opening_generation += 1
        if self._opening is not None:
            self._opening.cancel()
            self._opening = None
        if project is None:
            self.history.set_project(None)
            self.category.clear()
            self.loaded.emit()
            return
        # the project's facets and runs are read on a worker (150-300 ms of SQL on the window's thread before)
        self._strategy_chosen = False
        self.history.set_project(project, rows=[])
        gen = self._opening_generation
        worker = self._opening = workers.Worker(read_opening, project)
        worker.signals.result.connect(lambda opening: self._opened(gen, opening))
        worker.signals.error.connect(lambda message: self._open_failed(gen, message))
        workers.start(worker)

    def loading(self) -> bool:
        """True while the opened project's tasks and runs are being read (``loaded`` comes when they are shown)."""
        return self._opening is not None

    def _opened(self, gen: int, opening: Opening) -> None:
        if gen != self._opening_generation or not shiboken6.isValid(self.history):
            return                       # another project was opened since, or the panel is gone
        self._show_facets(opening.facets)
        if not self._strategy_chosen:  # the strategy `fieldstudio run` chooses, until the user picks one
            self._select_strategy(opening.strategy)
        self._setup_changed()
        # the run list in the next step: its columns' measure is 40 ms and more of the window's thread by itself
        QTimer.singleShot(1, self, lambda: self._show_runs(gen, opening.runs))

    def _show_runs(self, gen: int, rows: list[run_views.RunRow]) -> None:
        if gen != self._opening_generation:
            return
        self._opening = None
        self.history.refresh(rows=rows)
        self.loaded.emit()

    def _open_failed(self, gen: int, message: str) -> None:
        if gen != self._opening_generation or not shiboken6.isValid(self.history):
            return
        self._opening = None
        self._message(f"Could not read the project's tasks and runs: {message}", error=True)

    def _open_now(self) -> None:
        """The opened project's read, done here (something changed before the worker's read came)."""
        if self._opening is not None and self.project is not None:
            opening = read_opening(self.project)
            self._opened(self._opening_generation, opening)
            self._show_runs(self._opening_generation, opening.runs)

    def _forget_choice(self) -> None:
        """The task choice and the live read-outs of the project left: a scope, ids or a run of another
        project must never stand beside this project's task count (Start would send what they no longer say)."""
        widgets = (self.scope, self.task_ids, self.unanswered, self.new_run, self.as_batch)
        for w in widgets:
            w.blockSignals(True)
        self.scope.setCurrentIndex(self.scope.findData(SCOPE_ALL))
        self.task_ids.clear()
        for box in (self.unanswered, self.new_run, self.as_batch):
            box.setChecked(False)
        for w in widgets:
            w.blockSignals(False)
        self.errors_model.set_rows([])
        if self.worker is None:  # a run still stopping reports into these when it ends
            self.active_runs = []
            self._last_progress = (0, 0)
            self.progress.reset()
            self.progress_label.setText("No run yet.")
            for label in (self.current_label, self.usage_label):
                label.clear()
            self._message("")
        self.task_count.clear()
        self.estimate.clear()

    def _read_facets(self) -> None:
        """The categories, scenarios and answer types of the project's tasks, keeping the ones chosen that
        still exist."""
        self._show_facets(run_views.task_facets(self.project))

    def _show_facets(self, facets: run_views.TaskFacets) -> None:
        for combo, values, any_text in ((self.category, facets.categories, None),
                                        (self.scenario, facets.scenarios, "any scenario"),
                                        (self.answer_type, facets.answer_types, "any answer type")):
            chosen = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            if any_text:
                combo.addItem(any_text, None)
            for value, n in values:
                combo.addItem(f"{value} ({n})", value)
            combo.setCurrentIndex(max(0, combo.findData(chosen)))
            combo.blockSignals(False)

    def on_tasks_imported(self) -> None:
        """Tasks were imported (File menu, Import a benchmark…): their categories, scenarios and answer types
        join the choice and the count follows."""
        if self.project is not None:
            self._open_now()
            self._read_facets()
            self._setup_changed()

    def reload_profiles(self) -> None:
        """List the stored model profiles, keeping the checked ones checked."""
        checked = set(self.checked_profile_names())
        self.profiles.blockSignals(True)
        self.profiles.clear()
        try:
            stored = profile_store.load_profiles()
        except FieldstudioError as exc:
            stored = {}
            self._message(str(exc), error=True)
        for name in sorted(stored, key=str.lower):
            p = stored[name]
            item = QListWidgetItem(f"{name}  —  {p.model}")
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(f"{p.shown_url}\nkey: {p.key_hint()}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in checked or len(stored) == 1
                               else Qt.CheckState.Unchecked)
            self.profiles.addItem(item)
        self.profiles.blockSignals(False)
        self._setup_changed()

    def show_profiles_dialog(self) -> ModelProfilesDialog:
        if self._profiles_dialog is None:
            self._profiles_dialog = ModelProfilesDialog(self)
            self._profiles_dialog.editor.profiles_changed.connect(self.reload_profiles)
            self._profiles_dialog.editor.status.connect(self.status)
        self._profiles_dialog.editor.reload()
        self._profiles_dialog.show()
        self._profiles_dialog.raise_()
        return self._profiles_dialog

    # -- the choice --------------------------------------------------------------------------------

    def _setup_changed(self) -> None:
        scope = self.scope.currentData()
        self.category.setEnabled(scope == SCOPE_CATEGORY)
        self.task_ids.setEnabled(scope == SCOPE_IDS)
        strategy = self.strategy.currentData()
        used = {p.name for p in self._strategy_parameters(strategy)}
        for name, widget in self.params.items():
            widget.setEnabled(name in used)
        try:
            self.strategy_help.setText(get_strategy(strategy).description)
        except FieldstudioError:
            self.strategy_help.setText("")
        self._update_batch_choice(strategy)
        self._estimate_timer.start()

    def _update_batch_choice(self, strategy: str) -> None:
        """"Run as batch" is offered when every ticked profile has a Batch API and the strategy sends one
        request per task; the tooltip says why when it is not."""
        profiles = self.selected_profiles()
        without = [p.name for p in profiles if not p.batch_api]
        try:
            single = get_strategy(strategy).single_request
        except FieldstudioError:
            single = False
        why = ("tick a model profile" if not profiles else
               f"{', '.join(without)}: no Batch API in the profile" if without else
               f"the {strategy} strategy sends several requests per task" if not single else "")
        self.as_batch.setEnabled(not why)
        if why:
            self.as_batch.setChecked(False)
        discounts = ", ".join(f"{p.name} -{p.batch_discount:.0%}" if p.batch_discount is not None
                              else f"{p.name}: discount unknown" for p in profiles)
        self.as_batch.setToolTip(f"Not available: {why}" if why else
                                 "Upload the requests as one batch (OpenAI Batch API, results within 24 h) and "
                                 f"collect them; batch price: {discounts}")

    def update_estimate(self) -> None:
        """Count the chosen tasks and estimate requests, tokens and cost for each checked profile, here."""
        if self.project is None:
            return
        try:
            ask = self.estimate_ask()
        except FieldstudioError as exc:
            self._show_estimate(EstimateAnswer(error=str(exc)), None)
            return
        answer = estimate_for(self.project, ask)
        if answer.propose is not None:    # the tasks propose another strategy: shown, and its estimate made
            self._select_strategy(answer.propose)
            ask = replace(self.estimate_ask(), strategy_chosen=True)
            answer = estimate_for(self.project, ask)
        self._show_estimate(answer, ask)

    def _estimate_soon(self) -> None:
        """:meth:`update_estimate` on a worker (the form's timer calls this): the window's thread only reads the
        form and shows the answer."""
        if self.project is None:
            return
        self._estimate_generation += 1
        try:
            ask = self.estimate_ask()
        except FieldstudioError as exc:
            self._show_estimate(EstimateAnswer(error=str(exc)), None)
            return
        gen, project = self._estimate_generation, self.project
        worker = self._estimating = workers.Worker(estimate_for, project, ask)
        worker.signals.result.connect(lambda answer: gen == self._estimate_generation and project is self.project
                                      and shiboken6.isValid(self.task_count) and self._show_estimate(answer, ask))
        workers.start(worker)

    def _show_estimate(self, answer: EstimateAnswer, ask: EstimateAsk | None) -> None:
        if answer.error is not None:
            self.task_count.setText(answer.error)
            self.estimate.setText("")
            self.start_button.setEnabled(False)
            return
        if answer.propose is not None:     # the tasks propose another strategy: shown, then estimated again
            self._select_strategy(answer.propose)
            if self.strategy.currentData() == answer.propose:
                self._estimate_timer.start()
                return
        self.task_count.setText(f"{len(answer.base)} task(s) chosen")
        self.start_button.setEnabled(bool(answer.base and ask and ask.profiles) and self.worker is None)
        if not (ask and ask.profiles):
            self.estimate.setText("Tick at least one model profile (or add one with \"Model profiles…\").")
            return
        self.estimate.setText(run_estimate.describe(answer.estimates, as_batch=ask.as_batch))

    # -- running -----------------------------------------------------------------------------------

    def start(self) -> workers.Worker | None:
        """Create (or resume) one run per checked profile over the chosen tasks and execute them in a worker."""
        if self.project is None or self.worker is not None:
            return None
        strategy = self.strategy.currentData()
        try:
            profiles = self.selected_profiles()
            if not profiles:
                raise FieldstudioError("tick at least one model profile")
            plan = []
            for profile in profiles:
                ids = self.task_ids_for(profile)
                if ids:
                    plan += run_batch.plan_batch(self.project, [profile], ids, strategy, new=self.new_run.isChecked())
            if not plan:
                raise FieldstudioError("no task matches the choice")
            run_ids = run_batch.create_batch(self.project, plan, strategy, params=self.strategy_params())
        except FieldstudioError as exc:
            self._message(f"Not started: {exc}", error=True)
            return None
        resumed = sum(1 for item in plan if item.total_tasks != len(item.pending_task_ids))
        note = f" ({resumed} resumed)" if resumed else ""
        batch = self.as_batch.isChecked() and self.as_batch.isEnabled()
        self.status.emit(f"{'Sending' if batch else 'Running'} {len(run_ids)} run(s){note} "
                         f"{'as batches ' if batch else ''}with strategy {strategy}")
        return self._execute(run_ids, [item.profile for item in plan], as_batch=batch)

    def show_sweep_dialog(self) -> SweepDialog | None:
        """Runs ▸ Sweep…: the sampling sweep dialog over the tasks chosen here, the first ticked profile proposed."""
        if self.project is None:
            return None
        try:
            task_ids = self.task_ids_for(None)
        except FieldstudioError as exc:
            self._message(f"No sweep: {exc}", error=True)
            return None
        names = self.checked_profile_names()
        dialog = SweepDialog(self.project, task_ids, names[0] if names else None, self)
        dialog.status.connect(self.status)
        dialog.runs_changed.connect(lambda: (self.history.refresh(), self.runs_changed.emit()))
        dialog.show()
        self._sweep_dialog = dialog
        return dialog

    def answer_by_ocr(self) -> workers.Worker | None:
        """"OCR only…": answer the tasks chosen here with the text OCR reads in their photos and sampled video frames
        (`ocr_answers.answer_by_ocr`, no model profile), in a worker behind a progress dialog whose Cancel stops it
        after the task being read. The answer source "OCR only" is then in the history and in Compare."""
        if self.project is None or self.worker is not None or self._ocr_worker is not None:
            return None
        try:
            task_ids = self.task_ids_for(None)
        except FieldstudioError as exc:
            self._message(f"No OCR answers: {exc}", error=True)
            return None
        self._message("")
        self.status.emit(f"Reading the text in the photos and frames of {len(task_ids)} task(s) (OCR)…")
        worker = workers.run_with_progress(
            self, f"Reading the text in the photos and video frames of {len(task_ids)} task(s) (OCR)…",
            ocr_answers.answer_by_ocr, self.project, task_ids, title=ocr_answers.SOURCE_NAME,
            done=self._ocr_answers_done,
            failed=lambda message: self._message(f"OCR-only answers failed: {message}", error=True),
            ended=self._ocr_finished)
        self._ocr_worker = worker
        self.ocr_button.setEnabled(False)
        return worker

    def _ocr_answers_done(self, result: tuple) -> None:
        run_id, written, failed = result
        self._message(ocr_answers.outcome_text(run_id, written, failed), error=run_id is None or bool(failed))
        if run_id is not None:
            self.history.refresh(select=run_id)
            self.runs_changed.emit()

    def _ocr_finished(self) -> None:
        self._ocr_worker = None
        self.ocr_button.setEnabled(True)

    def resume(self, run_id: str, retry_failed: bool = False) -> workers.Worker | None:
        """Continue a run's pending answers with its stored profile (which must not have changed its model or
        base URL); with `retry_failed`, failed answers are asked again too."""
        if self.project is None or self.worker is not None:
            return None
        row = next(iter(run_views.list_runs(self.project, [run_id])), None)
        return self._execute([run_id], [None], retry_failed=retry_failed,
                             as_batch=row is not None and row.batch is not None)

    def _execute(self, run_ids: list[str], profiles: list, retry_failed: bool = False,
                 as_batch: bool = False) -> workers.Worker:
        assert self.project is not None
        self.active_runs = list(run_ids)
        self.errors_model.set_rows([])
        self._message("")
        concurrency = self.concurrency.value() or None
        if as_batch:  # a run sent as a batch is resumed as one: its open batches are collected by their ids
            worker = workers.Worker(provider_batch.send_and_collect, self.project, run_ids, profiles,
                                    use_cache=self.use_cache.isChecked(), retry_failed=retry_failed,
                                    interval_s=BATCH_POLL_S)
        elif retry_failed:
            worker = workers.Worker(run_batch.resume_with_retry, self.project, run_ids[0], concurrency=concurrency,
                                    use_cache=self.use_cache.isChecked())
        else:
            worker = workers.Worker(run_batch.execute_batch, self.project, run_ids, profiles,
                                    concurrency=concurrency, use_cache=self.use_cache.isChecked())
        worker.signals.progress.connect(self._on_progress)
        worker.signals.result.connect(self._on_result)
        worker.signals.error.connect(lambda message: self._message(f"The run failed: {message}", error=True))
        worker.signals.finished.connect(self._on_finished)
        self.worker = worker
        self._started_at = time.monotonic()
        self._done_at_start = -1
        self.start_button.setEnabled(False)
        self.history.set_busy(set(run_ids))
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Stop")
        self.progress_label.setText("Starting…")
        self.history.refresh(select=run_ids[0])
        self.runs_changed.emit()
        return workers.start(worker)

    def cancel(self) -> None:
        """Stop the run: requests in flight finish and are stored; the rest stay pending."""
        if self.worker is None:
            return
        self.worker.cancel()
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Stopping…")
        self.status.emit("Stopping after the requests in flight…")

    def is_running(self) -> bool:
        return self.worker is not None

    def _on_progress(self, done: int, total: int) -> None:
        if self._done_at_start < 0:
            self._done_at_start = done
        self._last_progress = (done, total)
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def refresh_live(self) -> None:
        """Read the live totals of the active runs from the project (the worker commits each answer)."""
        if self.project is None or not self.active_runs:
            return
        totals = run_views.live_totals(self.project, self.active_runs)
        done, total = self._last_progress
        eta = ""
        session_done = done - max(self._done_at_start, 0)
        if self.worker is not None and session_done > 0 and total > done:
            elapsed = time.monotonic() - self._started_at
            eta = f" · ETA {duration(elapsed / session_done * (total - done))}"
        self.progress_label.setText(f"{totals.finished} of {totals.total} finished: {totals.answered} answered, "
                                    f"{totals.failed} failed, {totals.from_cache} from cache{eta}")
        if totals.last_task is not None:
            task, profile = totals.last_task
            self.current_label.setText(f"Last answered: {task}" + (f" ({profile})" if profile else ""))
        self.usage_label.setText(f"Tokens: {totals.prompt_tokens:,} in / {totals.completion_tokens:,} out · "
                                 f"cost {totals.cost_text}")
        self.errors_model.set_rows(totals.errors)
        self.history.live_update(self.active_runs)

    def _on_result(self, result: BatchResult) -> None:
        self.refresh_live()
        lines = result.outcome_lines()
        self._message("\n".join(lines), error=bool(result.stopped))
        self.status.emit(("Run stopped: " if result.stopped or result.cancelled else "Run finished: ") + lines[-1])

    def _on_finished(self) -> None:
        self.worker = None
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Stop")
        self.history.set_busy(set())
        self.start_button.setEnabled(self.project is not None)
        self.refresh_live()
        self.history.refresh(select=self.active_runs[0] if self.active_runs else None)
        self._setup_changed()
        self.runs_changed.emit()

    def _run_deleted(self, name: str) -> None:
        self.status.emit(f"Deleted run {name}")
        self.runs_changed.emit()

    def _message(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #b00020;" if error else "")
        if text:
            self.status.emit(text.splitlines()[0])

