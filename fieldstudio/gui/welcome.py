"""The welcome screen: the demo project one click away, new, open, import a benchmark, and the recent projects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget


PATH_ROLE = Qt.ItemDataRole.UserRole + 1


class WelcomePage(QWidget):
    """Signals: ``open_demo()``, ``new_project()``, ``open_project()``, ``open_shared()``, ``import_benchmark()``,
    ``open_path(path)`` (a file path or a shared project's URL)."""

    open_demo = Signal()
    new_project = Signal()
    open_project = Signal()
    open_shared = Signal()
    import_benchmark = Signal()
    open_path = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        title = QLabel("<h1>fieldstudio</h1><p>Annotate field-work footage, write questions with their answers, "
                       "and compare vision-language models on them.</p>")
        title.setWordWrap(True)
        self.demo_button = QPushButton("Open the demo project")
        self.demo_button.setToolTip("Sample factory and warehouse clips, photos and an OSHA manual")
        self.new_button = QPushButton("New project…")
        self.open_button = QPushButton("Open project…")
        self.shared_button = QPushButton("Open shared project…")
        self.shared_button.setToolTip("A project on a PostgreSQL server, shared by a team (a URL)")
        self.benchmark_button = QPushButton("Import a benchmark…")
        self.benchmark_button.setObjectName("import_benchmark")
        for b in (self.demo_button, self.new_button, self.open_button, self.shared_button, self.benchmark_button):
            b.setMinimumHeight(36)
        self.recent = QListWidget()
        self.recent.setToolTip("Double-click to open")
        buttons = QHBoxLayout()
        for b in (self.demo_button, self.new_button, self.open_button, self.shared_button, self.benchmark_button):
            buttons.addWidget(b)
        inner = QVBoxLayout()
        inner.addWidget(title)
        inner.addLayout(buttons)
        inner.addSpacing(12)
        inner.addWidget(QLabel("<b>Recent projects</b>"))
        inner.addWidget(self.recent, 1)
        box = QWidget()
        box.setLayout(inner)
        box.setMaximumWidth(860)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addWidget(box, 3)
        outer.addStretch(1)
        self.demo_button.clicked.connect(self.open_demo)
        self.new_button.clicked.connect(self.new_project)
        self.open_button.clicked.connect(self.open_project)
        self.shared_button.clicked.connect(self.open_shared)
        self.benchmark_button.clicked.connect(self.import_benchmark)
        self.recent.itemActivated.connect(lambda item: self.open_path.emit(item.data(PATH_ROLE)))

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        # the tip names the declared benchmarks: written when the page is first shown, so a window opening a
        # project (this page hidden) does not import fieldstudio.benchmarks before its first paint
        if not self.benchmark_button.toolTip():
            from fieldstudio import benchmarks

            self.benchmark_button.setToolTip("A new project with a benchmark's tasks (a file or a folder such as "
                                             f"{benchmarks.task_folder_examples()}) and its media folder, in one step")
        super().showEvent(event)

    def set_recent(self, paths: list[Path | str]) -> None:
        """Show the recent projects: files as "name    folder", shared projects as "database    URL"."""
        self.recent.clear()
        for p in paths:
            text = f"{p.rsplit('/', 1)[-1]}    {p}" if isinstance(p, str) else f"{p.stem}    {p.parent}"
            item = QListWidgetItem(text)
            item.setData(PATH_ROLE, str(p))
            item.setToolTip(str(p))
            self.recent.addItem(item)
        if not paths:
            item = QListWidgetItem("No recent projects yet: open the demo to look around.")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.recent.addItem(item)
