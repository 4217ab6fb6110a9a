"""`fieldstudio runs`: a run's reproducibility record, re-checking one, and moving a run between projects.

``runs record P RUN [-o F]`` writes the record (JSON lines, ``docs/run_record.md``), ``runs verify RECORD
[--project P]`` re-checks it on this machine, ``runs export P RUN -o F`` / ``runs import P F`` move a run with its
answers, frames, scores and record. The work is done by ``fieldstudio.reproducibility`` (the services the Runs
tab calls); ``run`` (start a run) stays its own group. Register with ``register(app)``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from fieldstudio.cli.output import ProjectArg, err, fail, open_project, out, progress_bar
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.location import is_database_url

runs_app = typer.Typer(help="A run's reproducibility record (record, verify) and moving runs between projects "
                            "(export, import).", no_args_is_help=True)

ProjectArg = ProjectArg
RunArg = Annotated[str, typer.Argument(help="run id or its first 6 or more characters (`fieldstudio answers P` lists them)")]


def register(app: typer.Typer) -> None:
    """Add the ``runs`` group to ``app``."""
    app.add_typer(runs_app, name="runs")


@runs_app.command("record")
def record_cmd(project: ProjectArg, run: RunArg,
               output: Annotated[Optional[Path], typer.Option("-o", "--output", help="file to write (default: "
                                                              "print the JSON lines on stdout)")] = None) -> None:
    """Write the run's reproducibility record: the task set and its hash, every frame sent with its hash and how it
    was made, the model and what the server said it serves, strategy, judge files, seeds, versions, times."""
    from fieldstudio.inference.runs.run_records import find_run
    from fieldstudio.reproducibility import record

    with open_project(project) as p:
        run_id = find_run(p, run)
        if output is None:
            sys.stdout.buffer.write(record.record_bytes(p, run_id))
            return
        lines = record.write_record(p, run_id, output)
    out.print(f"wrote the record of run {run_id[:8]} to {output} ({lines} lines)", markup=False)


@runs_app.command("export")
def export_cmd(project: ProjectArg, run: RunArg,
               output: Annotated[Path, typer.Option("-o", "--output", help="file to write (.jsonl)")]) -> None:
    """Export a run (answers, the frames each was sent, scores and its record) to one file that `runs import`
    reads into another project. The file is the run's reproducibility record."""
    record_cmd(project, run, output)


@runs_app.command("import")
def import_cmd(project: ProjectArg,
               file: Annotated[Path, typer.Argument(help="a file written by `runs export` or `runs record`")]) -> None:
    """Import a run into PROJECT: tasks matched by id or by source and external id, media by SHA-256. Refused (exit 2,
    nothing written) when the project lacks them; importing the same run again adds nothing and says so."""
    from fieldstudio.reproducibility import record, transfer

    try:
        rec = record.read_record(file)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    with open_project(project) as p:
        outcome = transfer.import_run(p, rec)
    out.print(outcome.describe(), markup=False)
    for note in outcome.notes:
        err.print(f"note: {note}", markup=False)


@runs_app.command("verify")
def verify_cmd(
    file: Annotated[Path, typer.Argument(help="a record written by `runs record` or `runs export`")],
    project: Annotated[Optional[str], typer.Option("--project", "-p", help="project to check against (default: the "
                                                   "project the record names, when it exists here)")] = None,
    frames: Annotated[bool, typer.Option("--frames/--no-frames", help="make every frame sent again and compare its "
                                         "SHA-256 (the slow part)")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Re-check a record against the project and the media on this machine: media files' hashes, every frame sent
    decoded and encoded again, tasks' and the task set's hashes, answers, judge files, scorer and decoder versions.
    Prints every difference, one line each. Exit 0 when identical, 1 when something differs, 2 when the record
    cannot be read."""
    from fieldstudio.reproducibility import record, verify

    try:
        rec = record.read_record(file)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    target = project or rec.header.get("project_path")
    if project is None and target and not is_database_url(str(target)) and not Path(target).exists():
        err.print(f"the record's project {target} is not on this machine; pass --project", markup=False)
        target = None
    if target is None:
        result = verify.verify_record(rec, None, frames=frames)
    else:
        with open_project(target) as p, progress_bar("Making the frames again") as bar:
            result = verify.verify_record(rec, p, frames=frames, progress=bar)
    if as_json:
        out.print_json(json.dumps({"identical": result.identical, "differences": result.differences,
                                   "checked": result.checked}))
    else:
        out.print(rec.describe(), markup=False)
        for line in result.differences:
            out.print(line, markup=False)
        checked = ", ".join(f"{n} {kind}" for kind, n in result.checked.items()) or "nothing"
        out.print(("identical" if result.identical else f"{len(result.differences)} difference(s)")
                  + f" (checked {checked})", markup=False)
    raise typer.Exit(0 if result.identical else 1)
