"""`fieldstudio sweep` and `fieldstudio sweeps`: a sampling sweep (one model, several frame budgets or strategies over
the same tasks) and its table of paired differences, evidence coverage, frames sent and cost, with its plot.

The runs are made by ``inference.runs.sweep`` and read by ``compare.sweeps`` (the services the Runs tab's Sweep
dialog calls). Register with ``register(app)``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

from fieldstudio.cli.output import ProjectArg, fail, open_project, out, progress_bar
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.inference.runs.sweep import ARM_SYNTAX


def register(app: typer.Typer) -> None:
    """Add ``sweep`` and ``sweeps`` to ``app``."""
    app.command("sweep")(sweep_cmd)
    app.command("sweeps")(sweeps_cmd)


def _show(p, sweep, scorer: str | None, plot: Path | None, as_json: bool) -> None:  # noqa: ANN001
    from fieldstudio.compare import plots, sweeps

    result = sweeps.sweep_result(p, sweep, scorer)
    table = sweeps.sweep_frame(result)
    if plot is not None:
        plots.save_figure(plots.sweep_plot(result), plot)
    if as_json:
        nan_free = lambda v: None if isinstance(v, float) and math.isnan(v) else v  # noqa: E731
        out.print_json(json.dumps({
            "sweep": sweep.sweep_id, "profile": sweep.profile, "scorer": result.scorer, "tasks": result.n_tasks,
            "paired": result.n_paired,
            "arms": [{"arm": a.label, "run_id": a.run_id, "tasks": a.tasks, "answered": a.answered, "failed": a.failed,
                      "frames_sent": nan_free(a.frames_sent), "cost_usd": a.cost_known, "cost": a.cost_text,
                      "score": a.score.estimate, "ci_low": a.score.ci_low, "ci_high": a.score.ci_high,
                      "scored": a.score.n, "correct": nan_free(a.correct), "saw": a.saw, "never_saw": a.never_saw,
                      "evidence_coverage": nan_free(a.evidence_coverage),
                      "difference": None if a.difference is None else {
                          "value": a.difference.difference, "ci_low": a.difference.ci_low,
                          "ci_high": a.difference.ci_high, "paired": a.difference.n_shared}}
                     for a in result.arms]}))
        return
    out.print(f"sweep {sweep.sweep_id[:8]}: {sweep.profile}, {len(result.arms)} arms over {result.n_tasks} task(s); "
              f"scores of {result.scorer or 'no scorer (nothing scored)'}; differences are arm minus "
              f"{result.arms[0].label if result.arms else '—'} on the {result.n_paired} task(s) every arm scored",
              markup=False)
    grid = Table(*table.columns)
    for row in table.itertuples(index=False):
        grid.add_row(*[escape(str(v)) for v in row])      # "[n too small]" is text, not markup
    out.print(grid)
    if plot is not None:
        out.print(f"plot written to {plot}", markup=False)


def sweep_cmd(
    project: ProjectArg,
    model: Annotated[str, typer.Option("--model", "-m", help="model profile name (`fieldstudio models list`)")],
    arm: Annotated[list[str], typer.Option("--arm", "-a", help=f"one arm (repeat): {ARM_SYNTAX}")],
    tasks: Annotated[str, typer.Option("--tasks", "-t", help="'all', or comma-separated task ids / benchmark ids")] = "all",
    category: Annotated[Optional[str], typer.Option("--category", help="only this category (prefix: 2 = 2.x)")] = None,
    answer_type: Annotated[Optional[str], typer.Option("--answer-type", help="only this answer type")] = None,
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", help="at most N tasks")] = None,
    scorer: Annotated[Optional[str], typer.Option(
        "--scorer", help="scorer of the arms' answers, e.g. fs-tiou for time ranges (default: the tasks' benchmark's)")
    ] = None,
    judge: Annotated[Optional[str], typer.Option("--judge", help="model profile used as LLM judge by the scorer")] = None,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="write the sweep plot here (.png or .svg)")] = None,
    new: Annotated[bool, typer.Option("--new", help="start a new sweep even if an unfinished one matches")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="do not answer from the response cache")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Run one model profile over the same tasks once per ARM (frame budget or strategy), score the answers, and
    print per arm: frames sent, cost, mean score with its interval, evidence coverage, and the paired difference
    from the first arm on the tasks every arm scored. Running the same command again continues an unfinished sweep.
    Example: fieldstudio sweep P.fieldstudio -m local --arm uniform:8 --arm uniform:16 --arm fps:1:30
    --arm chunked:30 --scorer fs-tiou --plot sweep.png"""
    from fieldstudio.cli.output import cancel_on_ctrl_c
    from fieldstudio.cli.run import IN_FLIGHT
    from fieldstudio.compare import sweeps
    from fieldstudio.inference import profiles as profile_store
    from fieldstudio.inference.runs import run_records
    from fieldstudio.inference.runs import sweep as sweep_runs

    from fieldstudio.compare import plots

    try:
        if plot is not None:        # refused before any request is paid for, not after the sweep
            plots.check_plot_path(plot)
        profile = profile_store.get_profile(model)
        arms = [sweep_runs.parse_arm(a) for a in arm]
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    with open_project(project) as p:
        try:
            ids = None if tasks.strip().lower() == "all" else [t for t in tasks.split(",") if t.strip()]
            task_ids = run_records.select_tasks(p, ids=ids, category=category, answer_type=answer_type, limit=limit)
            if not task_ids:
                raise fail("no task matches; see `fieldstudio info` for what the project holds", 1)
            sweep = None if new else sweep_runs.find_resumable_sweep(p, profile, arms, task_ids)
            if sweep is None:
                sweep = sweep_runs.create_sweep(p, profile, task_ids, arms)
                out.print(f"sweep {sweep.sweep_id[:8]}: {profile.name} ({profile.model}), {len(arms)} arms x "
                          f"{len(task_ids)} task(s)", markup=False)
            else:
                out.print(f"continuing sweep {sweep.sweep_id[:8]}", markup=False)
            with cancel_on_ctrl_c(IN_FLIGHT) as cancel, progress_bar(f"Sweep ({profile.name})") as update:
                done = sweep_runs.execute_sweep(p, sweep, profile, progress=update, cancelled=cancel.is_set,
                                                use_cache=not no_cache)
            for line in done.outcome_lines():
                out.print(line, markup=False)
            if done.cancelled or done.stopped:       # nothing is scored from a sweep that did not finish
                raise typer.Exit(1)
            with progress_bar("Scoring") as update:
                name = sweeps.score_sweep(p, sweep, scorer, judge, progress=update)
            _show(p, sweep, name, plot, as_json)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None


def sweeps_cmd(
    project: ProjectArg,
    sweep: Annotated[Optional[str], typer.Argument(help="sweep id or its first 6+ characters; 'latest'; none: list "
                                                  "the sweeps")] = None,
    scorer: Annotated[Optional[str], typer.Option("--scorer", help="whose scores are read (default: the most used)")
                      ] = None,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="write the sweep plot here (.png or .svg)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """List the sweeps of PROJECT, or show one sweep's table (and write its plot) without running anything."""
    from fieldstudio.compare import plots
    from fieldstudio.inference.runs import sweep as sweep_runs

    from fieldstudio.scoring import scorers

    try:
        if plot is not None:
            plots.check_plot_path(plot)
        if scorer is not None:          # an unknown name would show a table with nothing scored: refuse it
            scorers.get(scorer)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    except KeyError as exc:
        raise fail(f"--scorer: {exc.args[0]}") from None
    with open_project(project) as p:
        try:
            if sweep is None:
                found = sweep_runs.list_sweeps(p)
                for w in found:
                    out.print(f"{w.sweep_id[:8]}  {w.profile}  " + ", ".join(label for label, _ in w.arms), markup=False)
                if not found:
                    out.print("no sweep yet: `fieldstudio sweep P -m PROFILE --arm uniform:8 --arm uniform:16`")
                return
            _show(p, sweep_runs.sweep_runs(p, sweep), scorer, plot, as_json)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
