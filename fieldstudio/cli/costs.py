"""`fieldstudio cost P`: cost per correct answer per source and per category, with its bootstrap interval, and the
cost-accuracy frontier plot (``compare.cost_per_correct``, the same tables as the report and Compare's Summary).
Register with ``register(app)``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

from fieldstudio.cli.output import ProjectArg, fail, open_project, out
from fieldstudio.core.errors import FieldstudioError


def register(app: typer.Typer) -> None:
    """Add the ``cost`` command to ``app``."""
    app.command("cost")(cost_cmd)


def cost_cmd(
    project: ProjectArg,
    run: Annotated[Optional[list[str]], typer.Option(
        "--run", help="run id, id prefix or name (repeat for several; default: every run)")] = None,
    scorer: Annotated[Optional[str], typer.Option(
        "--scorer", help="whose verdicts count as correct (default: the scorer with the most scores)")] = None,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="write the cost-accuracy frontier plot here "
                                                 "(.png or .svg)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Cost per correct answer of each source, overall and per category, with its 95 % bootstrap interval; "unknown"
    (never $0) when some answer's cost is unknown. Local models count when their profile states a cost per hour."""
    from fieldstudio.compare import answer_table, cost_per_correct, plots

    from fieldstudio.scoring import scorers

    try:
        if plot is not None:
            plots.check_plot_path(plot)
        if scorer is not None:          # an unknown name would read as "0 correct" everywhere: refuse it
            scorers.get(scorer)
        with open_project(project) as p:
            name = scorer or answer_table.most_scored_scorer(p, run or None)
            answers = answer_table.load_answers(p, name, run or None)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    except KeyError as exc:
        raise fail(f"--scorer: {exc.args[0]}") from None
    tables = cost_per_correct.cost_tables(answers)
    if plot is not None:
        plots.save_figure(plots.cost_frontier(tables.by_source, scorer_label=name or ""), plot)
    if as_json:
        out.print_json(json.dumps({"scorer": name, "note": cost_per_correct.NOTE, "sources": tables.to_json()}))
        return
    if answers.empty:
        raise fail("no answers to cost; run a model first (`fieldstudio run`)", 1)
    out.print(f"cost per correct answer under {name or 'no scorer (nothing scored)'}", markup=False)
    shown = tables.display()
    grid = Table(*shown.columns)
    for row in shown.itertuples(index=False):
        grid.add_row(*[escape(str(v)) for v in row])
    out.print(grid)
    frontier = cost_per_correct.pareto_frontier(
        [(str(s), float(r["cost_usd"]) if r["cost_status"] == "complete" else float("nan"), float(r["accuracy"]))
         for s, r in tables.by_source.iterrows()])
    out.print("cost-accuracy frontier (no other source is cheaper and at least as accurate): "
              + (", ".join(frontier) if frontier else "none (no source has a known cost and an accuracy)"),
              markup=False)
    if plot is not None:
        out.print(f"plot written to {plot}", markup=False)
