"""`fieldstudio evidence P`: whether each model was sent a frame of the moment its tasks' ground truth is about,
and each source's accuracy split by it (``compare.evidence``, the same service as Compare's detail pane).
Register with ``register(app)``."""

from __future__ import annotations

import json
import math
from typing import Annotated, Optional

import typer
from rich.table import Table

from fieldstudio.cli.output import ProjectArg, fail, open_project, out
from fieldstudio.core.errors import FieldstudioError


def register(app: typer.Typer) -> None:
    """Add the ``evidence`` command to ``app``."""
    app.command("evidence")(evidence_cmd)


def evidence_cmd(
    project: ProjectArg,
    run: Annotated[Optional[list[str]], typer.Option(
        "--run", help="run id, id prefix or name (repeat for several; default: every run)")] = None,
    scorer: Annotated[Optional[str], typer.Option(
        "--scorer", help="whose scores are split (default: the scorer with the most scores)")] = None,
    never_saw: Annotated[bool, typer.Option(
        "--never-saw", help="also list every answer that never saw its evidence, with the distance")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Did each model see the evidence? A task's evidence is the frame span of the annotation its ground truth
    is linked to, or the time in its reference; an answer saw it when a frame it was sent lies in that span
    (frame-exact, from the stored frame index). Prints, per source, answers and mean score of the scored ones
    for "saw", "never saw", "unknown" (no frame index or no frames recorded) and "no evidence"."""
    from fieldstudio.compare import evidence

    try:
        with open_project(project) as p:
            report = evidence.evidence_report(p, scorer, run or None)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    nan_free = lambda v: None if isinstance(v, float) and math.isnan(v) else v  # noqa: E731
    if as_json:
        out.print_json(json.dumps({
            "scorer": report.scorer,
            "split": [{k: nan_free(v) for k, v in row.items()} for row in report.split.to_dict("records")],
            "answers": [{k: nan_free(v) for k, v in row.items()} for row in report.answers.to_dict("records")]}))
        return
    out.print(f"split of {report.scorer or 'no scorer (nothing scored)'} by evidence coverage "
              "(compare.evidence: a frame sent in the ground truth's frame span)", markup=False)
    table = Table("source", "evidence", "answers", "scored", "mean of scored")
    for row in report.split.itertuples():
        mean = "—" if math.isnan(row.mean) else f"{row.mean:.3f}"
        table.add_row(row.source, row.evidence, str(row.answers), row.coverage, mean)
    out.print(table)
    if never_saw:
        missed = report.answers[report.answers["evidence"] == evidence.NEVER_SAW]
        for row in missed.itertuples():
            out.print(f"{row.source} {row.external_id}: {row.evidence_text} (ground truth at {row.evidence_span})",
                      markup=False)
