"""The annotations panel: the marks on the media shown; choosing one jumps to its frame."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QVBoxLayout, QWidget
from sqlalchemy import select

from fieldstudio.store.models import Annotation, Label
from fieldstudio.store.project import Project

ANNOTATION_ROLE = Qt.ItemDataRole.UserRole + 1


class AnnotationsPanel(QWidget):
    """Lists the live (not deleted) annotations of one media in frame order.

    Signal ``jump(frame_index)`` when an annotation on a video frame is chosen.
    """

    jump = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setToolTip("Choose a mark to go to its frame")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)

    def show_media(self, project: Project | None, media_id: str | None) -> None:
        self.list.clear()
        if project is None or media_id is None:
            return
        with project.read() as s:
            labels = {lid: name for lid, name in s.execute(select(Label.id, Label.name))}
            rows = list(s.scalars(select(Annotation).where(Annotation.media_id == media_id,
                                                           Annotation.deleted.is_(False))))
        rows.sort(key=lambda a: (a.frame_index if a.frame_index is not None else -1, a.kind))
        for a in rows:
            where = ""
            if a.frame_index is not None:
                where = f"frame {a.frame_index}"
                if a.end_frame_index is not None:
                    where += f"–{a.end_frame_index}"
            text = f"{a.kind}  {labels.get(a.label_id, '')}  {where}".strip()
            item = QListWidgetItem(text)
            item.setData(ANNOTATION_ROLE, a.frame_index)
            self.list.addItem(item)

    def _activated(self, item: QListWidgetItem) -> None:
        index = item.data(ANNOTATION_ROLE)
        if index is not None:
            self.jump.emit(int(index))
