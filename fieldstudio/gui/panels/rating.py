"""Rater mode: one photo or video frame at a time, large, judged against the set's requirement.

Keys (issue 6; local shortcuts, active while the focus is inside the panel and not typing in a field):
A accept, R reject, U unsure (saved at once), 1..9 tick the reasons, Tab moves through the fields,
Enter saves and goes to the next unrated item, Backspace goes back, N next item, S skip (leave unrated),
Ctrl+Z takes back the last save, Esc leaves a field. Blind mode (the default) hides every other
rater's answer and the scorer's and models' verdicts; with it off the panel shows them and, when asked,
the acceptability measures of the item with the target box drawn (issue 10).

The verdict buttons, reasons, documentation fields and comment are the ``RatingForm``
(``gui/panels/rating_form.py``); this panel holds the queue, the rater, the keys and the saves. All reads and
writes go through ``ratings.rating_records``, ``ratings.edits`` and ``ratings.review``; every save is one
short write transaction (STYLE.md §2).
"""

from __future__ import annotations

import getpass
import time
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QImage, QKeySequence, QUndoStack
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QScrollArea,
                               QSplitter, QVBoxLayout, QWidget)

from fieldstudio.core import user_settings
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import settings
from fieldstudio.gui.panels.rating_form import RatingForm
from fieldstudio.gui.panels.rating_reveal import RevealBox
from fieldstudio.gui.undo import EditCommand
from fieldstudio.gui.viewer.canvas import Canvas
from fieldstudio.gui.viewer.frame_loader import FrameLoader
from fieldstudio.media.frames import FrameSource
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings import review as rating_review
from fieldstudio.ratings.edits import RecordRating
from fieldstudio.store.project import Project

def default_rater() -> str:
    """The rater name remembered from last time, else the operating-system user name."""
    saved = settings.get(user_settings.RATER)
    if saved:
        return saved
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in the environment
        return "rater"


class RaterPanel(QWidget):
    """The rating queue of one rating set, for one rater.

    Signals: ``status(str)`` for the status bar; ``rating_saved(item_id)`` after each save or undo
    (the agreement panel refreshes); ``open_media_at(media_id, frame_index)`` to open the item in the
    main viewer (frame 0 for a photo).
    """

    status = Signal(str)
    rating_saved = Signal(str)
    open_media_at = Signal(str, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.set_id: str | None = None
        self.item: ratings.ItemView | None = None
        self.rater = default_rater()
        self.verdict: str | None = None          # chosen on this item (saved or about to be)
        self._dirty = False                       # reasons / fields / comment changed since the last save
        self._shown_at = time.monotonic()
        self.undo_stack = QUndoStack(self)  # this session's saves (gui/undo.py); in the window's undo group
        self._loader: FrameLoader | None = None
        self._token = 0
        self._saved: ratings.RatingView | None = None   # the rater's stored rating of the shown item
        self._build()
        self._make_actions()
        self.set_project(None)

    # ------------------------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.set_combo = QComboBox()
        self.set_combo.setToolTip("The rating set (queue) to work through")
        self.set_combo.currentIndexChanged.connect(lambda _i: self._set_chosen())
        self.rater_combo = QComboBox()
        self.rater_combo.setEditable(True)
        self.rater_combo.setMinimumWidth(140)
        self.rater_combo.setToolTip("Your name, stored with each verdict; choose it before you start")
        self.rater_combo.lineEdit().editingFinished.connect(lambda: self.set_rater(self.rater_combo.currentText()))
        self.rater_combo.activated.connect(lambda _i: self.set_rater(self.rater_combo.currentText()))
        self.blind_box = QCheckBox("Blind")
        self.blind_box.setChecked(True)
        self.blind_box.setToolTip("Hide the other raters' answers and the scorer's and models' verdicts")
        self.blind_box.toggled.connect(lambda _b: self._refresh_open_view())
        self.advance_box = QCheckBox("Next after A/R/U")
        self.advance_box.setToolTip("Go to the next unrated item as soon as a verdict key is pressed")
        self.progress_label = QLabel("0 / 0")
        self.progress_label.setObjectName("rating_progress")
        self.progress_label.setToolTip("Items you have rated / items in the set")
        f = self.progress_label.font()
        f.setBold(True)
        self.progress_label.setFont(f)
        top = QHBoxLayout()
        for w in (QLabel("Set"), self.set_combo, QLabel("Rater"), self.rater_combo, self.blind_box,
                  self.advance_box):
            top.addWidget(w)
        top.addStretch(1)
        top.addWidget(self.progress_label)

        self.requirement = QLabel()
        self.requirement.setWordWrap(True)
        self.requirement.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rf = self.requirement.font()
        rf.setPointSizeF(rf.pointSizeF() * 1.25)
        rf.setBold(True)
        self.requirement.setFont(rf)
        self.item_label = QLabel()
        self.item_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.saved_label = QLabel()
        self.saved_label.setObjectName("rating_saved")
        self.saved_label.setMinimumWidth(240)
        self.saved_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        info = QHBoxLayout()
        info.addWidget(self.item_label, 1)
        info.addWidget(self.saved_label)

        self.canvas = Canvas()
        self.canvas.setMinimumSize(320, 240)

        side = QWidget()
        col = QVBoxLayout(side)
        self.form = RatingForm()
        self.form.verdict_clicked.connect(self.choose_verdict)
        self.form.edited.connect(self._mark_dirty)
        col.addWidget(self.form)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c62828")
        col.addWidget(self.error_label)
        nav = QGridLayout()
        self.back_button = QPushButton("◀ Back (⌫)")
        self.skip_button = QPushButton("Skip (S)")
        self.next_button = QPushButton("Save && next (⏎)")
        self.undo_button = QPushButton("Undo (Ctrl+Z)")
        self.open_button = QPushButton("Open in viewer")
        for k, (b, fn, tip) in enumerate((
                (self.back_button, self.go_back, "Previous item in the queue (Backspace)"),
                (self.skip_button, self.skip, "Leave this item unrated and go to the next unrated (S)"),
                (self.next_button, self.save_and_next, "Save and go to the next unrated item (Enter)"),
                (self.undo_button, self.undo, "Take back the last saved verdict (Ctrl+Z)"),
                (self.open_button, self._open_in_viewer, "Show this photo or frame in the main viewer"))):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.setToolTip(tip)
            b.clicked.connect(lambda _c=False, fn=fn: fn())
            nav.addWidget(b, k // 3, k % 3)
        col.addLayout(nav)

        self.reveal = RevealBox(self.canvas)
        self.reveal.status.connect(self.status)
        self.open_box = self.reveal
        col.addWidget(self.open_box)
        col.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(side)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        scroll.setMinimumWidth(side.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.canvas)
        split.addWidget(scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        split.setSizes([820, 400])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.requirement)
        layout.addLayout(info)
        layout.addWidget(split, 1)

    def _make_actions(self) -> None:
        def act(keys: list[str], fn: Any, name: str) -> QAction:
            a = QAction(name, self)
            a.setObjectName(name)
            a.setShortcuts([QKeySequence(k) for k in keys])
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            a.triggered.connect(lambda _c=False: fn())
            self.addAction(a)
            return a

        self.actions_by_name = {
            "rate_accept": act(["A"], lambda: self.choose_verdict("accept"), "rate_accept"),
            "rate_reject": act(["R"], lambda: self.choose_verdict("reject"), "rate_reject"),
            "rate_unsure": act(["U"], lambda: self.choose_verdict("unsure"), "rate_unsure"),
            "rate_next": act(["Return", "Enter"], self.save_and_next, "rate_next"),
            "rate_back": act(["Backspace"], self.go_back, "rate_back"),
            "rate_forward": act(["N"], self.go_forward, "rate_forward"),
            "rate_skip": act(["S"], self.skip, "rate_skip"),
            "rate_undo": act(["Ctrl+Z"], self.undo, "rate_undo"),
            "rate_measure": act(["M"], self.measure_current, "rate_measure"),
            "rate_leave_field": act(["Esc"], lambda: self.canvas.setFocus(), "rate_leave_field"),
        }
        for k in range(1, 10):
            self.actions_by_name[f"rate_reason_{k}"] = act([str(k)], lambda k=k: self.toggle_reason(k - 1),
                                                           f"rate_reason_{k}")

    # ------------------------------------------------------------------------------------ project
    def on_ratings_imported(self) -> None:
        """Rating sets arrived from outside (a package was merged): read them again."""
        self.set_project(self.project)

    def set_project(self, project: Project | None) -> None:
        """Show the rating sets of ``project`` (None: empty and disabled) and resume the first set."""
        if self._loader is not None:
            self._loader.frame_ready.disconnect(self._on_frame)
            self._loader.stop()
            self._loader = None
        self.project, self.set_id, self.item = project, None, None
        self.undo_stack.clear()
        self.canvas.clear_image()
        self.reveal.clear()
        self.setEnabled(project is not None)
        self.set_combo.blockSignals(True)
        self.set_combo.clear()
        if project is not None:
            self._loader = FrameLoader(FrameSource(project, max_readers=2), self)
            self._loader.frame_ready.connect(self._on_frame)
            self._loader.failed.connect(lambda token, _m, msg: token == self._token and self.status.emit(msg))
            for info in ratings.list_rating_sets(project):
                self.set_combo.addItem(f"{info.name} ({info.items})", info.id)
        self.set_combo.blockSignals(False)
        self._set_chosen()

    def set_rating_set(self, ref: str) -> None:
        """Work on the rating set ``ref`` (name or id); resumes at the rater's first unrated item."""
        info = ratings.get_rating_set(self.project, ref)
        k = self.set_combo.findData(info.id)
        if k < 0:
            self.set_combo.addItem(f"{info.name} ({info.items})", info.id)
            k = self.set_combo.count() - 1
        if k == self.set_combo.currentIndex():
            self._set_chosen()
        else:
            self.set_combo.setCurrentIndex(k)

    def set_rater(self, name: str) -> None:
        """Rate as ``name`` (remembered for next time) and resume at that rater's first unrated item."""
        name = (name or "").strip()
        if not name or ratings.is_machine(name):
            self._error("Type your name as rater (names starting with 'scorer:' or 'model:' are not raters).")
            self.rater_combo.setEditText(self.rater)
            return
        if name == self.rater and self.item is not None:
            return
        self._save_if_dirty()
        self.rater = name
        self.rater_combo.setEditText(name)
        settings.set(user_settings.RATER, name)
        self.undo_stack.clear()
        self.resume()

    def _set_chosen(self) -> None:
        self._save_if_dirty()
        self.set_id = self.set_combo.currentData()
        self.item = None
        self.undo_stack.clear()
        self.rater_combo.blockSignals(True)
        self.rater_combo.clear()
        names = [self.rater]
        if self.project is not None and self.set_id:
            info = ratings.get_rating_set(self.project, self.set_id)
            names += [n for n in info.raters if n != self.rater]
            self.requirement.setText(info.requirement or "(no requirement written)")
            self._build_form(info)
        else:
            self.requirement.setText("No rating set in this project yet." if self.project else "")
            self._build_form(None)
        self.rater_combo.addItems(names)
        self.rater_combo.setEditText(self.rater)
        self.rater_combo.blockSignals(False)
        self.resume()

    def _build_form(self, info: ratings.RatingSetInfo | None) -> None:
        self.form.build(info)
        chain = [self.canvas, *self.form.tab_chain()]
        for a, b in zip(chain, chain[1:]):
            QWidget.setTabOrder(a, b)

    # ------------------------------------------------------------------------------------ queue
    def resume(self) -> None:
        """Go to the rater's first unrated item (or the first item when every item is rated)."""
        if self.project is None or not self.set_id:
            self._show(None)
            return
        item = ratings.next_item(self.project, self.set_id, self.rater)
        if item is None:
            items = ratings.list_items(self.project, self.set_id)
            item = items[0] if items else None
            if items:
                self.status.emit(f"{self.rater} has rated all {len(items)} items of this set")
        self._show(item)

    def show_item(self, item_id: str, *, review: bool = False) -> None:
        """Show one item (from the agreement panel). ``review`` turns blind mode off and measures the
        item, so the scorer's failing terms and the target box are drawn on it."""
        item = rating_review.find_item(self.project, item_id)
        if item.rating_set_id != self.set_id:
            self._save_if_dirty()
            self.set_rating_set(item.rating_set_id)
        else:
            self._save_if_dirty()
        self._show(item)
        if review:
            self.blind_box.setChecked(False)
            self.measure_current()

    def go_to(self, position: int) -> None:
        """Show the item at queue place ``position`` (0-based), saving pending changes first."""
        if self.project is None or not self.set_id:
            return
        try:
            item = ratings.item_at(self.project, self.set_id, position)
        except IndexError:
            return
        self._save_if_dirty()
        self._show(item)

    def go_back(self) -> None:
        if self.item is not None and self.item.position > 0:
            self.go_to(self.item.position - 1)

    def go_forward(self) -> None:
        if self.item is not None:
            self.go_to(self.item.position + 1)

    def skip(self) -> None:
        """Leave this item (unrated, or as saved) and go to the next unrated item after it."""
        if self.item is None:
            return
        self._save_if_dirty()
        nxt = ratings.next_item(self.project, self.set_id, self.rater, after=self.item.position)
        if nxt is None:
            self.status.emit("No other unrated item in this set")
            return
        self._show(nxt)

    def save_and_next(self) -> None:
        """Enter: save this item's verdict with its reasons and fields, then go to the next unrated item."""
        if self.item is None:
            return
        if self.verdict is None:
            self._error("Choose a verdict first: A accept, R reject, U unsure (or S to skip).")
            return
        if (self._dirty or self._saved is None) and not self._save():
            return
        nxt = ratings.next_item(self.project, self.set_id, self.rater, after=self.item.position)
        if nxt is None:
            done, total = ratings.rater_progress(self.project, self.set_id, self.rater)
            self.status.emit(f"All {total} items rated — thank you, {self.rater}")
            return
        self._show(nxt)

    # ------------------------------------------------------------------------------------ rating
    def choose_verdict(self, verdict: str) -> None:
        """A / R / U: save ``verdict`` for this item now (with the ticked reasons and the fields)."""
        if self.item is None:
            return
        previous = self.verdict
        self.verdict = verdict
        if not self._save():
            self.verdict = previous
            self._show_verdict()
            return
        if self.advance_box.isChecked():
            nxt = ratings.next_item(self.project, self.set_id, self.rater, after=self.item.position)
            if nxt is not None:
                self._show(nxt)

    def toggle_reason(self, k: int) -> None:
        """Number key k+1: tick or untick the k-th reason of the checklist."""
        self.form.toggle_reason(k)

    def undo(self) -> None:
        """Ctrl+Z: take back the last save of this session (the item shows what it had before)."""
        if not self.undo_stack.canUndo():
            self.status.emit("Nothing to undo")
            return
        self.undo_stack.undo()

    def _after_undo(self, edit: RecordRating, op: str, error: str | None) -> None:
        """After an undo or redo of a save: the item is shown as it now is."""
        if error is not None:
            self._error(error)
            return
        self._dirty = False
        self.status.emit(f"{'Undid' if op == 'undo' else 'Redid'} '{edit.verdict}' on {self._label_of(edit.item_id)}")
        self._show(rating_review.find_item(self.project, edit.item_id))
        self.rating_saved.emit(edit.item_id)

    def _save(self) -> bool:
        """Write the current verdict, reasons, fields and comment (one transaction). False on bad input."""
        if self.item is None or self.verdict is None:
            return False
        now = time.monotonic()
        edit = RecordRating(self.project, self.item.id, self.rater, self.verdict, reasons=self.form.reasons(),
                            fields=self.form.fields(), comment=self.form.comment_text(),
                            seconds_spent=round(now - self._shown_at, 3))
        try:
            edit.do()
        except FieldstudioError as exc:
            self._error(str(exc))
            return False
        self._shown_at = now
        self.undo_stack.push(EditCommand(edit, self._after_undo))
        self._saved = edit.view
        self._dirty = False
        self.error_label.clear()
        self._show_verdict()
        self._show_progress()
        self.status.emit(f"Saved '{self.verdict}' for {self.item.label}")
        self.rating_saved.emit(self.item.id)
        return True

    def _save_if_dirty(self) -> None:
        if self.item is not None and self.verdict is not None and self._dirty:
            self._save()

    def _mark_dirty(self) -> None:
        self._dirty = True

    def _text_field(self) -> str | None:
        """The documentation field a text read would fill: the first empty text field, else the first text field."""
        from PySide6.QtWidgets import QLineEdit

        texts = [name for name, w in self.form.field_edits.items()
                 if isinstance(w, QLineEdit) and w.placeholderText().startswith("text")]
        return next((n for n in texts if not self.form.field_edits[n].text().strip()), texts[0] if texts else None)

    def text_target(self) -> str | None:
        """A text documentation field of the item being rated (Annotate ▸ Read text here); None without one."""
        name = self._text_field() if self.item is not None else None
        return None if name is None else f"“{name}” of the item rated"

    def suggest_text(self, text: str) -> None:
        """Put the text read into that field, unsaved: it is saved with the rating, when the rater saves it."""
        name = self._text_field()
        if name is None:
            return
        self.form.field_edits[name].setText(" ".join(text.split()))
        self._mark_dirty()
        self.status.emit(f"“{name}” filled with the text read (OCR): check it; it is saved with your rating")

    # ------------------------------------------------------------------------------------ display
    def _show(self, item: ratings.ItemView | None) -> None:
        self.item = item
        self._shown_at = time.monotonic()
        self._dirty = False
        self._saved = None
        self.error_label.clear()
        self.reveal.clear()
        saved = ratings.get_rating(self.project, item.id, self.rater) if item else None
        self._saved = saved
        self.verdict = saved.verdict if saved else None
        self.form.fill(saved)
        for b in (self.back_button, self.skip_button, self.next_button, self.open_button):
            b.setEnabled(item is not None)
        self.form.set_verdicts_enabled(item is not None)
        if item is None:
            self.item_label.setText("")
            self.canvas.clear_image()
        else:
            kind = "photo" if item.frame_index is None else f"video frame {item.frame_index}"
            self.item_label.setText(f"Item {item.position + 1} of {item.total}: {item.label}  ({kind})")
            if item.media_id and self._loader is not None:
                self._token = self._loader.request(item.media_id, item.frame_index or 0, exact=True)
            else:
                self.canvas.clear_image()
                self._error("This item's media was removed from the project.")
        self._show_verdict()
        self._show_progress()
        self._refresh_open_view()
        self.canvas.setFocus()

    def _on_frame(self, token: int, media_id: str, _index: int, _exact: bool, image: QImage) -> None:
        if token != self._token or self.item is None or media_id != self.item.media_id:
            return
        self.canvas.set_image(image)
        self.reveal.redraw()

    def _show_verdict(self) -> None:
        self.form.show_verdict(self.verdict)
        saved = self._saved
        if saved is None:
            self.saved_label.setText("not rated yet")
        else:
            seconds = f", {saved.seconds_spent:.0f} s" if saved.seconds_spent is not None else ""
            self.saved_label.setText(f"your verdict: {saved.verdict}{seconds}")

    def _show_progress(self) -> None:
        if self.project is None or not self.set_id:
            self.progress_label.setText("0 / 0")
            return
        done, total = ratings.rater_progress(self.project, self.set_id, self.rater)
        self.progress_label.setText(f"{done} / {total}")

    def _refresh_open_view(self) -> None:
        """Blind: hide every other verdict and the measures. Open: list the others' verdicts."""
        blind = self.blind_box.isChecked()
        self.reveal.setVisible(not blind)
        self.actions_by_name["rate_measure"].setEnabled(not blind)
        if blind:
            self.reveal.clear()
        else:
            self.reveal.show_item(self.project, self.item, self.rater)

    def measure_current(self) -> None:
        """M: measure the shown item and draw its target box (never while blind)."""
        if self.blind_box.isChecked():
            self.status.emit("Turn blind mode off to see the measures")
            return
        self.reveal.measure()

    # ------------------------------------------------------------------------------------ misc
    def _open_in_viewer(self) -> None:
        if self.item is not None and self.item.media_id:
            self.open_media_at.emit(self.item.media_id, self.item.frame_index or 0)

    def _label_of(self, item_id: str) -> str:
        try:
            return rating_review.find_item(self.project, item_id).label
        except FieldstudioError:
            return item_id

    def _error(self, message: str) -> None:
        self.error_label.setText(message)
        self.status.emit(message)

    def loader_idle(self) -> bool:
        """True when no frame is being decoded for the panel (tests wait on it)."""
        return self._loader is None or self._loader.idle()
