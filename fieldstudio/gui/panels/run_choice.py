"""The Run panel's choice: which tasks (all, one category, or ids; scenario, answer type, not answered yet), which
model profiles, which prompt strategy with its parameters and sampling settings. ``RunChoice`` builds those
widgets and reads them; ``RunPanel`` (``gui/panels/runs.py``) adds the estimate, the run and its history."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QPushButton, QScrollArea, QSpinBox, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.parameters import Parameter
from fieldstudio.inference import profiles as profile_store
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.run_records import select_tasks
from fieldstudio.inference.strategies import REGISTRY, form_parameters, get_strategy, strategy_names
from fieldstudio.store.data_version import data_version
from fieldstudio.store.project import Project

SCOPE_ALL, SCOPE_CATEGORY, SCOPE_IDS = "all", "category", "ids"


@dataclass(frozen=True)
class EstimateAsk:
    """A run as the form describes it (``RunChoice.estimate_ask``): the tasks (``ids`` typed, or None; a
    ``category``, ``scenario``, ``answer_type``, None for any; only those a profile has not answered yet with
    ``unanswered``), ``new_run``, ``as_batch``, the checked ``profiles``, the ``strategy`` shown, whether the user
    chose it (``strategy_chosen``; else the tasks propose one) and its ``params``."""

    ids: list[str] | None
    category: str | None
    scenario: str | None
    answer_type: str | None
    unanswered: bool
    new_run: bool
    as_batch: bool
    profiles: list[ModelProfile]
    strategy: str
    strategy_chosen: bool
    params: dict


@dataclass
class EstimateAnswer:
    """What :func:`estimate_for` found: the chosen tasks (``base``), the strategy they propose when the user chose
    none and it is not the one shown (``propose``: show it and estimate again; ``estimates`` is then empty), the
    estimate of each profile (``run_estimate.estimate_run``), or the ``error`` that stops the run."""

    base: list[str] = field(default_factory=list)
    propose: str | None = None
    estimates: list = field(default_factory=list)
    error: str | None = None


def estimate_for(project: Project, ask: EstimateAsk, *, progress=None, cancelled=None) -> EstimateAnswer:  # noqa: ANN001
    """The tasks, proposed strategy and estimates of ``ask``, without Qt (a worker makes them: at 100,000 tasks the
    window's thread spent seconds on them after every change of the form)."""
    from fieldstudio.inference.runs import batch as run_batch
    from fieldstudio.inference.runs import estimate as run_estimate
    from fieldstudio.inference.strategies import default_strategy_for

    def chosen(unanswered_by: str | None) -> list[str]:
        return select_tasks(project, ids=ask.ids, category=ask.category, scenario=ask.scenario,
                            answer_type=ask.answer_type, unanswered_by=unanswered_by)
    try:
        base, proposed = _kept_choice(project, ask) or (chosen(None), None)
        if not ask.strategy_chosen and base:   # follow the chosen tasks, as `fieldstudio run` does
            proposed = proposed or default_strategy_for(project, base)
        _keep_choice(project, ask, base, proposed)
        if not ask.strategy_chosen and base and proposed != ask.strategy:
            return EstimateAnswer(base, proposed)
        estimates = []
        for profile in ask.profiles:
            ids = chosen(profile.name) if ask.unanswered else base
            item = run_batch.plan_batch(project, [profile], ids, ask.strategy, new=ask.new_run)[0] if ids else None
            todo = item.pending_task_ids if item else []
            priced = profile.batch_priced() if ask.as_batch else profile
            estimates.append(run_estimate.estimate_run(project, priced, todo, ask.strategy, params=ask.params))
    except FieldstudioError as exc:
        return EstimateAnswer(error=str(exc))
    return EstimateAnswer(base, None, estimates)


_KEPT: dict[tuple, tuple[list[str], str | None]] = {}
_KEPT_LOCK = threading.Lock()


def _choice_key(project: Project, ask: EstimateAsk) -> tuple | None:
    """What the chosen tasks and their proposed strategy depend on: the project's file as last committed
    (``store.data_version``) and the form's selection; None where no version can be read (PostgreSQL)."""
    version = data_version(project)
    if version is None:
        return None
    return (str(project.path), version, None if ask.ids is None else tuple(ask.ids), ask.category, ask.scenario,
            ask.answer_type)


def _kept_choice(project: Project, ask: EstimateAsk) -> tuple[list[str], str | None] | None:
    """(the chosen tasks, their proposed strategy or None) kept by the last estimate of the same selection of the
    same unchanged project, or None. A proposal is followed by a second estimate of the same selection (the
    strategy shown changed): at 100,000 tasks reading them again cost 1.5-4 s of Python on the worker, which
    took the interpreter lock from the window's thread."""
    key = _choice_key(project, ask)
    with _KEPT_LOCK:
        return _KEPT.get(key) if key is not None else None


def _keep_choice(project: Project, ask: EstimateAsk, base: list[str], proposed: str | None) -> None:
    key = _choice_key(project, ask)
    if key is not None:
        with _KEPT_LOCK:
            _KEPT.clear()                  # one selection kept: the form's last
            _KEPT[key] = (base, proposed)


class RunChoice:
    """The widgets of the choice of a run and what they say, for ``RunPanel`` to inherit (with QWidget). They call
    back ``show_profiles_dialog``, ``start``, ``show_sweep_dialog``, ``answer_by_ocr`` and ``_setup_changed``, which the
    panel defines."""

    project: Project | None
    _strategy_chosen: bool
    _proposing: bool

    def _build_setup(self) -> QWidget:
        tasks = QGroupBox("Tasks")
        form = QFormLayout(tasks)
        self.scope = QComboBox()
        self.scope.setObjectName("scope")
        self.scope.addItem("All tasks", SCOPE_ALL)
        self.scope.addItem("One category", SCOPE_CATEGORY)
        self.scope.addItem("These task ids", SCOPE_IDS)
        self.category = QComboBox()
        self.category.setObjectName("category")
        self.task_ids = QLineEdit()
        self.task_ids.setObjectName("task_ids")
        self.task_ids.setPlaceholderText("benchmark ids or task ids, separated by commas or spaces")
        self.scenario = QComboBox()
        self.scenario.setObjectName("scenario")
        self.answer_type = QComboBox()
        self.answer_type.setObjectName("answer_type")
        self.unanswered = QCheckBox("Only tasks the model has not answered yet")
        self.unanswered.setObjectName("unanswered")
        self.task_count = QLabel("")
        self.task_count.setObjectName("task_count")
        form.addRow("Run on", self.scope)
        form.addRow("Category", self.category)
        form.addRow("Task ids", self.task_ids)
        form.addRow("Scenario", self.scenario)
        form.addRow("Answer type", self.answer_type)
        form.addRow("", self.unanswered)
        form.addRow("", self.task_count)

        models = QGroupBox("Models")
        models_layout = QVBoxLayout(models)
        self.profiles = QListWidget()
        self.profiles.setObjectName("profiles")
        self.profiles.setMaximumHeight(90)
        self.edit_profiles = QPushButton("Model profiles…")
        self.edit_profiles.setToolTip("Add, edit, remove and test model profiles")
        self.edit_profiles.clicked.connect(self.show_profiles_dialog)
        models_layout.addWidget(self.profiles)

        prompt = QGroupBox("Prompt strategy and sampling")
        pform = QFormLayout(prompt)
        self.strategy = QComboBox()
        self.strategy.setObjectName("strategy")
        for name in strategy_names():
            self.strategy.addItem(name, name)
            self.strategy.setItemData(self.strategy.count() - 1, get_strategy(name).description,
                                      Qt.ItemDataRole.ToolTipRole)
        self.strategy_help = QLabel("")
        self.strategy_help.setWordWrap(True)
        self.params: dict[str, QWidget] = {p.name: self._param_widget(p) for p in form_parameters()}
        self.concurrency = self._spin("concurrency", 0, 256, 0, "requests in flight; 0: each profile's own",
                                      special="profile's")
        self.use_cache = QCheckBox("Answer identical requests from the cache")
        self.use_cache.setChecked(True)
        self.new_run = QCheckBox("Start a new run (do not resume an unfinished one)")
        self.new_run.setObjectName("new_run")
        self.as_batch = QCheckBox("Run as batch (the provider's Batch API, at its batch price)")
        self.as_batch.setObjectName("as_batch")
        pform.addRow("Strategy", self.strategy)
        pform.addRow("", self.strategy_help)
        for p in form_parameters():        # the strategies' own parameters, read from the registry
            pform.addRow(p.label or p.name, self.params[p.name])
        pform.addRow("Concurrency", self.concurrency)
        pform.addRow("", self.use_cache)
        pform.addRow("", self.new_run)
        pform.addRow("", self.as_batch)

        self.estimate = QLabel("")
        self.estimate.setObjectName("estimate")
        self.estimate.setWordWrap(True)
        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("start")
        self.start_button.setToolTip("Start the run (Ctrl+Return)")
        self.start_button.clicked.connect(self.start)
        self.sweep_button = QPushButton("Sweep…")
        self.sweep_button.setObjectName("sweep")
        self.sweep_button.setToolTip("One model profile over these tasks with several frame budgets or strategies, "
                                     "compared on the same tasks (paired differences, evidence coverage, cost)")
        self.sweep_button.clicked.connect(lambda: self.show_sweep_dialog())
        self.ocr_button = QPushButton("OCR only…")
        self.ocr_button.setObjectName("ocr_only")
        self.ocr_button.setToolTip("Answer these tasks with the text OCR reads in their photos and video frames, on "
                                   "this machine (no model profile): the answer source \"OCR only\", a baseline "
                                   "for Compare")
        self.ocr_button.clicked.connect(lambda: self.answer_by_ocr())

        inner = QWidget()
        column = QVBoxLayout(inner)
        column.addWidget(tasks)
        column.addWidget(models)
        column.addWidget(prompt)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        setup = QWidget()        # the estimate and Start stay in view below the scrolling choices
        setup_layout = QVBoxLayout(setup)
        setup_layout.setContentsMargins(0, 0, 0, 0)
        setup_layout.addWidget(scroll, 1)
        setup_layout.addWidget(self.estimate)
        # "Model profiles…" sits beside Start, outside the scrolling choices: always in view, whatever the height
        buttons = QHBoxLayout()
        buttons.addWidget(self.edit_profiles)
        buttons.addWidget(self.start_button, 1)
        buttons.addWidget(self.sweep_button)
        buttons.addWidget(self.ocr_button)
        setup_layout.addLayout(buttons)

        for signal in (self.scope.currentIndexChanged, self.category.currentIndexChanged,
                       self.scenario.currentIndexChanged, self.answer_type.currentIndexChanged,
                       self.task_ids.textChanged, self.unanswered.toggled, self.profiles.itemChanged,
                       self.strategy.currentIndexChanged, self.new_run.toggled, self.as_batch.toggled):
            signal.connect(self._setup_changed)
        self.strategy.currentIndexChanged.connect(lambda _i: setattr(self, "_strategy_chosen", not self._proposing))
        for widget in self.params.values():
            changed = widget.currentIndexChanged if isinstance(widget, QComboBox) else widget.valueChanged
            changed.connect(self._setup_changed)
        return setup

    def _param_widget(self, p: Parameter) -> QWidget:
        """A strategy parameter's widget: a list of its choices, else a number box in its range; a parameter
        without a default (the strategy's or profile's own) starts at "default" and is then not sent."""
        if p.choices:
            combo = QComboBox()
            combo.setObjectName(p.name)
            if p.default is None:
                combo.addItem("strategy default", None)
            for choice in p.choices:
                combo.addItem(choice, choice)
            combo.setCurrentIndex(max(0, combo.findData(p.default)))
            combo.setToolTip(p.help)
            return combo
        low = int(p.low if p.low is not None else 0)
        if p.default is None:                 # one below the range reads "default": not sent
            return self._spin(p.name, low - 1, int(p.high), low - 1, p.help, p.unit, special="default")
        return self._spin(p.name, low, int(p.high), int(p.default), p.help, p.unit)

    def _spin(self, name: str, lo: int, hi: int, value: int, tip: str, suffix: str = "",
              special: str | None = None) -> QSpinBox:
        spin = QSpinBox()
        spin.setObjectName(name)
        spin.setRange(lo, hi)
        spin.setValue(value)
        spin.setToolTip(tip)
        if suffix:
            spin.setSuffix(suffix)
        if special:
            spin.setSpecialValueText(special)
        return spin

    def checked_profile_names(self) -> list[str]:
        return [self.profiles.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.profiles.count())
                if self.profiles.item(i).checkState() == Qt.CheckState.Checked]

    def set_profile_checked(self, name: str, checked: bool = True) -> None:
        for i in range(self.profiles.count()):
            item = self.profiles.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == name:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def set_task_selection(self, task_ids: list[str]) -> None:
        """Run on these tasks (e.g. the rows selected in a tasks panel)."""
        self.task_ids.setText(", ".join(task_ids))
        self.scope.setCurrentIndex(self.scope.findData(SCOPE_IDS))

    def _select_strategy(self, name: str) -> None:   # the same index again emits nothing: no estimate loop
        self._proposing = True
        self.strategy.setCurrentIndex(max(0, self.strategy.findData(name)))
        self._proposing = False

    @staticmethod
    def _strategy_parameters(strategy: str | None) -> list[Parameter]:
        """The parameters of ``strategy`` the form shows (none for an unknown strategy)."""
        known = REGISTRY.get(strategy or "")
        return [p for p in known.parameters if not p.advanced] if known is not None else []

    def strategy_params(self) -> dict:
        """The strategy parameters chosen (only those the strategy reads and that differ from 'default')."""
        out: dict = {}
        for p in self._strategy_parameters(self.strategy.currentData()):
            widget = self.params[p.name]
            value = widget.currentData() if isinstance(widget, QComboBox) else widget.value()
            if value in (None, 0):
                continue
            out[p.name] = p.type(value)
        return out

    def selected_profiles(self) -> list[ModelProfile]:
        names = self.checked_profile_names()
        stored = profile_store.load_profiles()
        return [stored[n] for n in names if n in stored]

    def estimate_ask(self) -> EstimateAsk:
        """The run the form describes, read here on the window's thread for :func:`estimate_for` (on a worker).
        Raises FieldstudioError when the form names no tasks to read (no ids typed, no category)."""
        assert self.project is not None
        ids, category = self._scope_asked()
        return EstimateAsk(ids, category, self.scenario.currentData(), self.answer_type.currentData(),
                           self.unanswered.isChecked(),
                           self.new_run.isChecked(), self.as_batch.isChecked(), self.selected_profiles(),
                           self.strategy.currentData(), self._strategy_chosen, self.strategy_params())

    def _scope_asked(self) -> tuple[list[str] | None, str | None]:
        """(the task ids typed or None, the category chosen or None) of the scope. Raises FieldstudioError when the
        scope names nothing: no ids typed, no category chosen."""
        scope = self.scope.currentData()
        ids = None
        if scope == SCOPE_IDS:
            ids = [t for t in self.task_ids.text().replace(",", " ").split() if t.strip()]
            if not ids:
                raise FieldstudioError("type the task ids to run on")
        if scope == SCOPE_CATEGORY and self.category.currentData() is None:
            # no category is not "every category": the count must say what Start would send
            raise FieldstudioError("choose a category" if self.category.count()
                                   else "no category to choose: this project's tasks have none")
        return ids, self.category.currentData() if scope == SCOPE_CATEGORY else None

    def task_ids_for(self, profile: ModelProfile | None) -> list[str]:
        """The tasks chosen (for `profile` when "not answered yet" is ticked). Raises NotFound for an unknown id."""
        assert self.project is not None
        ids, category = self._scope_asked()
        return select_tasks(self.project, ids=ids, category=category, scenario=self.scenario.currentData(),
                            answer_type=self.answer_type.currentData(),
                            unanswered_by=profile.name if profile is not None and self.unanswered.isChecked()
                            else None)
