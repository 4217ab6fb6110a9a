"""The task editor's widgets and layout (what Qt Designer's ``setupUi`` would be): the list side, the form
side and the panel's keys, built onto a :class:`~fieldstudio.gui.panels.tasks.TaskEditorPanel` (``panel``,
typed as QWidget so that the import runs one way), whose module holds what the widgets do.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QListWidget, QPlainTextEdit, QPushButton, QScrollArea, QSpinBox,
                               QTableView, QVBoxLayout, QWidget)

from fieldstudio.gui.panels.task_table import TaskFilter, TaskTableModel
from fieldstudio.tasks import task_records as ts

LINK_CHOICES = (("Ruler distance", "ruler_distance", None), ("Segment time range", "segment_range", None),
                ("Segment duration", "segment_duration", None), ("Event time", "event_time", None),
                ("Count boxes: distinct objects", "count", "objects"),
                ("Count boxes: most on one frame", "count", "max_per_frame"), ("Count events", "count", "events"),
                ("Count skeletons", "count", "skeletons"), ("Polygon area (m²)", "polygon_area", None),
                ("Points inside a zone (yes/no)", "inside_zone", "points/any"),
                ("Anyone inside a zone, any frame: box ground point (yes/no)", "inside_zone", "box/any"),
                ("Inside a zone on every frame: box ground point (yes/no)", "inside_zone", "box/all"),
                ("Skeleton inside a zone, any frame (yes/no)", "inside_zone", "skeleton/any"))
"""The link kinds the ground-truth link combo offers: (text, link kind, count mode; for a zone "subject/answer",
the frames being the chosen input's, else the zone's own frame)."""




def build_list(panel: QWidget) -> None:
    """The task list side: filters, search, the table, New / Duplicate / Delete / Undo / Redo."""
    panel.model = TaskTableModel(panel)
    panel.proxy = TaskFilter(panel)
    panel.proxy.setSourceModel(panel.model)
    panel.category_filter = QComboBox()
    panel.category_filter.setToolTip("Show the tasks of one category")
    panel.type_filter = QComboBox()
    panel.type_filter.addItem("All answer types", None)
    for key, text in ts.ANSWER_TYPES.items():
        panel.type_filter.addItem(text, key)
    panel.search = QLineEdit()
    panel.search.setPlaceholderText("Search id, question, ground truth")
    panel.search.setClearButtonEnabled(True)
    panel.table = QTableView()
    panel.table.setModel(panel.proxy)
    panel.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    # several rows for "Run model on these tasks…"; the form edits the current row
    panel.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    panel.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    panel.table.verticalHeader().hide()
    panel.table.verticalHeader().setDefaultSectionSize(panel.fontMetrics().height() + 8)
    panel.table.setWordWrap(False)
    header = panel.table.horizontalHeader()
    for col, width in enumerate((78, 72, 90, 72, 0, 170, 34)):
        if width:
            panel.table.setColumnWidth(col, width)
    header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
    panel.count_label = QLabel()
    panel.new_button = QPushButton("New")
    panel.duplicate_button = QPushButton("Duplicate")
    panel.delete_button = QPushButton("Delete")
    panel.undo_button = QPushButton("Undo")
    panel.redo_button = QPushButton("Redo")
    filters = QHBoxLayout()
    filters.addWidget(panel.category_filter)
    filters.addWidget(panel.type_filter)
    filters.addWidget(panel.search, 1)
    buttons = QHBoxLayout()
    for b in (panel.new_button, panel.duplicate_button, panel.delete_button, panel.undo_button, panel.redo_button):
        buttons.addWidget(b)
    buttons.addStretch(1)
    buttons.addWidget(panel.count_label)
    panel.list_side = QWidget()
    side = QVBoxLayout(panel.list_side)
    side.setContentsMargins(0, 0, 0, 0)
    side.addLayout(filters)
    side.addWidget(panel.table, 1)
    side.addLayout(buttons)
    panel.category_filter.currentIndexChanged.connect(panel._refilter)
    panel.type_filter.currentIndexChanged.connect(panel._refilter)
    panel.search.textChanged.connect(panel._refilter)
    panel.table.selectionModel().currentRowChanged.connect(panel._current_changed)
    panel.table.doubleClicked.connect(lambda _i: panel.open_at_start())
    panel.new_button.clicked.connect(panel.new_task)
    panel.duplicate_button.clicked.connect(panel.duplicate_task)
    panel.delete_button.clicked.connect(panel.delete_task)
    panel.undo_button.clicked.connect(panel.undo_stack.undo)
    panel.redo_button.clicked.connect(panel.undo_stack.redo)
    panel.undo_stack.canUndoChanged.connect(panel.undo_button.setEnabled)
    panel.undo_stack.canRedoChanged.connect(panel.redo_button.setEnabled)
    panel.undo_button.setEnabled(False)
    panel.redo_button.setEnabled(False)

def build_form(panel: QWidget) -> None:
    """The editor side: question, answer type, ground truth and its link, inputs, Save / Revert."""
    panel.id_edit = QLineEdit()
    panel.source_label = QLabel()
    panel.query = QPlainTextEdit()
    panel.query.setFixedHeight(84)
    panel.query_message = message_label()
    panel.answer_type = QComboBox()
    for key, text in ts.ANSWER_TYPES.items():
        panel.answer_type.addItem(text, key)
    panel.ground_truth = QPlainTextEdit()
    panel.ground_truth.setFixedHeight(56)
    panel.gt_message = message_label()
    panel.r_th = QLineEdit()
    panel.r_th.setPlaceholderText("r_th, e.g. 0.5")
    panel.r_th.setToolTip(ts.TOLERANCE_KEYS["r_th"])
    panel.t_th = QLineEdit()
    panel.t_th.setPlaceholderText("T_th in s, e.g. 60")
    panel.t_th.setToolTip(ts.TOLERANCE_KEYS["T_th"])
    panel.tol_message = message_label()
    panel.category = QComboBox()
    panel.category.setEditable(True)
    panel.sub_category = QLineEdit()
    panel.scenario = QComboBox()
    panel.scenario.addItem("—", None)
    for sc in ts.SCENARIOS:
        panel.scenario.addItem(sc, sc)
    panel.notes = QPlainTextEdit()
    panel.notes.setFixedHeight(48)
    # inputs
    panel.inputs_list = QListWidget()
    panel.inputs_list.setFixedHeight(64)
    panel.input_media = QComboBox()
    panel.start_frame, panel.end_frame = QSpinBox(), QSpinBox()
    for spin in (panel.start_frame, panel.end_frame):
        spin.setRange(-1, 10_000_000)
        spin.setSpecialValueText("—")
    panel.start_time, panel.end_time = QLabel(), QLabel()
    panel.use_start = QPushButton("Use current frame")
    panel.use_end = QPushButton("Use current frame")
    panel.add_input = QPushButton("Add input")
    panel.remove_input = QPushButton("Remove")
    panel.open_button = QPushButton("Open at start")
    panel.input_message = message_label()
    # ground-truth link
    panel.link_label = QLabel()
    panel.link_label.setWordWrap(True)
    panel.link_kind = QComboBox()
    for text, kind, mode in LINK_CHOICES:
        panel.link_kind.addItem(text, f"{kind}/{mode}" if mode else kind)
    # the longest choice names a zone's subject and answer; elided, it must not widen the form past the window
    panel.link_kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    panel.link_kind.setMinimumContentsLength(20)
    panel.link_target = QComboBox()
    panel.link_target.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    panel.link_target.setMinimumContentsLength(10)
    panel.link_target.setToolTip("The annotation (or, for counts, the label) the ground truth comes from")
    panel.link_button = QPushButton("Link")
    panel.unlink_button = QPushButton("Unlink")
    # a change the annotations would make: shown, stored only when accepted (one undoable edit)
    panel.pending_label = QLabel()
    panel.pending_label.setWordWrap(True)
    panel.accept_button = QPushButton("Accept")
    panel.accept_button.setToolTip("Store the ground truth the annotations give now (one edit: Ctrl+Z undoes it); "
                                   "the scores that judged the earlier ground truth then read as stale")
    panel.lock_box = QCheckBox("Locked against updates from annotations")
    panel.accept_all_button = QPushButton("Accept all")
    panel.accept_all_button.setToolTip("Accept every pending ground-truth change from annotations at once "
                                       "(one edit: Ctrl+Z undoes them all)")
    panel.save_button = QPushButton("Save")
    panel.revert_button = QPushButton("Revert")
    panel.edit_message = message_label()

    form = QFormLayout()
    id_row = QHBoxLayout()
    id_row.addWidget(panel.id_edit, 1)
    id_row.addWidget(panel.source_label)
    form.addRow("Id", id_row)
    form.addRow("Question", panel.query)
    form.addRow("", panel.query_message)
    form.addRow("Answer type", panel.answer_type)
    form.addRow("Ground truth", panel.ground_truth)
    form.addRow("", panel.gt_message)
    tol = QHBoxLayout()
    tol.addWidget(panel.r_th)
    tol.addWidget(panel.t_th)
    form.addRow("Tolerances", tol)
    form.addRow("", panel.tol_message)
    form.addRow("Category", panel.category)
    form.addRow("Sub-category", panel.sub_category)
    form.addRow("Scenario", panel.scenario)
    inputs_box = QGroupBox("Inputs")
    ib = QFormLayout(inputs_box)
    ib.addRow(panel.inputs_list)
    ib.addRow("Media", panel.input_media)
    for label, spin, shown, button in (("Start frame", panel.start_frame, panel.start_time, panel.use_start),
                                       ("End frame", panel.end_frame, panel.end_time, panel.use_end)):
        row = QHBoxLayout()
        row.addWidget(spin)
        row.addWidget(shown, 1)
        row.addWidget(button)
        ib.addRow(label, row)
    row = QHBoxLayout()
    row.addWidget(panel.add_input)
    row.addWidget(panel.remove_input)
    row.addStretch(1)
    row.addWidget(panel.open_button)
    ib.addRow(row)
    ib.addRow(panel.input_message)
    link_box = QGroupBox("Ground truth from annotations")
    lb = QVBoxLayout(link_box)
    lb.addWidget(panel.link_label)
    row = QHBoxLayout()
    row.addWidget(panel.link_kind)
    row.addWidget(panel.link_target, 1)
    row.addWidget(panel.link_button)
    row.addWidget(panel.unlink_button)
    lb.addLayout(row)
    lb.addWidget(panel.pending_label)
    row = QHBoxLayout()
    row.addWidget(panel.lock_box)
    row.addStretch(1)
    row.addWidget(panel.accept_button)
    row.addWidget(panel.accept_all_button)
    lb.addLayout(row)
    buttons = QHBoxLayout()
    buttons.addWidget(panel.edit_message, 1)
    buttons.addWidget(panel.revert_button)
    buttons.addWidget(panel.save_button)
    body = QWidget()
    v = QVBoxLayout(body)
    v.addLayout(form)
    v.addWidget(inputs_box)
    v.addWidget(link_box)
    notes = QFormLayout()
    notes.addRow("Notes", panel.notes)
    v.addLayout(notes)
    v.addLayout(buttons)
    v.addStretch(1)
    panel.form = body
    panel.form_scroll = QScrollArea()
    panel.form_scroll.setWidgetResizable(True)
    panel.form_scroll.setWidget(body)

    for w in (panel.id_edit, panel.r_th, panel.t_th, panel.sub_category):
        w.textEdited.connect(panel._changed)
    for w in (panel.query, panel.ground_truth, panel.notes):
        w.textChanged.connect(panel._changed)
    panel.category.editTextChanged.connect(panel._changed)
    for w in (panel.answer_type, panel.scenario):
        w.currentIndexChanged.connect(panel._changed)
    panel.inputs_list.currentRowChanged.connect(panel._show_input)
    panel.input_media.currentIndexChanged.connect(panel._input_edited)
    panel.start_frame.valueChanged.connect(panel._input_edited)
    panel.end_frame.valueChanged.connect(panel._input_edited)
    panel.use_start.clicked.connect(lambda: panel._use_current(panel.start_frame))
    panel.use_end.clicked.connect(lambda: panel._use_current(panel.end_frame))
    panel.add_input.clicked.connect(panel._add_input)
    panel.remove_input.clicked.connect(panel._remove_input)
    panel.open_button.clicked.connect(panel.open_at_start)
    panel.link_kind.currentIndexChanged.connect(panel._fill_link_targets)
    panel.link_button.clicked.connect(panel.link_ground_truth)
    panel.unlink_button.clicked.connect(panel.unlink_ground_truth)
    panel.accept_button.clicked.connect(panel.accept_pending)
    panel.accept_all_button.clicked.connect(panel.accept_all_pending)
    panel.lock_box.clicked.connect(panel.set_locked)
    panel.save_button.clicked.connect(panel.save)
    panel.revert_button.clicked.connect(lambda: panel._show_record(panel.record))

def message_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.hide()
    return label

def build_actions(panel: QWidget) -> None:
    """The panel's keys (undo, redo, save, new, delete), each scoped to its part of the panel."""
    def action(text: str, keys: QKeySequence | str, slot, tip: str, widget: QWidget) -> QAction:  # noqa: ANN001
        a = QAction(text, widget)
        a.setShortcut(QKeySequence(keys))
        a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        a.setToolTip(f"{tip} ({QKeySequence(keys).toString()})")
        a.triggered.connect(slot)
        widget.addAction(a)
        return a

    panel.undo_action = action("Undo", QKeySequence.StandardKey.Undo, panel.undo_stack.undo, "Undo the last task edit",
                              panel.list_side)
    panel.redo_action = action("Redo", "Ctrl+Shift+Z", panel.undo_stack.redo, "Redo the task edit", panel.list_side)
    panel.save_action = action("Save", QKeySequence.StandardKey.Save, panel.save, "Save the task", panel)
    panel.new_action = action("New task", "Ctrl+Shift+N", panel.new_task, "New task", panel)
    panel.delete_action = action("Delete task", QKeySequence.StandardKey.Delete, panel.delete_task,
                                "Delete the chosen task", panel.table)
    panel.delete_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
    for button, a in ((panel.undo_button, panel.undo_action), (panel.redo_button, panel.redo_action),
                      (panel.save_button, panel.save_action), (panel.new_button, panel.new_action),
                      (panel.delete_button, panel.delete_action)):
        button.setToolTip(a.toolTip())
    panel.use_start.setToolTip("Start this input at the frame the viewer shows")
    panel.use_end.setToolTip("End this input at the frame the viewer shows")
    panel.open_button.setToolTip("Show this input in the viewer at its start frame")
