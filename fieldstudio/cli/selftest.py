"""``fieldstudio self-test``: check that this installation works (Qt, libVLC, frames, PDF, projects, demo).

The checks live in :mod:`fieldstudio.selftest.checks`; this module prints their table and sets the exit code:
0 when every check passes, 1 when one fails, 2 for bad options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Optional

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from fieldstudio.cli.output import fail, out


def print_results(results: Sequence) -> None:  # noqa: ANN001 - selftest.CheckResult
    """Print the checks as a table (check, PASS/FAIL, seconds, detail) and a closing line."""
    table = Table(box=box.SIMPLE, show_lines=False, pad_edge=False, title="fieldstudio self-test")
    table.add_column("check")
    table.add_column("result")
    table.add_column("s", justify="right")
    table.add_column("detail", overflow="fold")
    for r in results:
        mark = "[green]PASS[/green]" if r.passed else "[red]FAIL[/red]"
        table.add_row(r.title, mark, f"{r.seconds:.1f}", r.detail.replace("[", r"\["))
    # in a terminal the table fits the window; in a log (CI, a pipe) each check stays on one line
    (out if out.is_terminal else Console(width=200, highlight=False)).print(table)
    passed = sum(r.passed for r in results)
    out.print(f"self-test: {passed} of {len(results)} checks passed", markup=False)


def register(app: typer.Typer) -> None:
    """Add the ``self-test`` command to the main command line."""

    @app.command("self-test")
    def self_test(
        only: Annotated[Optional[list[str]], typer.Option(
            "--only", help="run only this check (repeatable): qt, vlc, frame, codecs, pdf, opencv, faces, project, demo")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print the results as one line of JSON")] = False,
        no_isolate: Annotated[bool, typer.Option(
            "--no-isolate", hidden=True, help="run the Qt check in this process (used by the self-test itself)")] = False,
    ) -> None:
        """Check that this installation works: Qt window, libVLC playback, exact frames, every codec, PDF, OpenCV, the face detector, projects, demo.

        Prints one row per check with PASS or FAIL and exits 0 only when all pass. Without a display
        (Linux) Qt's offscreen platform is used. The log file (see Help > Show logs) has the details.
        """
        from fieldstudio.logs import setup_logging
        from fieldstudio.selftest.checks import results_json, run_checks

        log_file = setup_logging()
        try:
            results = run_checks(only, isolate_qt=not no_isolate)
        except ValueError as exc:
            raise fail(str(exc))
        if as_json:
            print(results_json(results))
        else:
            print_results(results)
            out.print(f"log: {log_file}", markup=False)
        raise typer.Exit(0 if results and all(r.passed for r in results) else 1)
