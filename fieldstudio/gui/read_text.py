"""Annotate ▸ Read text here: OCR of the selected box, or of the whole frame or photo on screen, on a worker; the
text read opens in a dialog that copies it, or offers it as a suggestion to a form of another tab (a task's ground
truth, a documentation field of the item being rated), which the person checks and saves there.

The reading is ``media.frame_text.read_frame_text``; the forms that take a suggestion declare
``gui.panels.roles.TakesTextSuggestion``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QMessageBox, QPlainTextEdit, QPushButton,
                               QVBoxLayout, QWidget)
from shiboken6 import isValid

from fieldstudio.gui import workers

#: (what the button says, the call that puts the text into that form)
Target = tuple[str, Callable[[str], None]]


class ReadTextDialog(QDialog):
    """The text read, editable before it is used; Copy, one "Suggest as …" button per target, Close."""

    def __init__(self, result, targets: list[Target], parent: QWidget | None = None):  # noqa: ANN001 - FrameText
        super().__init__(parent)
        self.setObjectName("read_text_dialog")
        self.setWindowTitle("Text read here")
        self.result = result
        where = "the whole frame" if result.box is None else "the selected box"
        frame = f"frame {result.frame_index}" if result.frame_index else "the picture"
        self.where = QLabel(f"Read in {where} of {frame} by {result.engine}; "
                            f"{len(result.lines)} line{'s' if len(result.lines) != 1 else ''}. "
                            "Correct it here before using it.")
        self.where.setWordWrap(True)
        self.text = QPlainTextEdit(result.text)
        self.text.setObjectName("read_text")
        if not result.text:
            self.text.setPlaceholderText("No text was found here.")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.copy_button = QPushButton("&Copy")
        self.copy_button.clicked.connect(self.copy)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.suggest_buttons: list[QPushButton] = []
        for label, use in targets:
            button = QPushButton(f"Suggest as {label}")
            button.setToolTip("Fills that form with the text; it is saved only when you save the form there")
            button.clicked.connect(lambda _c=False, use=use: (use(self.text.toPlainText()), self.accept()))
            buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
            self.suggest_buttons.append(button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.where)
        lay.addWidget(self.text, 1)
        lay.addWidget(buttons)
        self.resize(520, 300)

    def copy(self) -> None:
        """Put the text (as corrected) on the clipboard."""
        QGuiApplication.clipboard().setText(self.text.toPlainText())


def selected_box(window) -> tuple[float, float, float, float] | None:  # noqa: ANN001 - MainWindow
    """The one box selected on the frame shown, as (x, y, w, h) pixels; None when no box or several are selected."""
    from fieldstudio.annotations.box_tracks import boxes_on_frame

    state = window.state
    if state.media is None or len(state.selection) != 1:
        return None
    for b in boxes_on_frame(state.project, state.media.id, state.video_frame()):
        if b.annotation_id in state.selection:
            x1, y1, x2, y2 = b.box
            return (x1, y1, x2 - x1, y2 - y1)
    return None


def read_text_here(window, done: Callable[[ReadTextDialog], None] | None = None) -> workers.Worker | None:  # noqa: ANN001
    """Read the text of the selected box or the frame on screen in the background, then show ReadTextDialog with
    the workspace's suggestion targets. Says why in the status bar when no photo or video frame is shown."""
    from fieldstudio.media.frame_text import read_frame_text

    state = window.state
    if state.project is None or state.media is None or state.media.kind not in ("image", "video") \
            or window.view.showing_document():
        window.statusBar().showMessage("Read text here: show a photo or a video frame first (a document's "
                                       "scanned pages are read on import)", 6000)
        return None
    box = selected_box(window)
    frame = state.frame_index if state.media.kind == "video" else 0
    window.statusBar().showMessage("Reading the text " + ("in the selected box…" if box else "of the frame…"))

    def show(result) -> None:  # noqa: ANN001 - FrameText
        if not isValid(window):  # closed while the text was read: nothing is left to show it in
            return
        window.statusBar().clearMessage()
        dialog = ReadTextDialog(result, window.workspace.text_targets(), window)
        dialog.open()
        if done is not None:
            done(dialog)

    def failed(message: str) -> None:
        if not isValid(window):
            return
        window.statusBar().clearMessage()
        box = QMessageBox(QMessageBox.Icon.Warning, "Read text here", message, QMessageBox.StandardButton.Ok, window)
        box.setObjectName("read_text_failed")
        box.open()

    def read(project, media_id, frame_index, box, *, progress, cancelled):  # noqa: ANN001, ANN202, ARG001
        return read_frame_text(project, media_id, frame_index, box)

    worker = workers.Worker(read, state.project, state.media.id, frame, box)
    worker.signals.result.connect(show)
    worker.signals.error.connect(failed)
    return workers.start(worker)
