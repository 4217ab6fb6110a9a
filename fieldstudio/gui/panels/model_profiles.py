"""The model profiles dialog: list, add, edit and remove OpenAI-compatible endpoints, and test them.

Profiles are the user's (``fieldstudio.inference.profiles``: a JSON file in the config folder), shared with
``fieldstudio models``. An API key is never shown: it is typed into a password field and goes straight to
the OS keyring, or the profile names an environment variable. Base URLs with credentials are shown masked;
saving a masked URL unchanged keeps the stored one. "Test connection" runs `probe.test_profile` in a worker
and stores what it found with the profile, as ``fieldstudio models test`` does.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPlainTextEdit, QPushButton, QScrollArea, QSpinBox, QSplitter, QTableView,
                               QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import workers
from fieldstudio.gui.panels.privacy_gate_form import PrivacyGateForm
from fieldstudio.gui.panels.run_tables import PROFILE_COLUMNS, RowsModel
from fieldstudio.inference import profiles as store
from fieldstudio.inference.probe import ProbeReport, test_profile
from fieldstudio.inference.profiles import IMAGE_DETAILS, MIN_MAX_REPLY_BYTES, PRESET_KEY_ENV, PRESETS, ModelProfile

KEY_NONE, KEY_ENV, KEY_KEYRING = "none", "env", "keyring"
_KEY_LABELS = ((KEY_NONE, "No key (local server)"), (KEY_ENV, "Environment variable"), (KEY_KEYRING, "OS keyring"))
_PRESET_LABELS = {"openai": "OpenAI", "openrouter": "OpenRouter", "ollama": "Ollama", "vllm": "vLLM",
                  "lmstudio": "LM Studio", "llamacpp": "llama.cpp server"}


def probe_profile(profile: ModelProfile, *, progress=None, cancelled=None) -> ProbeReport:  # noqa: ANN001
    """`test_profile` in the worker's calling convention (the probe is short and not cancellable)."""
    return test_profile(profile)


def report_text(report: ProbeReport) -> str:
    """The probe's steps and a closing verdict, in plain words (as ``fieldstudio models test`` prints them)."""
    marks = {True: "ok  ", False: "FAIL", None: "--  "}
    lines = [f"{marks[step.ok]} {step.name}: {step.detail}" for step in report.steps]
    if report.ok:
        images = {True: "accepts images", False: "does NOT accept images",
                  None: "image support unknown"}[report.images_accepted]
        lines.append(f"{report.profile_name}: answers text and {images}.")
    else:
        lines.append(f"{report.profile_name}: not usable yet — " + (report.problems[0] if report.problems else
                                                                   "no answer"))
    return "\n".join(lines)


def _optional_float(edit: QLineEdit, label: str) -> float | None:
    text = edit.text().strip().replace(",", ".")
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise FieldstudioError(f"{label}: {edit.text()!r} is not a number (leave it empty if unknown)") from None


def _optional_int(edit: QLineEdit, label: str) -> int | None:
    text = edit.text().strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise FieldstudioError(f"{label}: {edit.text()!r} is not a whole number") from None


def _text(value: object) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


class ModelProfilesEditor(QWidget):
    """The profile list on the left, the selected profile's form on the right, and the test result below.

    Signals: ``profiles_changed()`` after a save or removal; ``status(str)`` with a one-line message.
    """

    profiles_changed = Signal()
    status = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._profiles: dict[str, ModelProfile] = {}
        self._editing: ModelProfile | None = None
        self._worker: workers.Worker | None = None

        self.model = RowsModel(PROFILE_COLUMNS, self)
        self.table = QTableView()
        self.table.setObjectName("profiles_table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._show_row(cur.row()))

        self._build_form()
        self.new_button = QPushButton("New")
        self.new_button.setToolTip("Start a new profile")
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Save this profile (Ctrl+S)")
        self.save_button.setShortcut("Ctrl+S")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove this profile (and its key from the OS keyring)")
        self.test_button = QPushButton("Test connection")
        self.test_button.setToolTip("Save, then send a text request, a test image, JSON mode and a stream; "
                                    "report what works (Ctrl+T)")
        self.test_button.setShortcut("Ctrl+T")
        self.new_button.clicked.connect(self.new_profile)
        self.save_button.clicked.connect(self.save)
        self.remove_button.clicked.connect(self.remove)
        self.test_button.clicked.connect(self.test_connection)
        buttons = QHBoxLayout()
        for b in (self.new_button, self.save_button, self.remove_button, self.test_button):
            buttons.addWidget(b)
        buttons.addStretch(1)

        self.result = QPlainTextEdit()
        self.result.setObjectName("test_result")
        self.result.setReadOnly(True)
        self.result.setPlaceholderText("Messages and the result of \"Test connection\" appear here.")
        self.result.setMaximumHeight(150)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form_widget)
        right_layout.addWidget(scroll, 1)
        right_layout.addLayout(buttons)
        split = QSplitter()
        split.addWidget(self.table)
        split.addWidget(right)
        split.setSizes([540, 440])
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addWidget(self.result)
        self.reload()
        self.new_profile()

    # -- form ----------------------------------------------------------------------------------

    def _build_form(self) -> None:
        self.form_widget = QWidget()
        form = QFormLayout(self.form_widget)
        self.name = QLineEdit()
        self.name.setPlaceholderText("e.g. qwen-local or gpt-4o-mini")
        self.preset = QComboBox()
        self.preset.addItem("Custom", None)
        for key, label in _PRESET_LABELS.items():
            self.preset.addItem(label, key)
        self.preset.currentIndexChanged.connect(self._preset_chosen)
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("http://localhost:11434/v1 (/v1 is added when missing)")
        self.model_id = QLineEdit()
        self.model_id.setPlaceholderText("model id sent with each request, e.g. qwen2.5vl:7b")
        self.key_source = QComboBox()
        for key, label in _KEY_LABELS:
            self.key_source.addItem(label, key)
        self.key_source.currentIndexChanged.connect(self._key_source_changed)
        self.key_env = QLineEdit()
        self.key_env.setPlaceholderText("NAME of the variable, e.g. OPENAI_API_KEY (not the key)")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setToolTip("Typed keys go to the OS keyring and are never shown or stored in a file")
        self.price_in, self.price_out, self.price_cached, self.price_reasoning = (QLineEdit() for _ in range(4))
        for edit, hint in ((self.price_in, "USD per million input tokens"),
                           (self.price_out, "USD per million output tokens"),
                           (self.price_cached, "empty: charged at the input price"),
                           (self.price_reasoning, "empty: charged at the output price")):
            edit.setPlaceholderText(hint)
        self.prices_date = QLineEdit()
        self.prices_date.setPlaceholderText("when the prices were read, e.g. 2026-03-01")
        self.cost_per_hour = QLineEdit()
        self.cost_per_hour.setPlaceholderText("local model or rented GPU: USD per hour; empty: unknown")
        self.cost_per_hour.setToolTip("With no token prices, a reply costs its latency at this rate, so a local "
                                      "model has a cost per correct answer (never a silent $0)")
        self.batch_api = QCheckBox("offers a Batch API")
        self.batch_api.setToolTip("The endpoint serves OpenAI's Batch API (/v1/files and /v1/batches): runs can be "
                                  "sent as batches, at the batch price")
        self.batch_discount = QLineEdit()
        self.batch_discount.setPlaceholderText("fraction off each price, e.g. 0.5; empty: unknown")
        self.max_images = QSpinBox()
        self.max_images.setRange(0, 1000)
        self.max_images.setSpecialValueText("no limit")
        self.max_request = QSpinBox()
        self.max_request.setRange(0, 1_000_000)
        self.max_request.setSuffix(" kB")
        self.max_request.setSpecialValueText("no limit")
        self.max_request.setToolTip("Largest request the endpoint accepts: a larger one is sent at a lower JPEG "
                                    "quality or with fewer frames, and the answer says so")
        self.detail = QComboBox()
        self.detail.addItems(list(IMAGE_DETAILS))
        self.longest_side = QSpinBox()
        self.longest_side.setRange(16, 16384)
        self.longest_side.setSuffix(" px")
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(0.1, 3600)
        self.timeout.setDecimals(1)
        self.timeout.setSuffix(" s")
        self.timeout.setToolTip("Read timeout: the longest silence allowed within a reply.")
        self.deadline = QDoubleSpinBox()
        self.deadline.setRange(1, 86400)
        self.deadline.setDecimals(0)
        self.deadline.setSuffix(" s")
        self.deadline.setToolTip("Overall deadline of one call: connecting, the whole reply and the retries.")
        self.max_reply = QSpinBox()
        self.max_reply.setRange(MIN_MAX_REPLY_BYTES // 1000 + 1, 2_000_000)
        self.max_reply.setSuffix(" kB")
        self.max_reply.setToolTip("Size cap of one reply: a longer reply is cut there and flagged, never stored whole.")
        self.retries = QSpinBox()
        self.retries.setRange(0, 20)
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 256)
        self.temperature = QLineEdit()
        self.temperature.setPlaceholderText("empty: not sent")
        self.seed = QLineEdit()
        self.seed.setPlaceholderText("empty: not sent")
        for label, widget in (("Name", self.name), ("Server type", self.preset), ("Base URL", self.base_url),
                              ("Model id", self.model_id), ("API key from", self.key_source),
                              ("Variable name", self.key_env), ("API key", self.key),
                              ("Price in (USD/Mtok)", self.price_in), ("Price out (USD/Mtok)", self.price_out),
                              ("Price cached (USD/Mtok)", self.price_cached),
                              ("Price reasoning (USD/Mtok)", self.price_reasoning), ("Prices date", self.prices_date),
                              ("Cost per hour (USD)", self.cost_per_hour),
                              ("Batch API", self.batch_api), ("Batch discount", self.batch_discount),
                              ("Max images / request", self.max_images), ("Max request size", self.max_request),
                              ("Image detail", self.detail),
                              ("Longest image side", self.longest_side), ("Timeout", self.timeout),
                              ("Deadline", self.deadline), ("Max reply size", self.max_reply),
                              ("Retries", self.retries), ("Concurrency", self.concurrency),
                              ("Temperature", self.temperature), ("Seed", self.seed)):
            widget.setObjectName(label.split(" (")[0].lower().replace(" ", "_").replace("/", "per"))
            form.addRow(label, widget)
        self.privacy = PrivacyGateForm(self.form_widget)
        self.privacy.add_rows(form)
        self.base_url.textChanged.connect(self.privacy.url_changed)

    def _preset_chosen(self) -> None:
        preset = self.preset.currentData()
        if preset is None:
            return
        self.base_url.setText(PRESETS[preset])
        if preset in PRESET_KEY_ENV and self.key_source.currentData() == KEY_NONE:
            self.key_source.setCurrentIndex(self.key_source.findData(KEY_ENV))
            self.key_env.setText(PRESET_KEY_ENV[preset])

    def _key_source_changed(self) -> None:
        source = self.key_source.currentData()
        self.key_env.setEnabled(source == KEY_ENV)
        self.key.setEnabled(source == KEY_KEYRING)
        self._key_placeholder()

    def _key_placeholder(self) -> None:
        if self.key_source.currentData() != KEY_KEYRING:
            self.key.setPlaceholderText("")
            return
        stored = False
        if self._editing is not None and self._editing.use_keyring:
            try:
                stored = store.resolve_api_key(self._editing) is not None
            except FieldstudioError:
                stored = False
        self.key.setPlaceholderText("•••• a key is stored in the OS keyring; type to replace it" if stored
                                    else "paste the key; it goes to the OS keyring")

    def _fill(self, p: ModelProfile | None) -> None:
        self._editing = p
        d = p or ModelProfile(name="new", base_url="http://localhost:11434/v1", model="model")
        self.name.setText(p.name if p else "")
        self.name.setReadOnly(p is not None)
        self.preset.blockSignals(True)
        self.preset.setCurrentIndex(max(0, self.preset.findData(p.preset if p else None)))
        self.preset.blockSignals(False)
        self.base_url.setText(p.shown_url if p else "")
        self.model_id.setText(p.model if p else "")
        self.key_source.setCurrentIndex(self.key_source.findData(d.key_source if p else KEY_NONE))
        self.key_env.setText(d.api_key_env or "" if p else "")
        self.key.clear()
        for edit, value in ((self.price_in, p and p.price_input_per_mtok),
                            (self.price_out, p and p.price_output_per_mtok),
                            (self.price_cached, p and p.price_cached_per_mtok),
                            (self.price_reasoning, p and p.price_reasoning_per_mtok),
                            (self.prices_date, p and p.prices_date), (self.cost_per_hour, d.cost_per_hour_usd),
                            (self.temperature, d.temperature),
                            (self.seed, d.seed)):
            edit.setText(_text(value))
        self.batch_api.setChecked(d.batch_api)
        self.batch_discount.setText(_text(d.batch_discount))
        self.max_images.setValue(d.max_images_per_request or 0)
        self.max_request.setValue((d.max_request_bytes or 0) // 1000)
        self.detail.setCurrentText(d.image_detail)
        self.longest_side.setValue(d.longest_image_side)
        self.timeout.setValue(d.timeout_s)
        self.deadline.setValue(d.deadline_s)
        self.max_reply.setValue(max(d.max_reply_bytes // 1000, self.max_reply.minimum()))
        self.retries.setValue(d.retries)
        self.concurrency.setValue(d.concurrency)
        self._key_source_changed()
        self.privacy.show_profile(p)
        self.remove_button.setEnabled(p is not None)

    def form_profile(self) -> ModelProfile:
        """The profile the form describes (not saved). Raises FieldstudioError naming the wrong field."""
        base_url = self.base_url.text().strip()
        kept_url = self._editing is not None and base_url == self._editing.shown_url
        if kept_url:
            base_url = self._editing.base_url      # the masked URL was left as it was: keep the credentials
        source = self.key_source.currentData()
        previous = self._editing
        privacy, lan_ranges = self.privacy.values()
        profile = ModelProfile(
            name=self.name.text(), base_url=base_url, model=self.model_id.text(), preset=self.preset.currentData(),
            api_key_env=self.key_env.text() if source == KEY_ENV else None, use_keyring=source == KEY_KEYRING,
            price_input_per_mtok=_optional_float(self.price_in, "Price in"),
            price_output_per_mtok=_optional_float(self.price_out, "Price out"),
            price_cached_per_mtok=_optional_float(self.price_cached, "Price cached"),
            price_reasoning_per_mtok=_optional_float(self.price_reasoning, "Price reasoning"),
            prices_date=self.prices_date.text().strip() or None,
            cost_per_hour_usd=_optional_float(self.cost_per_hour, "Cost per hour"), batch_api=self.batch_api.isChecked(),
            batch_discount=_optional_float(self.batch_discount, "Batch discount"),
            max_images_per_request=self.max_images.value() or None,
            max_request_bytes=self.max_request.value() * 1000 or None, image_detail=self.detail.currentText(),
            longest_image_side=self.longest_side.value(), timeout_s=self.timeout.value(),
            deadline_s=self.deadline.value(), max_reply_bytes=self.max_reply.value() * 1000,
            retries=self.retries.value(), concurrency=self.concurrency.value(),
            temperature=_optional_float(self.temperature, "Temperature"), seed=_optional_int(self.seed, "Seed"),
            privacy=privacy, lan_ranges=lan_ranges, privacy_bodies=self.privacy.blur_bodies())
        if kept_url:
            profile.url_secret_mask = previous.url_secret_mask   # its secret stays where it is (the keyring)
        if source == KEY_ENV and not profile.api_key_env:
            raise FieldstudioError("Variable name: give the NAME of the environment variable that holds the key")
        if previous is not None and (previous.base_url, previous.model) == (profile.base_url, profile.model):
            profile.capabilities = previous.capabilities     # what the last test found still holds
        return profile

    # -- list ----------------------------------------------------------------------------------

    def reload(self, select: str | None = None) -> None:
        """Read the profiles again (another window or the CLI may have changed them); select `select`."""
        try:
            self._profiles = store.load_profiles()
        except FieldstudioError as exc:
            self._profiles = {}
            self._say(str(exc))
        rows = sorted(self._profiles.values(), key=lambda p: p.name.lower())
        self.model.set_rows(rows)
        if select is not None:
            for i, p in enumerate(rows):
                if p.name == select:
                    self.table.selectionModel().setCurrentIndex(
                        self.model.index(i, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                        | QItemSelectionModel.SelectionFlag.Rows)

    def _show_row(self, row: int) -> None:
        if 0 <= row < len(self.model.rows):
            self._fill(self.model.rows[row])

    def new_profile(self) -> None:
        self.table.clearSelection()
        self._fill(None)
        self.name.setFocus()

    def select(self, name: str) -> None:
        self.reload(select=name)

    def _say(self, message: str) -> None:
        self.result.setPlainText(message)
        self.status.emit(message.splitlines()[0] if message else "")

    # -- actions -------------------------------------------------------------------------------

    def save(self) -> ModelProfile | None:
        """Save the form (a typed key goes to the OS keyring); returns the saved profile or None on an error."""
        try:
            profile = self.form_profile()
            typed_key = self.key.text().strip()
            if profile.use_keyring:
                if typed_key:
                    store.store_key_in_keyring(profile.name, typed_key)
                else:
                    store.resolve_api_key(profile)      # raises, naming the keyring entry, when there is none
            if self._editing is None:
                store.add_profile(profile)
            else:
                store.update_profile(profile)
                if self._editing.use_keyring and not profile.use_keyring:
                    store.delete_key_from_keyring(profile.name)
        except FieldstudioError as exc:
            self._say(f"Not saved: {exc}")
            return None
        finally:
            self.key.clear()
        self.reload(select=profile.name)
        self._fill(self._profiles.get(profile.name, profile))
        self._say(f"Saved {profile.name!r}: {profile.model} at {profile.shown_url}; "
                  f"key: {profile.key_hint()}.")
        self.profiles_changed.emit()
        return profile

    def remove(self) -> None:
        if self._editing is None:
            return
        name = self._editing.name
        try:
            removed = store.remove_profile(name)
        except FieldstudioError as exc:
            self._say(str(exc))
            return
        if removed.use_keyring:
            store.delete_key_from_keyring(removed.name)
        self.reload()
        self.new_profile()
        self._say(f"Removed {name!r}.")
        self.profiles_changed.emit()

    def test_connection(self) -> workers.Worker | None:
        """Save the form, then probe the endpoint in a worker; the report appears in the result box."""
        profile = self.save()
        if profile is None:
            return None
        self.test_button.setEnabled(False)
        self.result.setPlainText(f"Testing {profile.name!r}: {profile.model} at {profile.shown_url} …")
        worker = workers.Worker(probe_profile, dataclasses.replace(profile))
        worker.signals.result.connect(lambda report: self._tested(profile.name, report))
        worker.signals.error.connect(lambda message: self._say(f"Test failed: {message}"))
        worker.signals.finished.connect(lambda: self.test_button.setEnabled(True))
        self._worker = worker
        return workers.start(worker)

    def _tested(self, name: str, report: ProbeReport) -> None:
        text = report_text(report)
        if report.reachable:
            try:
                profile = store.get_profile(name)
                profile.capabilities = report.capabilities()
                if report.max_images_per_request and not profile.max_images_per_request:
                    profile.max_images_per_request = report.max_images_per_request
                store.update_profile(profile)
            except FieldstudioError as exc:
                text += f"\n(the findings could not be saved: {exc})"
            self.reload(select=name)
        self.result.setPlainText(text)
        self.status.emit(text.splitlines()[-1])


class ModelProfilesDialog(QDialog):
    """The editor in a dialog (non-modal; Close hides it). ``editor.profiles_changed`` tells of changes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Model profiles")
        self.resize(1060, 660)
        self.editor = ModelProfilesEditor(self)
        note = QLabel("Keys are never shown or written to a file: type one for the OS keyring, or name the "
                      "environment variable that holds it.")
        note.setWordWrap(True)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        box.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.editor, 1)
        layout.addWidget(box)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
