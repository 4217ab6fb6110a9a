"""`fieldstudio score` and `fieldstudio report`: score stored answers, and export the comparison.

Both commands call the same services as the GUI (``scoring.service``, ``compare.comparison``,
``compare.report``) and print a short per-source table. ``register(app)`` adds them to the main app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from fieldstudio.cli.output import ProjectArg, RawCellsOpt, err, fail, open_project, out, progress_bar
from fieldstudio.core.errors import FieldstudioError

__all__ = ["register", "score_cmd", "report_cmd"]

MIN_RESAMPLES = 100
"""Fewest bootstrap resamples the report command takes: with fewer, the 2.5th and 97.5th percentiles
are read off a handful of replicates (one or two resamples give an "interval" that misses the mean)."""


def _known_scorer(name: str) -> None:
    """Stop with the registry's own "unknown scorer ...; known: ..." message unless ``name`` is a scorer."""
    from fieldstudio.scoring.scorers import get

    try:
        get(name)
    except KeyError as exc:
        raise fail(exc.args[0]) from None


def _parse_params(values: list[str] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        try:
            if not sep or not key.strip():
                raise ValueError
            out[key.strip()] = float(value)
        except ValueError:
            raise fail(f"--param {item!r}: write NAME=NUMBER, e.g. --param T_th=60") from None
    return out


def _fmt(v, digits: int = 3) -> str:  # noqa: ANN001
    try:
        if v is None or v != v:
            return "—"
    except TypeError:
        return str(v)
    return f"{v:.{digits}g}" if isinstance(v, float) else str(v)


def print_summary(summary, console: Console, scorer: str | None = None) -> None:  # noqa: ANN001 - DataFrame
    """One line per source: scored / total tasks, the headline mean [95 % CI] (unscored counted as the
    benchmark's evaluator counts them, ``compare.coverage``), the mean over scored answers [95 % CI],
    accuracy, cost; then the rule and any coverage warning. No interval below 10 scored ("n too small")."""
    from fieldstudio.compare import coverage
    from fieldstudio.compare.summaries import summary_cost_text

    rule = coverage.unscored_rule(scorer)
    table = Table("source", "scored / total", "headline mean [95% CI]", "mean of scored [95% CI]",
                  "accuracy of scored", "cost USD", "answered")
    for source, r in summary.iterrows():
        def with_ci(mean, lo, hi):  # noqa: ANN001, ANN202
            ci = coverage.interval_text(lo, hi, r["n"], sep=", ")
            if mean is None or mean != mean:
                return "—"
            return f"{float(mean):.3f}" + (f" {ci}" if ci else "")
        cost = summary_cost_text(r)
        table.add_row(str(source), coverage.coverage_text(r["n"], r.get("total", r["answers"]), r.get("stale", 0)),
                      with_ci(r.get("headline", float("nan")), r.get("headline_ci_low"), r.get("headline_ci_high")),
                      with_ci(r["mean"], r["ci_low"], r["ci_high"]),
                      "—" if r["accuracy"] != r["accuracy"] else f"{float(r['accuracy']):.3f}", cost,
                      coverage.answered_text(r["answers"], r.get("total", r["answers"]), r["n"],
                                            r.get("stale", 0)))
    console.print(table)
    for source, r in summary.iterrows():     # the benchmark's own figure, named apart from the headline
        if r.get("official_figure"):
            console.print(f"{source}: {r['official_figure']}")
    console.print("total: the project's tasks of the benchmarks answered (a task no source answered is missing)")
    console.print(f"headline: {rule.text}; intervals: 95 % task bootstrap, not shown below "
                  f"{coverage.MIN_INTERVAL_N} scored ({coverage.N_TOO_SMALL})")
    for warning in coverage.coverage_warnings(summary):
        console.print(f"warning: {warning}")


def _scorer_help() -> str:
    """The --scorer help, read from the scorer registry so a new scorer appears without editing the CLI."""
    from fieldstudio.scoring.scorers import REGISTRY

    official = [n for n, i in REGISTRY.items() if i.benchmark]
    others = [n for n, i in REGISTRY.items() if not i.benchmark]
    return (f"scorer name: official ({', '.join(official)}: the benchmark's own judge prompt, needs --judge and "
            f"the located benchmark files), or {', '.join(others)}; default: the answers' benchmark's own scorer "
            "with --judge, its judge-free scorer without one (as its declaration in fieldstudio/benchmarks says)")


_SCORER_HELP = _scorer_help()


def score_cmd(
    project: ProjectArg,
    scorer: Annotated[Optional[str], typer.Option(
        "--scorer", help=_SCORER_HELP)] = None,
    run: Annotated[Optional[list[str]], typer.Option(
        "--run", help="run id, id prefix or name (repeat for several; default: every run)")] = None,
    judge: Annotated[Optional[str], typer.Option(
        "--judge", help="model profile used as LLM judge; without it only what the matchers decide is scored")] = None,
    param: Annotated[Optional[list[str]], typer.Option(
        "--param", help="scorer parameter NAME=NUMBER, e.g. alpha=0.5, r_th=0.5, T_th=60 for fwa-paper")] = None,
    official_source: Annotated[Optional[Path], typer.Option(
        "--official-source", help="folder of the benchmark's own judge files for this call (default: the one "
                                  "remembered by `fieldstudio benchmarks locate`)")] = None,
) -> None:
    """Score the answers of PROJECT and store the scores (a person's overrides are kept)."""
    from fieldstudio.compare import answer_table, summaries
    from fieldstudio.scoring import service as scoring
    from fieldstudio.scoring.inputs import check_params

    params = _parse_params(param)
    with open_project(project) as p:
        try:
            run_ids = scoring.resolve_runs(p, run)
            name = scorer or scoring.default_scorer(p, run_ids, judged=judge is not None)
            _known_scorer(name)
            check_params(name, params)
            label = "with judge " + judge if judge else "without a judge (deterministic matchers only)"
            out.print(f"scoring with {scoring.scorer_description(name)}")
            out.print(label)
            with progress_bar(f"Scoring ({name})") as update:
                report = scoring.score_answers(p, name, run_ids, judge, params=params, progress=update,
                                               official_source=official_source)
            scored = answer_table.load_summary_columns(p, name, run_ids)   # a summary reads no text
            summary = summaries.summarise(scored, scorer=name, tasks=answer_table.load_scope(p, scored))[0]
        except (FieldstudioError, KeyError) as exc:
            raise fail(str(exc)) from None
    out.print(f"{report.answers} answers: {report.scored} scored, {report.unscored} unscored"
              + (f" ({report.failed_answers} failed model calls)" if report.failed_answers else "")
              + (f", {report.kept_overrides} set by a person and kept" if report.kept_overrides else "")
              + report.currency_text + f"; {report.written} rows written")
    for reason, n in report.unscored_reasons.most_common(3):
        out.print(f"  unscored: {n} x {reason}")
    if report.never_sent:
        out.print(f"  not run: {report.never_sent} answer(s) never sent (the run stopped before asking them): not "
                  "scored, missing in the summary; `fieldstudio run` with that profile again sends them")
    if report.judge:
        cost = "unknown" if report.judge_cost_usd is None else f"{report.judge_cost_usd:.4g} USD"
        out.print(f"judge {report.judge}: {report.judge_calls} calls, {report.judge_cache_hits} from the cache, "
                  f"cost {cost}")
        out.print(f"prompts: {report.prompt_source}")
        out.print(f"judge settings: {report.judge_settings}")
        if report.official_model:
            out.print(f"note: the benchmark's own judge model is {report.official_model}; this judge asks another "
                      "model, so the numbers are the benchmark's rules over a different judge")
        if report.judge_failed:
            out.print(f"{report.judge_failed} judge failed (call error, empty or unusable reply): not cached, "
                      "asked again by the next score")
    if report.cancelled:
        out.print("cancelled: the batches scored so far are kept")
    print_summary(summary, out, name)
    raise typer.Exit(0 if report.answers else 1)


def report_cmd(
    project: ProjectArg,
    out_path: Annotated[Path, typer.Option("--out", "-o", help="file to write (.html, .csv, .xlsx, .parquet, .json)")],
    fmt: Annotated[Optional[str], typer.Option(
        "--format", help="html, csv, xlsx, parquet or json (default: from the suffix of --out)")] = None,
    scorer: Annotated[Optional[str], typer.Option(
        "--scorer", help="scorer whose scores to report (default: the one with the most scores)")] = None,
    run: Annotated[Optional[list[str]], typer.Option("--run", help="run id, prefix or name (repeatable)")] = None,
    resamples: Annotated[int, typer.Option(
        "--resamples", min=MIN_RESAMPLES,
        help=f"bootstrap resamples for the intervals (at least {MIN_RESAMPLES})")] = 2000,
    seed: Annotated[int, typer.Option("--seed", min=0, help="bootstrap seed (0 or more)")] = 0,
    raw_cells: RawCellsOpt = False,
) -> None:
    """Export the comparison of PROJECT's answers and scores as a report or a table."""
    from fieldstudio.compare import report_export

    if scorer is not None:
        _known_scorer(scorer)
    with open_project(project) as p:
        shown = p.path.name
        try:
            result = report_export.export_report(p, out_path, fmt, scorer=scorer, run_ids=run, n_resamples=resamples,
                                                 seed=seed, raw_cells=raw_cells)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
    c = result.comparison
    out.print(f"wrote {result.path} ({result.format}, {result.rows} answers, scorer {c.scorer or 'none'})")
    if not result.rows:
        err.print(f"{shown} holds no answers{' of those runs' if run else ''} to report: import answers "
                  "(fieldstudio answers import) or run a model (fieldstudio run) first")
    elif c.scorer is None:
        err.print(f"no answer is scored yet: run `fieldstudio score {project}` first")
    if not c.summary.empty:
        print_summary(c.summary, out, c.scorer)
    if not c.evidence_split.empty and set(c.evidence_split["evidence"]) != {"no evidence"}:
        from fieldstudio.compare import evidence

        out.print("accuracy by evidence coverage (a frame sent in the ground truth's span or not):")
        for line in evidence.split_lines(c.evidence_split):
            out.print(f"  {line}", markup=False)
    raise typer.Exit(0 if result.rows else 1)


def register(app: typer.Typer) -> None:
    """Add the `score` and `report` commands to ``app``."""
    app.command("score")(score_cmd)
    app.command("report")(report_cmd)
