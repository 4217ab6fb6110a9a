"""File ▸ Redact media for sharing: blurred copies of images and videos chosen on disk, written in the background
by `privacy.redact_media.redact_files` (as `fieldstudio redact` writes them)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from fieldstudio.gui import workers
from fieldstudio.media.images import IMAGE_SUFFIXES
from fieldstudio.privacy.redact_media import VIDEO_SUFFIXES, RedactReport, redact_files

TITLE = "Redact media for sharing"


def redact_dialog(parent: QWidget) -> workers.Worker | None:
    """Ask for the files and the folder of their copies, then write the copies in the background."""
    patterns = " ".join(f"*{s}" for s in sorted(IMAGE_SUFFIXES | VIDEO_SUFFIXES))
    files, _ = QFileDialog.getOpenFileNames(parent, TITLE, "", f"Images and videos ({patterns})")
    if not files:
        return None
    folder = QFileDialog.getExistingDirectory(parent, "Folder for the blurred copies", str(Path(files[0]).parent))
    if not folder:
        return None
    return start_redaction(parent, [Path(f) for f in files], Path(folder))


def start_redaction(parent: QWidget, files: list[Path], folder: Path) -> workers.Worker:
    """Write the blurred copies of `files` into `folder` behind a progress dialog; say what was written."""
    return workers.run_with_progress(
        parent, "Blurring faces…", redact_files, files, folder, title=TITLE,
        done=lambda report: QMessageBox.information(parent, TITLE, report_text(report)),
        failed=lambda message: QMessageBox.critical(parent, f"{TITLE} failed", message))


def report_text(report: RedactReport) -> str:
    """What was written and what was not, in plain words."""
    lines = [f"{w.copy.name}: {w.faces} face(s) blurred in {w.frames} frame(s)"
             + (f" (encoded with {w.encoder})" if w.encoder else "")
             + (f", {w.audio_streams} audio stream(s) copied" if w.audio_streams else "")
             + (f", rotation {w.rotation}° kept" if w.rotation else "")
             + (f"; the source is DAMAGED, {w.damage}" if w.damage else "") for w in report.written]
    lines += [f"{taken} already existed (not overwritten): written as {name}" for taken, name in report.renamed]
    lines += [f"NOT copied: {why}" for _, why in report.failed]
    folder = report.written[0].copy.parent if report.written else None
    head = f"{len(report.written)} blurred cop{'y' if len(report.written) == 1 else 'ies'} written" + (
        f" to {folder}" if folder else "") + f" (face detector {report.detector})."
    return "\n".join([head, "", *lines])
