"""The welcome screen's "Import a benchmark…": a new project, its task files and its media folder in one dialog.

The dialog only gathers the three paths and says what it sees in them (the task format detected, or how many
task files a folder holds; how many files the media folder has). The window then creates the project and runs
``gui.file_menu.import_benchmark`` (media first, then the same task import as File ▸ Import tasks).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from fieldstudio import benchmarks
from fieldstudio.gui import file_menu
from fieldstudio.gui.panels.edit_support import ERROR_STYLE

SUFFIX = ".fieldstudio"
COUNT_BUDGET_S = 0.25
"""Longest the dialog walks a tasks folder to count its files (a typed "/" or a home folder is huge)."""
CHECK_DELAY_MS = 300
"""Typing pauses this long before the paths are checked again (each check reads the disk)."""


def project_path_for(tasks: Path, folder: Path) -> Path:
    """A new project's default file in ``folder``, named for the benchmark: the tasks folder's parent when it is
    a generic name (``ground_truth``, ``tasks``...), else the folder or file stem; never an existing file."""
    name = tasks.stem if tasks.suffix else tasks.name
    if name.lower() in ("ground_truth", "tasks", "data", "annotations", "questions") and tasks.parent.name:
        name = tasks.parent.name
    candidate, n = folder / f"{name}{SUFFIX}", 2
    while candidate.exists():
        candidate, n = folder / f"{name}-{n}{SUFFIX}", n + 1
    return candidate


def describe_tasks(path: Path) -> str:
    """What the import will find at ``path``: the detected format of a file, or the task files of a folder.
    Raises ValueError with the reason when nothing there can be imported as tasks."""
    from fieldstudio.tasks import formats, importing

    if path.is_dir():
        n, complete = importing.count_task_files(path, COUNT_BUDGET_S)
        if not complete:
            return (f"{n} task file(s) found so far: a large folder (all of it is read on import; check it is the "
                    "benchmark's)")
        if not n:
            raise ValueError(f"{path}: the folder has no task files "
                             f"({', '.join('*' + s for s in importing.TASK_FILE_SUFFIXES)})")
        return f"{n} task file(s) in the folder; the format is detected per file"
    if not path.is_file():
        raise ValueError(f"{path}: does not exist")
    fmt, reason = formats.sniff_format(path)
    if fmt not in formats.names(formats.TASKS):
        raise ValueError(f"{path.name}: not a task file: {reason or f'it looks like {fmt} (answers)'}")
    return f"{fmt} task file"


class BenchmarkDialog(QDialog):
    """Project file (new), tasks (a file or a folder), media folder (optional); ``values()`` once accepted."""

    def __init__(self, parent: QWidget | None = None, *, folder: Path | None = None):
        super().__init__(parent)
        self.setObjectName("benchmark_dialog")
        self.setWindowTitle("Import a benchmark")
        self._folder = folder or Path.home()
        self._project_edited = False
        self.project_edit = QLineEdit(str(self._folder / f"benchmark{SUFFIX}"))
        self.project_edit.setObjectName("benchmark_project")
        self.project_edit.setToolTip("The new project file to create (it must not exist yet)")
        self.tasks_edit = QLineEdit()
        self.tasks_edit.setObjectName("benchmark_tasks")
        self.tasks_edit.setPlaceholderText(f"a task file ({benchmarks.format_titles()}) or a folder")
        self.media_edit = QLineEdit()
        self.media_edit.setObjectName("benchmark_media")
        self.media_edit.setPlaceholderText("optional: the folder with the photos, videos and documents")
        self.tasks_info = QLabel("")
        self.tasks_info.setObjectName("benchmark_tasks_info")
        self.tasks_info.setWordWrap(True)
        self.message = QLabel("")
        self.message.setObjectName("benchmark_message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet(ERROR_STYLE)

        browse_project = QPushButton("Browse…")
        browse_project.clicked.connect(self._browse_project)
        tasks_file = QPushButton("File…")
        tasks_file.clicked.connect(lambda: self._browse_tasks(folder=False))
        tasks_folder = QPushButton("Folder…")
        tasks_folder.clicked.connect(lambda: self._browse_tasks(folder=True))
        media_folder = QPushButton("Folder…")
        media_folder.clicked.connect(self._browse_media)
        form = QFormLayout()
        form.addRow("New project:", _row(self.project_edit, browse_project))
        form.addRow("Tasks:", _row(self.tasks_edit, tasks_file, tasks_folder))
        form.addRow("", self.tasks_info)
        form.addRow("Media folder:", _row(self.media_edit, media_folder))
        hint = QLabel("The media are added first, so the tasks find the photos and videos they name; media still "
                      "missing are listed in the import report, with a button to add their folder later.")
        hint.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.addButton("Create and import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok_button.setObjectName("benchmark_ok")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(hint)
        layout.addWidget(self.message)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.project_edit.textEdited.connect(self._project_typed)
        # checked once typing pauses, not per key: each check reads the disk, and a path typed from its "/"
        # passes through the root folder on its way
        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.check)
        for edit in (self.project_edit, self.tasks_edit, self.media_edit):
            edit.textEdited.connect(self._typed)
            edit.textChanged.connect(self._changed)
        self.resize(760, 300)
        self.check()

    # -- choosing --------------------------------------------------------------------------------------
    def set_tasks(self, path: Path | str) -> None:
        """Choose the tasks; the project's name follows them until the user types one."""
        self.tasks_edit.setText(str(path))
        if not self._project_edited and str(path).strip():
            self.project_edit.setText(str(project_path_for(Path(path), self._folder)))

    def _project_typed(self, _text: str) -> None:
        self._project_edited = True

    def _typed(self, _text: str) -> None:
        # Qt emits textEdited (typing only) before textChanged: the timer runs when textChanged comes
        self.ok_button.setEnabled(False)   # until the paths as typed are checked
        self._check_timer.start()

    def _changed(self, _text: str) -> None:
        if not self._check_timer.isActive():
            self.check()                   # chosen with Browse… or set by code: at once

    def _browse_project(self) -> None:
        chosen, _ = QFileDialog.getSaveFileName(self, "New project", self.project_edit.text(),
                                                f"fieldstudio projects (*{SUFFIX})")
        if chosen:
            self.project_edit.setText(chosen)
            self._project_edited = True

    def _browse_tasks(self, *, folder: bool) -> None:
        if folder:
            chosen = QFileDialog.getExistingDirectory(self, "Folder of task files")
        else:
            chosen = QFileDialog.getOpenFileName(self, "Task file", "", file_menu.import_filter("tasks"))[0]
        if chosen:
            self.set_tasks(chosen)

    def _browse_media(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Media folder")
        if chosen:
            self.media_edit.setText(chosen)

    # -- checking --------------------------------------------------------------------------------------
    def values(self) -> tuple[Path, Path, Path | None]:
        """(project file with the .fieldstudio suffix, tasks file or folder, media folder or None)."""
        project = Path(self.project_edit.text().strip()).expanduser()
        if project.name and project.suffix != SUFFIX:   # "/" or "dir/" have no name to add it to
            project = project.with_name(project.name + SUFFIX)
        media = self.media_edit.text().strip()
        return project, Path(self.tasks_edit.text().strip()).expanduser(), Path(media).expanduser() if media else None

    def problems(self) -> list[str]:
        """Why the choice cannot be imported yet (empty when it can); fills the tasks' description."""
        out: list[str] = []
        project, tasks, media = self.values()
        if not self.project_edit.text().strip():
            out.append("Name the new project file.")
        elif not project.name or project.is_dir():
            out.append(f"{project}: is a folder; name the new project file in it (…/name{SUFFIX}).")
        elif project.exists():
            out.append(f"{project}: exists already; choose a new file (open it from the welcome screen instead).")
        elif not project.parent.is_dir():
            out.append(f"{project.parent}: the folder does not exist.")
        self.tasks_info.setText("")
        if not self.tasks_edit.text().strip():
            out.append("Choose a task file or a folder of task files.")
        else:
            try:
                self.tasks_info.setText(describe_tasks(tasks))
            except ValueError as exc:
                out.append(str(exc))
        if media is not None and not media.is_dir():
            out.append(f"{media}: is not a folder.")
        return out

    def check(self) -> bool:
        """Show the problems and enable "Create and import" when there are none."""
        problems = self.problems()
        self.message.setText("\n".join(problems))
        self.ok_button.setEnabled(not problems)
        return not problems

    def accept(self) -> None:  # noqa: D102 - QDialog override: refuse while a problem remains
        self._check_timer.stop()
        if self.check():
            super().accept()


def _row(edit: QLineEdit, *buttons: QPushButton) -> QHBoxLayout:
    row = QHBoxLayout()
    row.addWidget(edit, 1)
    for b in buttons:
        b.setAutoDefault(False)
        row.addWidget(b)
    return row
