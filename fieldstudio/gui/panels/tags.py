"""Tags of the media shown and of its current frame ("blurry", "no people"): list, add, remove.

Tags are annotations of kind ``tag`` (``annotations.records.add_tag``); a media-level tag has no frame.
Adding is an ``AddTag`` edit and removing a ``DeleteAnnotations`` edit, both handed to ``apply_edit``.
The text field completes from the tags already used in the project
(``annotations.rows.project_tag_texts``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QCompleter, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QPushButton, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.gui.panels.edit_support import ERROR_STYLE, ApplyEdit, do_now
from fieldstudio.gui.viewer.frame_read_ahead import FrameReadAhead

if TYPE_CHECKING:
    from fieldstudio.gui.state import ViewState
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project

TAG_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class TagsPanel(QWidget):
    """Two lists (whole media, current frame), a text field with completion, add and remove.

    Signals: ``tags_changed(media_id)`` after a tag is added or removed here; ``status(str)``.
    Slots: :meth:`set_project`, :meth:`follow_view` (the window's state: the media and frame shown),
    :meth:`refresh`.
    """

    tags_changed = Signal(str)
    status = Signal(str)

    def __init__(self, parent: QWidget | None = None, apply_edit: ApplyEdit | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self._view: ViewState | None = None
        self._deleted: str | None = None  # the media shown, deleted meanwhile: no tags to show or add
        self._is_video = False
        self._apply: ApplyEdit = apply_edit or do_now
        self._read_ahead: FrameReadAhead | None = None  # the window's read of the frame the viewer decodes

        self.media_list = QListWidget()
        self.media_list.setToolTip("Tags of the whole media (Delete removes the selected one)")
        self.frame_list = QListWidget()
        self.frame_list.setToolTip("Tags of the frame shown (Delete removes the selected one)")
        for lst in (self.media_list, self.frame_list):
            lst.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
            action = QAction("Remove tag", lst)
            action.setShortcut(QKeySequence(Qt.Key.Key_Delete))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _=False, w=lst: self.remove_selected(w))
            lst.addAction(action)
        self.media_title = QLabel("Whole media")
        self.frame_title = QLabel("This frame")
        self.tag_edit = QLineEdit()
        self.tag_edit.setPlaceholderText("Tag, e.g. blurry, no people")
        self.tag_edit.setToolTip("Enter tags the frame shown (or the photo); the buttons choose frame or media")
        self._completions = QStringListModel(self)
        completer = QCompleter(self._completions, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.tag_edit.setCompleter(completer)
        self.tag_frame_button = QPushButton("Tag frame")
        self.tag_frame_button.setToolTip("Add the tag to the frame shown")
        self.tag_media_button = QPushButton("Tag media")
        self.tag_media_button.setToolTip("Add the tag to the whole photo or video")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected tags (Delete)")
        self.message = QLabel()
        self.message.setWordWrap(True)

        lists = QGridLayout()
        lists.addWidget(self.media_title, 0, 0)
        lists.addWidget(self.frame_title, 0, 1)
        lists.addWidget(self.media_list, 1, 0)
        lists.addWidget(self.frame_list, 1, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.tag_frame_button)
        buttons.addWidget(self.tag_media_button)
        buttons.addStretch(1)
        buttons.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(lists, 1)
        layout.addWidget(self.tag_edit)
        layout.addLayout(buttons)
        layout.addWidget(self.message)

        self.tag_edit.returnPressed.connect(self._enter)
        self.tag_frame_button.clicked.connect(lambda: self.add_tag(self.tag_edit.text(), to_frame=True))
        self.tag_media_button.clicked.connect(lambda: self.add_tag(self.tag_edit.text(), to_frame=False))
        self.remove_button.clicked.connect(self._remove_clicked)
        self.refresh()

    # -- wiring -------------------------------------------------------------------------------------
    def set_apply_edit(self, apply_edit: ApplyEdit | None) -> None:
        """Where edits go (the window's undo stack); None does them without undo."""
        self._apply = apply_edit or do_now

    def set_project(self, project: Project | None) -> None:
        """Show tags of ``project`` (of the media the followed state shows, see :meth:`follow_view`)."""
        self.project = project
        self._deleted = None
        self.refresh()

    def follow_view(self, state: ViewState) -> None:
        """Show the tags of the media and frame ``state`` shows (gui/state.py): read again when another media or
        another exact video frame is shown (that frame's tags read while the viewer decodes it)."""
        self._view = state
        self._read_ahead = FrameReadAhead.of(state)
        state.events.media.connect(lambda _m: self.refresh())
        state.events.frame.connect(lambda f: f[2] and self.frame_index is not None and self._frame_shown())
        self.refresh()

    @property
    def media_id(self) -> str | None:
        """The media shown (None with nothing shown, or when it was deleted)."""
        media = self._view.media if self._view is not None else None
        return media.id if media is not None and media.id != self._deleted else None

    @property
    def frame_index(self) -> int | None:
        """The video frame shown (None for a photo, a document, or nothing shown)."""
        return self._view.video_frame() if self._view is not None else None

    def refresh(self) -> None:
        """Re-read the tags (after an undo, or an edit elsewhere) and the completion list."""
        if self._read_ahead is not None:
            self._read_ahead.drop()
        kind = None
        if self.project is not None and self.media_id is not None:
            from fieldstudio.annotations import rows as views

            try:
                kind = views.media_brief(self.project, self.media_id).kind
            except NotFound:
                self._deleted = self.media_id
        self._is_video = kind == "video"
        self._show_tags(self._read_tags())
        if self.project is not None and self.media_id is not None:
            from fieldstudio.annotations import rows as views

            self._completions.setStringList(views.project_tag_texts(self.project))
        else:
            self._completions.setStringList([])

    def _read_tags(self, frame: int | None = None) -> tuple[list, list] | None:
        """(media tags, tags of the frame shown, or of ``frame``), or None with no media shown."""
        if self.project is None or self.media_id is None:
            return None
        from fieldstudio.annotations import rows as views

        on_frame = self._is_video and self.frame_index is not None
        return views.tags_at(self.project, self.media_id, frame if frame is not None else
                             self.frame_index if on_frame else None)

    def _frame_shown(self) -> None:
        """Another exact frame of the same video: only its tags change (read ahead when the viewer asked for it)."""
        ahead = self._read_ahead.take("tags", self.project, self.media_id, self.frame_index) if self._is_video else None
        self._show_tags((ahead.media_tags, ahead.frame_tags) if ahead is not None else self._read_tags())

    def _show_tags(self, tags: tuple[list, list] | None) -> None:
        self.media_list.clear()
        self.frame_list.clear()
        on_frame = self._is_video and self.frame_index is not None
        if tags is not None:
            for lst, found in zip((self.media_list, self.frame_list), tags):
                for t in found:
                    item = QListWidgetItem(t.text or "")
                    item.setData(TAG_ID_ROLE, t.id)
                    lst.addItem(item)
        self.frame_title.setText(f"Frame {self.frame_index}" if on_frame else "This frame (videos only)")
        has_media = self.media_id is not None
        for w in (self.tag_edit, self.tag_media_button, self.media_list, self.remove_button):
            w.setEnabled(has_media)
        self.tag_frame_button.setEnabled(on_frame)
        self.frame_list.setEnabled(on_frame)

    # -- actions ------------------------------------------------------------------------------------
    def add_tag(self, text: str, *, to_frame: bool) -> bool:
        """Tag the current frame (``to_frame``) or the whole media with ``text``; True when added."""
        from fieldstudio.annotations.edits import AddTag

        if self.project is None or self.media_id is None:
            return False
        frame = self.frame_index if to_frame and self._is_video else None
        if to_frame and frame is None:
            self._say("Only a video frame can carry a frame tag; use Tag media", error=True)
            return False
        where = f"frame {frame}" if frame is not None else "the media"
        if self._run(AddTag(self.project, self.media_id, text, frame), f"Tagged {where} {text.strip()!r}"):
            self.tag_edit.clear()
            return True
        return False

    def remove_selected(self, lst: QListWidget | None = None) -> None:
        """Remove the selected tags of ``lst`` (default: both lists) in one undoable edit."""
        from fieldstudio.annotations.edits import DeleteAnnotations

        lists = [lst] if lst is not None else [self.media_list, self.frame_list]
        ids = [item.data(TAG_ID_ROLE) for w in lists for item in w.selectedItems()]
        if not ids or self.project is None:
            self._say("Select a tag to remove", error=True)
            return
        self._run(DeleteAnnotations(self.project, ids), f"Removed {len(ids)} tag(s)")

    def _remove_clicked(self) -> None:
        self.remove_selected(None)

    def _enter(self) -> None:
        self.add_tag(self.tag_edit.text(), to_frame=self._is_video and self.frame_index is not None)

    def _run(self, edit: Edit, done_text: str) -> bool:
        try:
            self._apply(edit)
        except FieldstudioError as exc:
            self._say(str(exc), error=True)
            return False
        self._say(done_text)
        self.refresh()
        self.tags_changed.emit(self.media_id or "")
        return True

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else "")
        self.message.setText(text)
        self.status.emit(text)
