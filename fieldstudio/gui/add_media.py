"""Adding media from the window (menu or drag-and-drop): a progress dialog with cancel, then a summary.

The work is ``media.ingest.add_index_thumbnail``: add the files, give the new videos their packet index
(the window's background indexer verifies it, gui/indexing.py), make thumbnails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from fieldstudio.core.file_names import printable_path
from fieldstudio.core.wording import plural
from fieldstudio.gui import workers
from fieldstudio.media.ingest import add_index_thumbnail
from fieldstudio.media.library import AddReport
from fieldstudio.store.project import Project


def summary_text(report: AddReport) -> str:
    """What the user reads after an import: counts per kind, duplicates, and every unreadable file with why."""
    parts = [plural(n, kind) for kind, n in sorted(report.imported.items())]
    lines = [f"Added {', '.join(parts) if parts else 'nothing'}."]
    if report.duplicates:
        lines.append(f"{len(report.duplicates)} file(s) were already in the project.")
    if report.skipped:
        lines.append(f"{len(report.skipped)} file(s) in the folders are not media and were left out.")
    if report.cancelled:
        lines.append("The import was cancelled; what was added before stays.")
    if report.damaged:
        lines.append(f"{len(report.damaged)} file(s) added damaged (only part of them decodes):")
        lines += [f"  {path.name}: {reason}" for path, reason in report.damaged[:20]]
    if report.unreadable:
        lines.append(f"{len(report.unreadable)} file(s) could not be read:")
        # a name that is not UTF-8 shows its bytes as \xNN (as stored), not as replacement characters
        lines += [f"  {printable_path(path.name)}: {reason}" for path, reason in report.unreadable[:20]]
        if len(report.unreadable) > 20:
            lines.append(f"  … and {len(report.unreadable) - 20} more")
    return "\n".join(lines)


def start_import(parent: QWidget, project: Project, paths: Sequence[Path],
                 done: Callable[[AddReport], None]) -> workers.Worker:
    """Run the import in the background with a progress dialog; ``done(report)`` after the summary."""
    def on_result(report: AddReport) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning if report.unreadable or report.damaged
                          else QMessageBox.Icon.Information,
                          "Media added", summary_text(report), QMessageBox.StandardButton.Ok, parent)
        box.setObjectName("import_summary")
        box.open()
        done(report)

    return workers.run_with_progress(parent, "Adding media…", add_index_thumbnail, project, [Path(p) for p in paths],
                                     title="Adding media", done=on_result, packets_only=True,
                                     failed=lambda message: QMessageBox.critical(parent, "Adding media failed",
                                                                                 message))
