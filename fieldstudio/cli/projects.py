"""`fieldstudio project copy SRC DST` (a whole project from a file to a PostgreSQL database or back) and
`fieldstudio media-root set|list|remove` (where this machine keeps a named media root), issue 22."""

from __future__ import annotations

from pathlib import Path
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
        dst: Annotated[str, typer.Argument(help="new project: a .fieldstudio file that does not exist yet or holds "
                                           "nothing, or a PostgreSQL URL naming a missing or empty database")],
    ) -> None:
        """Copy every record of SRC (media references, annotations, tasks, ratings, runs, answers, scores, change
        log) into the new project DST with the same ids. Media files are not copied: DST refers to the same files.

        A file is written under a temporary name and moved into place when complete: a failed or killed copy leaves
        nothing under DST's name, and running it again completes it."""
        from fieldstudio.store.copying import copy_project

        with cli_support.open_project(src) as source, cli_support.progress_bar("Copying tables") as update:
            report, where = copy_project(source, cli_support.project_to_create(dst), progress=update)
        cli_support.out.print(f"copied {report.total} rows into {where}", markup=False)
        for table, n in report.rows.items():
            if n:
                cli_support.out.print(f"  {table}: {n}", markup=False)

    roots = typer.Typer(help="Named media roots: where this computer keeps a team's media (user setting, not in the "
                             "project). Files added from below a root's folder are stored relative to the root.",
                        no_args_is_help=True)
    app.add_typer(roots, name="media-root")

    @roots.command("set")
    def set_cmd(name: Annotated[str, typer.Argument(help="root name shared by the team, e.g. site-footage")],
                folder: Annotated[Path, typer.Argument(help="this computer's folder for it")]) -> None:
        """Map media root NAME to FOLDER on this computer."""
        from fieldstudio.core import media_roots
        from fieldstudio.core.errors import FieldstudioError

        try:
            where = media_roots.set_root(name, folder)
        except FieldstudioError as exc:
            raise cli_support.fail(str(exc)) from None
        cli_support.out.print(f"media root {name} -> {where}", markup=False)

    @roots.command("list")
    def list_cmd() -> None:
        """Print this computer's media roots."""
        from fieldstudio.core import media_roots

        mapped = media_roots.roots()
        for name, folder in sorted(mapped.items()):
            cli_support.out.print(f"{name}\t{folder}{'' if folder.is_dir() else '  (missing)'}", markup=False)
        if not mapped:
            cli_support.out.print(f"no media roots set ({media_roots.roots_file()})", markup=False)

    @roots.command("remove")
    def remove_cmd(name: Annotated[str, typer.Argument(help="root name")]) -> None:
        """Forget this computer's folder for media root NAME."""
        from fieldstudio.core import media_roots

        if not media_roots.remove_root(name):
            raise cli_support.fail(f"media root {name!r} is not set on this computer", code=1)
        cli_support.out.print(f"media root {name} removed", markup=False)
