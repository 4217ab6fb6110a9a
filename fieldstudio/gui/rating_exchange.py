"""File ▸ Rating packages: send a rating set to a rater offline and merge their work back.

A package is a .zip with the items' media (or a .json without them) made by
``ratings.packages``; importing merges by UUID, so importing twice changes nothing. The work runs
in a worker with a progress dialog; the result is summarised in a message box.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from fieldstudio.gui import workers
from fieldstudio.ratings import packages as rating_package
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.project import Project

BLIND = "A blind package for a new rater (no ratings)"
ALL = "Every rater's ratings"
MINE = "One rater's ratings (to send my work back)"


def _run(parent: QWidget, title: str, fn: Callable, *args, done: Callable[[object], None], **kwargs) -> workers.Worker:
    return workers.run_with_progress(parent, f"{title}…", fn, *args, title=title, done=done,
                                     failed=lambda msg: QMessageBox.critical(parent, f"{title} failed", msg), **kwargs)


def export_dialog(parent: QWidget, project: Project) -> workers.Worker | None:
    """Ask which set, which ratings and where; write the package in the background."""
    sets = ratings.list_rating_sets(project)
    if not sets:
        QMessageBox.information(parent, "Export rating package", "This project has no rating set yet.")
        return None
    name, ok = QInputDialog.getItem(parent, "Export rating package", "Rating set:", [s.name for s in sets], 0, False)
    if not ok:
        return None
    info = next(s for s in sets if s.name == name)
    what, ok = QInputDialog.getItem(parent, "Export rating package", "Include:", [BLIND, MINE, ALL], 0, False)
    if not ok:
        return None
    ratings_of: list[str] | str | None = None
    if what == ALL:
        ratings_of = "all"
    elif what == MINE:
        if not info.raters:
            QMessageBox.information(parent, "Export rating package", f"Nobody has rated {name!r} yet.")
            return None
        rater, ok = QInputDialog.getItem(parent, "Export rating package", "Rater:", info.raters, 0, False)
        if not ok:
            return None
        ratings_of = [rater]
    path, _ = QFileDialog.getSaveFileName(parent, "Export rating package", f"{name}.zip",
                                          "Rating package with media (*.zip);;Without media (*.json)")
    if not path:
        return None
    out = Path(path)
    if out.suffix.lower() not in (".zip", ".json"):
        out = out.with_suffix(".zip")

    def done(report: rating_package.ExportReport) -> None:
        text = (f"Wrote {report.path}:\n{report.items} item(s), {report.ratings} rating(s), "
                f"{report.media_files} media file(s).")
        if report.missing:
            text += f"\n\nMedia files not found on disk (not included): {', '.join(report.missing)}"
        QMessageBox.information(parent, "Rating package exported", text)

    return _run(parent, "Exporting the rating package", rating_package.export_package, project, info.id, out,
                ratings_of=ratings_of, include_media=out.suffix.lower() == ".zip", done=done)


def import_summary(r: rating_package.ImportReport) -> str:
    """What a merge did, for a person."""
    lines = [f"{r.rating_set!r}{' (new set)' if r.set_created else ''}",
             f"items: {r.items_added} added, {r.items_known} already here, {r.items_aliased} matched by media",
             f"media files: {r.media_added} added",
             f"ratings: {r.ratings_added} added, {r.ratings_updated} updated, {r.ratings_unchanged} unchanged"]
    if r.media_missing:
        lines.append(f"media not found: {', '.join(r.media_missing)}")
    for label, who, kept in r.conflicts[:10]:
        lines.append(f"conflict on {label} by {who}: kept the {kept} version (the other is in its history)")
    return "\n".join(lines)


def import_dialog(parent: QWidget, project: Project, done: Callable[[], None]) -> workers.Worker | None:
    """Choose a package and merge it; ``done()`` after the summary (panels reload)."""
    path, _ = QFileDialog.getOpenFileName(parent, "Import rating package", "", "Rating packages (*.zip *.json)")
    if not path:
        return None

    def merge(p: Project, file: Path, *, progress, cancelled):  # noqa: ANN001, ANN202 - worker signature
        return rating_package.import_package(p, file, progress=progress)

    def finished(report: rating_package.ImportReport) -> None:
        QMessageBox.information(parent, "Rating package imported", import_summary(report))
        done()

    return _run(parent, "Importing the rating package", merge, project, Path(path), done=finished)
