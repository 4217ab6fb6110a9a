"""Annotate ▸ Detect people…: the HOG detector's proposals (``annotations.people_proposals``) on the frame shown or
a frame range, drawn on the canvas as dashed "proposed" boxes with their score, accepted (as ordinary boxes with the
chosen label), or rejected, one by one or all at once. Every accept and every reject is one step of the viewer's
undo stack (an accepted box undone comes back as a proposal; a rejected proposal undone comes back too). An accepted
box is edited (moved, resized) and tracked (T) like any box.

The detection runs on a worker with progress and Cancel; the proposals are kept here, never stored.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QKeySequence, QPen, QShortcut
from PySide6.QtWidgets import (QComboBox, QDialog, QFormLayout, QGraphicsRectItem, QGraphicsSimpleTextItem,
                               QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QProgressBar, QPushButton,
                               QRadioButton, QSpinBox, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import workers
from fieldstudio.store.edits import Edit

PROPOSED_COLOR = "#00e5ff"


class _Pending(Edit):
    """An undo step of the dialog: ``inner`` (the boxes stored, or None for a reject) and the proposals it takes off
    the pending list; undo puts them back."""

    def __init__(self, dialog: PeopleDialog, text: str, taken: Sequence, inner: Edit | None = None):  # noqa: ANN001
        self.dialog, self.text, self.taken, self.inner = dialog, text, list(taken), inner

    def do(self) -> None:
        if self.inner is not None:
            self.inner.do()
        self.dialog.take(self.taken)

    def undo(self) -> None:
        if self.inner is not None:
            self.inner.undo()
        self.dialog.give_back(self.taken)


class PeopleDialog(QDialog):
    """A non-modal panel over the window: where to detect, the proposals, the label, Accept / Reject (one or all)."""

    def __init__(self, window, parent: QWidget | None = None):  # noqa: ANN001 - MainWindow
        super().__init__(parent or window)
        self.setObjectName("people_dialog")
        self.setWindowTitle("Detect people")
        self.window_, self.state = window, window.state
        self.pending: list = []          # PersonProposal, in the list's order
        self.media_id: str | None = None
        self.detector = ""
        self.worker: workers.Worker | None = None
        self._items: list = []
        self._detecting: str | None = None

        self.this_frame = QRadioButton("The frame shown")
        self.range = QRadioButton("Frames")
        self.this_frame.setChecked(True)
        self.first, self.last, self.every = QSpinBox(), QSpinBox(), QSpinBox()
        for box in (self.first, self.last):
            box.setRange(0, 10_000_000)
        self.every.setRange(1, 100_000)
        self.every.setValue(10)
        span = QHBoxLayout()
        for w in (self.range, self.first, QLabel("to"), self.last, QLabel("every"), self.every):
            span.addWidget(w)
        self.detect_button = QPushButton("&Detect")
        self.detect_button.clicked.connect(self.detect)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(lambda: self.worker and self.worker.cancel())
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.note = QLabel("OpenCV's HOG people detector, on this machine. Proposals are not stored until accepted.")
        self.note.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("people_proposals")
        self.list.currentRowChanged.connect(self._chosen)
        self.label = QComboBox()
        self.label.setEditable(True)
        self.label.setToolTip("The label the accepted boxes get (a new name makes a box label)")
        self.accept_button = QPushButton("&Accept (A)")
        self.reject_button = QPushButton("&Reject (R)")
        self.accept_all_button = QPushButton("Accept a&ll")
        self.reject_all_button = QPushButton("Reject all")
        self.accept_button.clicked.connect(lambda: self.accept_proposals(self._current()))
        self.reject_button.clicked.connect(lambda: self.reject_proposals(self._current()))
        self.accept_all_button.clicked.connect(lambda: self.accept_proposals(list(self.pending)))
        self.reject_all_button.clicked.connect(lambda: self.reject_proposals(list(self.pending)))
        for key, slot in (("A", self.accept_button.click), ("R", self.reject_button.click),
                          ("Delete", self.reject_button.click)):
            QShortcut(QKeySequence(key), self, activated=slot)

        lay = QVBoxLayout(self)
        lay.addWidget(self.this_frame)
        lay.addLayout(span)
        run = QHBoxLayout()
        run.addWidget(self.detect_button)
        run.addWidget(self.cancel_button)
        run.addWidget(self.progress, 1)
        lay.addLayout(run)
        lay.addWidget(self.note)
        lay.addWidget(self.list, 1)
        form = QFormLayout()
        form.addRow("Label", self.label)
        lay.addLayout(form)
        one, every = QHBoxLayout(), QHBoxLayout()
        for w in (self.accept_button, self.reject_button):
            one.addWidget(w)
        for w in (self.accept_all_button, self.reject_all_button):
            every.addWidget(w)
        lay.addLayout(one)
        lay.addLayout(every)
        self.resize(420, 460)
        self._frame_cb = self.state.events.frame.connect(lambda _f: self.draw())
        self._media_cb = self.state.events.media.connect(lambda _m: self._media_changed())
        self.refresh_labels()
        self._media_changed()

    # --- what is shown ---------------------------------------------------------------------------
    def refresh_labels(self) -> None:
        """The box labels of the project, "person" first when it is not one yet."""
        from fieldstudio.annotations import labels, people_proposals as pp

        names = [r.name for r in labels.list_labels(self.state.project, kind="box")] if self.state.project else []
        self.label.clear()
        self.label.addItems(names if pp.DEFAULT_LABEL in names else [pp.DEFAULT_LABEL, *names])
        self.label.setCurrentText(pp.DEFAULT_LABEL)

    def _media_changed(self) -> None:
        media = self.state.media
        usable = media is not None and media.kind in ("image", "video")
        is_video = usable and media.kind == "video"
        for w in (self.range, self.first, self.last, self.every):
            w.setEnabled(is_video)
        if is_video:
            top = max(0, (media.frame_count or 1) - 1)
            self.first.setMaximum(top)
            self.last.setMaximum(top)
            self.last.setValue(top)
        else:
            self.this_frame.setChecked(True)
        self.detect_button.setEnabled(usable and self.worker is None)
        if media is None or media.id != self.media_id:
            self.pending, self.media_id = [], None
            self._fill()

    def _fill(self) -> None:
        current = self.list.currentRow()
        self.list.blockSignals(True)
        self.list.clear()
        for p in self.pending:
            x0, y0, x1, y1 = p.box
            QListWidgetItem(f"frame {p.frame_index}: {x1 - x0:.0f} x {y1 - y0:.0f} px at ({x0:.0f}, {y0:.0f}), "
                            f"score {p.score:.2f}", self.list)
        self.list.blockSignals(False)
        if self.pending:
            self.list.setCurrentRow(min(max(current, 0), len(self.pending) - 1))
        for w in (self.accept_button, self.reject_button, self.accept_all_button, self.reject_all_button):
            w.setEnabled(bool(self.pending))
        self.draw()

    def _current(self) -> list:
        row = self.list.currentRow()
        return [self.pending[row]] if 0 <= row < len(self.pending) else []

    def _chosen(self, row: int) -> None:
        if 0 <= row < len(self.pending):
            p = self.pending[row]
            media = self.state.media
            if media is not None and media.kind == "video" and p.frame_index != self.state.frame_index:
                self.state.request_frame(p.media_id, p.frame_index)
        self.draw()

    def draw(self) -> None:
        """The dashed boxes of the proposals on the frame shown (the current one thicker), each with its score."""
        scene = self.window_.view.canvas.scene()
        for item in self._items:
            scene.removeItem(item)
        self._items.clear()
        media = self.state.media
        if media is None or media.id != self.media_id:
            return
        frame = self.state.frame_index if media.kind == "video" else 0
        current = self._current()
        for p in self.pending:
            if p.frame_index != frame:
                continue
            x0, y0, x1, y1 = p.box
            rect = QGraphicsRectItem(QRectF(x0, y0, x1 - x0, y1 - y0))
            pen = QPen(QColor(PROPOSED_COLOR), 3 if current and p is current[0] else 2, Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            rect.setPen(pen)
            rect.setZValue(12)
            text = QGraphicsSimpleTextItem(f"proposed {p.score:.2f}")
            text.setBrush(QColor(PROPOSED_COLOR))
            font = QFont()
            font.setBold(True)
            text.setFont(font)
            text.setFlag(QGraphicsSimpleTextItem.GraphicsItemFlag.ItemIgnoresTransformations)
            text.setPos(x0, max(0.0, y0))
            text.setZValue(12)
            for item in (rect, text):
                scene.addItem(item)
                self._items.append(item)

    # --- detecting -------------------------------------------------------------------------------
    def detect(self) -> workers.Worker | None:
        """Run the detector on the frame shown or the range, on a worker; the proposals replace the pending ones."""
        from fieldstudio.annotations import people_proposals as pp

        media = self.state.media
        if self.state.project is None or media is None or media.kind not in ("image", "video"):
            self.note.setText("Show a photo or a video frame first.")
            return None
        try:
            if media.kind == "image" or self.this_frame.isChecked():
                frames = [self.state.frame_index if media.kind == "video" else 0]
            else:
                frames = pp.frames_of(self.state.project, media.id, self.first.value(), self.last.value(),
                                      self.every.value())
        except FieldstudioError as exc:
            self.note.setText(str(exc))
            return None
        self.detect_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setVisible(True)
        self.progress.setRange(0, len(frames))
        self.progress.setValue(0)
        self.note.setText(f"Detecting people on {len(frames)} frame(s)…")
        worker = workers.Worker(pp.propose_people, self.state.project, media.id, frames)
        self._detecting = media.id
        worker.signals.progress.connect(lambda d, t: self.progress.setValue(d))
        worker.signals.result.connect(self._found)
        worker.signals.error.connect(lambda message: self.note.setText(f"Detect people failed: {message}"))
        worker.signals.finished.connect(self._finished)
        self.worker = workers.start(worker)
        return self.worker

    def _found(self, found) -> None:  # noqa: ANN001 - PeopleFound
        self.media_id = self._detecting
        self.detector = found.detector
        self.pending = list(found.proposals)
        stopped = " (cancelled)" if found.cancelled else ""
        self.note.setText(f"{len(self.pending)} people proposed on {len(found.frames_read)} frame(s){stopped} by "
                          f"{found.detector}. A accepts, R rejects the one chosen.")
        self._fill()

    def _finished(self) -> None:
        self.worker = None
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self._media_changed()

    # --- accepting and rejecting (each one undo step) --------------------------------------------
    def accept_proposals(self, proposals: list) -> bool:
        """Store ``proposals`` as boxes with the chosen label: one undo step. False when refused (said why)."""
        from fieldstudio.annotations import labels, people_proposals as pp

        if not proposals or self.state.project is None:
            return False
        name = self.label.currentText().strip() or pp.DEFAULT_LABEL
        try:
            label_id = labels.ensure_label(self.state.project, name, kind="box")
            boxes = pp.accept_edit(self.state.project, proposals, label_id)
        except FieldstudioError as exc:
            self.note.setText(str(exc))
            return False
        return self.window_.annotator.apply(_Pending(self, boxes.text, proposals, boxes))

    def reject_proposals(self, proposals: list) -> bool:
        """Drop ``proposals`` from the list: one undo step ("Reject N proposals")."""
        if not proposals:
            return False
        noun = "proposal" if len(proposals) == 1 else "proposals"
        return self.window_.annotator.apply(_Pending(self, f"Reject {len(proposals)} {noun}", proposals))

    def take(self, proposals: Sequence) -> None:
        """Take ``proposals`` off the pending list (accepted or rejected)."""
        gone = {id(p) for p in proposals}
        self.pending = [p for p in self.pending if id(p) not in gone]
        self._fill()

    def give_back(self, proposals: Sequence) -> None:
        """Put ``proposals`` back on the pending list (an accept or a reject undone), in frame order."""
        have = {id(p) for p in self.pending}
        self.pending = sorted([*self.pending, *(p for p in proposals if id(p) not in have)],
                              key=lambda p: (p.frame_index, -p.score))
        self._fill()

    def done(self, result: int) -> None:  # noqa: N802 - Qt override
        """Closing removes the proposals from the canvas and stops listening to the state."""
        for item in self._items:
            self.window_.view.canvas.scene().removeItem(item)
        self._items.clear()
        self.state.events.frame.disconnect(self._frame_cb)
        self.state.events.media.disconnect(self._media_cb)
        if self.worker is not None:
            self.worker.cancel()
        super().done(result)


def detect_people_dialog(window) -> PeopleDialog:  # noqa: ANN001 - MainWindow
    """Annotate ▸ Detect people…: open (or raise) the window's one people dialog."""
    dialog = getattr(window, "people_dialog", None)
    if dialog is None or not dialog.isVisible():
        dialog = PeopleDialog(window)
        window.people_dialog = dialog
    dialog.show()
    dialog.raise_()
    return dialog
