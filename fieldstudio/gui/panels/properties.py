"""The properties panel: what fieldstudio knows about the media shown, and the mark selected on it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from fieldstudio.gui.imaging import format_pts
from fieldstudio.gui.panels.mark_properties import MarkPropertiesPanel

if TYPE_CHECKING:
    from fieldstudio.store.models import Media


def media_properties(media: Media, missing: bool) -> list[tuple[str, str]]:
    """(name, value) rows describing a media for people: sizes in pixels, times in seconds."""
    rows = [("Name", media.file_name), ("Kind", media.kind), ("Path", media.path)]
    if media.size_bytes is not None:
        rows.append(("File size", f"{media.size_bytes / 1e6:.2f} MB"))
    rows.append(("State", "missing file" if missing else f"unreadable: {media.error}" if media.status != "ok"
                 else "damaged: only part of it decodes" if media.error else "ok"))
    if media.status == "ok" and media.error:  # what the damage is (media/damage.py), in full
        rows.append(("Damage", media.error))
    if media.width:
        rows.append(("Size", f"{media.width} × {media.height} px (upright)"))
    if media.format:
        rows.append(("Format", media.format))
    if media.kind == "image" and media.orientation and media.orientation != 1:
        rows.append(("EXIF orientation", f"{media.orientation} (shown upright)"))
    if media.kind == "video":
        rows += [("Codec", media.codec or "?"),
                 ("Duration", format_pts(media.duration_s) + (" decodable" if media.error else "")),
                 ("Frames", "not indexed yet" if media.frame_count is None
                  else f"{media.frame_count} decodable" if media.error else str(media.frame_count)),
                 ("Mean frame rate", f"{media.avg_fps:.3f} fps" if media.avg_fps else "?"),
                 ("Variable frame rate", "yes" if media.is_vfr else "no"),
                 ("Rotation", f"{media.rotation}° (shown upright)" if media.rotation else "none"),
                 ("Audio", "yes" if media.has_audio else "no")]
        container = media.extra or {}
        if media.error and container.get("container_duration_s"):
            rows.append(("Container says", f"{format_pts(container['container_duration_s'])}"
                         + (f", {container['frame_count_estimate']} frames" if container.get("frame_count_estimate")
                            else "")))
        if media.time_base_den:
            rows.append(("Time base", f"{media.time_base_num}/{media.time_base_den} s"))
    if media.kind == "document":
        rows.append(("Pages", str(media.page_count or 0)))
        if media.text_encoding:
            rows.append(("Text encoding", media.text_encoding))
    if media.camera_group:
        rows.append(("Camera group", media.camera_group))
    return rows


class PropertiesPanel(QWidget):
    """A two-column table of the current media's properties; below it ``mark``, the selected box or ruler
    (gui/panels/mark_properties.py)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Property", "Value"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.table)
        self.mark = MarkPropertiesPanel()  # the selected box or ruler, under the media (hidden without one)
        layout.addWidget(self.mark)

    def show_media(self, media: Media | None, missing: bool = False) -> None:
        rows = media_properties(media, missing) if media is not None else []
        self.table.setRowCount(len(rows))
        for r, (k, v) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(k))
            item = QTableWidgetItem(v)
            item.setToolTip(v)
            self.table.setItem(r, 1, item)
        self.table.resizeColumnToContents(0)
        self.table.resizeRowsToContents()  # a damage or an unreadable reason reads whole, wrapped

    def value(self, name: str) -> str | None:
        """The value shown for property ``name`` (for tests and accessibility)."""
        for r in range(self.table.rowCount()):
            if self.table.item(r, 0).text() == name:
                return self.table.item(r, 1).text()
        return None
