"""File ▸ What left this machine: per endpoint and day, the requests, frames and documents the project's model runs
sent (and the judge requests of scoring, text only), and whether the frames were blurred by the privacy gate (`inference.sent_log.what_left`, as `fieldstudio
sent` prints it)."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableView, \
    QVBoxLayout, QWidget

from fieldstudio.gui.panels.run_tables import Column, RowsModel
from fieldstudio.inference.sent_log import SentDay, what_left
from fieldstudio.store.project import Project

SENT_COLUMNS = (
    Column("Day (UTC)", lambda r: r.day),
    Column("Endpoint", lambda r: r.endpoint, lambda r: "runs: " + ", ".join(sorted(r.runs))),
    Column("Profiles", lambda r: ", ".join(sorted(r.profiles))),
    Column("Requests", lambda r: str(r.requests), lambda r: "requests that reached the endpoint (replies from the "
           "response cache sent nothing)", numeric=True),
    Column("Frames", lambda r: str(r.frames), numeric=True),
    Column("Blurred", lambda r: str(r.frames_blurred), lambda r: "frames that went through the blur-faces gate; "
           "detector: " + (", ".join(sorted(r.detectors)) or "none"), numeric=True),
    Column("Not blurred", lambda r: str(r.frames_unredacted), numeric=True),
    Column("Faces blurred", lambda r: str(r.faces_blurred), numeric=True),
    Column("Documents", lambda r: str(r.documents), lambda r: "documents are sent as their text, never redacted",
           numeric=True),
    Column("Redacted", lambda r: r.redacted),
    Column("Judge requests", lambda r: str(r.judge_requests), lambda r: "scoring's judge requests that reached the "
           "endpoint: answer and reference texts, never a frame", numeric=True),
    Column("Judge characters", lambda r: str(r.judge_characters), numeric=True),
)


class SentDialog(QDialog):
    """The table of `what_left` for a project, newest day first."""

    def __init__(self, project: Project, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("What left this machine")
        self.rows: list[SentDay] = what_left(project)
        self.model = RowsModel(SENT_COLUMNS, self)
        self.model.set_rows(self.rows)
        self.table = QTableView()
        self.table.setObjectName("sent_table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        frames = sum(r.frames for r in self.rows)
        unblurred = sum(r.frames_unredacted for r in self.rows)
        judged = sum(r.judge_requests for r in self.rows)
        characters = sum(r.judge_characters for r in self.rows)
        self.summary = QLabel(
            "Nothing has left this machine: no model request was sent from this project." if not self.rows else
            f"{frames} frame(s) sent to {len({r.endpoint for r in self.rows})} endpoint(s); {unblurred} of them NOT "
            f"blurred. Documents are sent as their text and are never redacted. {judged} judge request(s) sent "
            f"{characters:,} characters of answer and reference text, never a frame.")
        self.summary.setObjectName("sent_summary")
        self.summary.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(1240, 360)


def show_sent(parent: QWidget, project: Project) -> SentDialog:
    """Open the dialog (modeless) and return it."""
    dialog = SentDialog(project, parent)
    dialog.show()
    return dialog
