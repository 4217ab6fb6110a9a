"""`fieldstudio export-tasks` and `fieldstudio refresh-ground-truth`: task sets out of a project.

``export-tasks`` calls ``fieldstudio.datasets.task_export.export_tasks``; ``refresh-ground-truth`` calls
``fieldstudio.store.ground_truth.refresh_linked`` — the same services the task editor uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from fieldstudio import cli_support


def register(app: typer.Typer) -> None:
    """Add the ``export-tasks`` and ``refresh-ground-truth`` commands to ``app``."""

    @app.command("export-tasks")
    def export_tasks_cmd(
        project: Annotated[Path, typer.Argument(help="project file (.fieldstudio)")],
        fmt: Annotated[str, typer.Option("--format", "-f", help=(
            "fieldworkarena (GreenAgent JSON), industryeqa (annotation JSON), openeqa (question JSON), "
            "csv or xlsx"))],
        out: Annotated[Path, typer.Option("--out", "-o", help="file to write (a folder gets tasks.<ext>)")],
        source: Annotated[Optional[str], typer.Option("--source", help=(
            "only tasks of this source: fieldworkarena, industryeqa, openeqa, csv, manual"))] = None,
    ) -> None:
        """Export tasks with their ground truth; prints the count and every task left out with the reason."""
        from fieldstudio.datasets.task_export import export_tasks

        with cli_support.open_project(project) as p, cli_support.progress_bar("Exporting tasks") as update:
            report = export_tasks(p, fmt, out, source=source, progress=update)
        cli_support.out.print(f"{report.format}: {report.written} task(s) written to {report.path}", markup=False)
        if report.skipped:
            cli_support.out.print(f"{len(report.skipped)} task(s) left out:")
            for task, reason in report.skipped:
                cli_support.out.print(f"  {task}: {reason}", markup=False)
        if report.cancelled:
            raise typer.Exit(1)

    @app.command("refresh-ground-truth")
    def refresh_ground_truth_cmd(
        project: Annotated[Path, typer.Argument(help="project file (.fieldstudio)")],
    ) -> None:
        """Re-compute ground truths linked to annotations (rulers, segments, counts) after edits."""
        from fieldstudio.store.ground_truth import refresh_linked

        with cli_support.open_project(project) as p:
            changes = refresh_linked(p)
        updated = [c for c in changes if c.ok]
        cli_support.out.print(f"{len(updated)} linked ground truth(s) updated")
        for c in changes:
            if c.ok:
                cli_support.out.print(f"  {c.external_id}: {c.old!r} -> {c.new!r} ({c.explanation})", markup=False)
            else:
                cli_support.out.print(f"  {c.external_id}: kept {c.old!r}: {c.explanation}", markup=False)
