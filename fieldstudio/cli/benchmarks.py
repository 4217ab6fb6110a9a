"""`fieldstudio benchmarks ...`: where the benchmarks' own judge files are (locate, show, forget).

fieldstudio does not ship the benchmarks' judge prompts; the official scorers (fwa-official, llm-match,
eqa-direct, eqa-reasoning) read them from the user's copy of each benchmark. ``locate`` checks the files
against the versions fieldstudio knows (SHA-256) and remembers the folder in the user's config folder
(``scoring.official.source``); ``fieldstudio score --official-source DIR`` overrides it for one call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from fieldstudio import benchmarks
from fieldstudio.cli.output import fail, out
from fieldstudio.core.errors import FieldstudioError

__all__ = ["register", "benchmarks_app"]

benchmarks_app = typer.Typer(help="The benchmarks' own judge files: locate them, show what was found, forget.",
                             no_args_is_help=True)

BenchmarkArg = Annotated[str, typer.Argument(
    help=benchmarks.names_text(b.name for b in benchmarks.official_benchmarks()))]


def _print_source(source) -> None:  # noqa: ANN001 - OfficialSource
    out.print(source.describe())
    out.print(f"  official judge model {source.settings.model or 'not named'}; {source.settings.describe()}")


@benchmarks_app.command("locate")
def locate_cmd(benchmark: BenchmarkArg,
               folder: Annotated[Path, typer.Argument(help="the benchmark's repository checkout (or the folder "
                                                           "holding its judge files)")]) -> None:
    """Check the benchmark's judge files in FOLDER and remember the folder for the official scorers."""
    from fieldstudio.scoring.official.source import locate

    try:
        source = locate(benchmark, folder)
    except FieldstudioError as exc:
        raise fail(str(exc), code=1) from None
    _print_source(source)
    out.print(f"remembered: `fieldstudio score` reads {benchmark}'s judge prompts from {source.folder}")


@benchmarks_app.command("show")
def show_cmd() -> None:
    """List each benchmark's remembered folder and whether its files are still a known version."""
    from fieldstudio.scoring.official.known import BENCHMARKS
    from fieldstudio.scoring.official.source import load_source, located_folder

    table = Table("benchmark", "folder", "status")
    for benchmark in BENCHMARKS:
        folder = located_folder(benchmark)
        if folder is None:
            table.add_row(benchmark, "—", f"not located (fieldstudio benchmarks locate {benchmark} DIR)")
            continue
        try:
            source = load_source(benchmark)
        except FieldstudioError as exc:
            table.add_row(benchmark, str(folder), f"refused: {exc}")
            continue
        versions = "; ".join(f"{f.path.name} {f.version} (sha256 {f.sha256[:12]})" for f in source.files.values())
        table.add_row(benchmark, str(folder), f"ok: {versions}; {source.settings.describe()}")
    out.print(table)


@benchmarks_app.command("forget")
def forget_cmd(benchmark: BenchmarkArg) -> None:
    """Forget the folder remembered for BENCHMARK."""
    from fieldstudio.scoring.official.source import forget

    try:
        was = forget(benchmark)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    out.print(f"forgot the {benchmark} folder" if was else f"no folder was remembered for {benchmark}")


def register(app: typer.Typer) -> None:
    """Add the `benchmarks` command group to ``app``."""
    app.add_typer(benchmarks_app, name="benchmarks")
