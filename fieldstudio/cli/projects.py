"""`fieldstudio project copy SRC DST`: a whole project from a file to a PostgreSQL database or back (issue 22)."""

from __future__ import annotations

from typing import Annotated

import typer

from fieldstudio.cli import output as cli_support


def register(app: typer.Typer) -> None:
    """Add the ``project`` command group to ``app``."""
    group = typer.Typer(help="Whole projects: copy between a .fieldstudio file and a PostgreSQL database.",
                        no_args_is_help=True)
    app.add_typer(group, name="project")

    @group.command("copy")
    def copy(
        src: Annotated[str, typer.Argument(help="project to copy: a .fieldstudio file or a PostgreSQL URL")],
        dst: Annotated[str, typer.Argument(help="new project: a .fieldstudio file that does not exist yet, or a "
                                           "PostgreSQL URL naming a missing or empty database")],
    ) -> None:
        """Copy every record of SRC (media references, annotations, tasks, ratings, runs, answers, scores, change
        log) into the new project DST with the same ids. Media files are not copied: DST refers to the same files."""
        from fieldstudio.cli.app import _project_path
        from fieldstudio.store.copying import copy_project_data

        with cli_support.open_project(src) as source, \
                cli_support.open_project(_project_path(dst), create=True) as target:
            with cli_support.progress_bar("Copying tables") as update:
                report = copy_project_data(source, target, progress=update)
            where = target.location
        cli_support.out.print(f"copied {report.total} rows into {where}", markup=False)
        for table, n in report.rows.items():
            if n:
                cli_support.out.print(f"  {table}: {n}", markup=False)
