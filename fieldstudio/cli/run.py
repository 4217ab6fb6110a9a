"""`fieldstudio run` and `fieldstudio answers`: run a model profile over a project's tasks, list the answers.

``register(app)`` adds both groups to the main typer app. ``fieldstudio run P -m X`` (the group's default
command, ``start``) runs now, or with ``--batch`` through the provider's Batch API, or with ``--batch-out``
writes the requests for ``vllm run-batch``; ``run batch-status|batch-resume|batch-import|batch-cancel``
follow such batches. The work is done by `fieldstudio.inference.runs.queue` and
`fieldstudio.inference.runs.provider_batch` (the services the GUI's run panel calls); this module only
picks the tasks, shows a progress bar with an ETA, turns Ctrl-C into a clean cancel, and prints summaries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup
from rich.table import Table

from fieldstudio import benchmarks
from fieldstudio.cli.output import (ProjectArg, cancel_on_ctrl_c, err, fail, open_project, out, print_import_report,
                                    progress_bar)
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.wording import or_list
from fieldstudio.inference import profiles as profile_store
from fieldstudio.inference.runs import provider_batch, provider_batch_records, vllm_batch_files
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.inference.runs import run_records
from fieldstudio.inference.runs.views import list_answers, list_runs
from fieldstudio.inference.strategies import default_strategy_for, get_strategy, strategy_names
from fieldstudio.store.project import Project
from fieldstudio.tasks import formats

ANSWER_FILES_HELP = formats.describe_files(formats.ANSWERS)
IN_FLIGHT = "the requests in flight finish and are saved"
ANSWER_FORMAT_HELP = (or_list(("auto (detected)",) + formats.choices())
                      + ": with a format, a file detected as another one is refused")


def _default_strategy_text() -> str:
    """The --strategy default as the benchmark declarations state it, e.g. "A for X and Y tasks, else B"."""
    general = benchmarks.GENERAL.default_strategy
    by_strategy: dict[str, list[str]] = {}
    for b in benchmarks.all_benchmarks():
        if b.default_strategy != general:
            by_strategy.setdefault(b.default_strategy, []).append(b.title)
    own = [f"{name} for {' and '.join(titles)} tasks" for name, titles in by_strategy.items()]
    return ", ".join([*own, f"else {general}"])


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``["frames=10", "detail=low"]`` -> ``{"frames": 10, "detail": "low"}`` (values read as JSON when they are)."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise FieldstudioError(f"--param {item!r}: write it as name=value, e.g. frames=10")
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value
    return out


def _fmt_cost(summary: run_queue.RunSummary, *, short: bool = False) -> str:
    """``$0.0123``; ``≥ $0.0028 (1 of 3 answers priced)`` when some answers' cost is unknown (their profile has
    no prices, or the server reported no token usage); ``unknown (0 of 3 answers priced)`` when none is known.
    ``short``: without the counts, for a table cell."""
    if not short:
        return summary.cost_text
    status = summary.cost_status
    if status == "unknown":
        return "unknown"
    return f"≥ ${summary.cost_usd:.4f}" if status == "partial" else f"${summary.cost_usd:.4f}"


def print_summary(summary: run_queue.RunSummary) -> None:
    """The closing summary: answered, failed (per kind), from cache, pending, tokens, cost, time."""
    out.print(f"run {summary.run_id[:8]}: {summary.status}; {summary.answered} answered, {summary.failed} failed, "
               f"{summary.from_cache} from cache, {summary.pending} pending (of {summary.total})")
    if summary.errors:
        out.print("errors: " + ", ".join(f"{k} {n}" for k, n in sorted(summary.errors.items())))
    out.print(f"tokens: {summary.prompt_tokens} prompt, {summary.completion_tokens} completion "
               f"({summary.reasoning_tokens} reasoning); cost {_fmt_cost(summary)}"
               + (f"; {summary.elapsed_s:.1f} s" if summary.elapsed_s else ""))
    if summary.stopped:
        out.print(f"stopped early: {summary.stopped}", markup=False)
        out.print("fix the profile, then run the same command again to continue where it stopped")


def run_command(
    project: ProjectArg,
    model: Annotated[str, typer.Option("--model", "-m", help="model profile name (`fieldstudio models list`)")],
    strategy: Annotated[Optional[str], typer.Option(
        "--strategy", "-s", help=f"prompt strategy: {', '.join(strategy_names())} "
        f"(default: {_default_strategy_text()})")] = None,
    tasks: Annotated[str, typer.Option("--tasks", "-t", help="'all', or comma-separated task ids / benchmark ids")] = "all",
    category: Annotated[Optional[str], typer.Option("--category", help="only this category (prefix: 2 = 2.x)")] = None,
    scenario: Annotated[Optional[str], typer.Option("--scenario", help="only this scenario")] = None,
    answer_type: Annotated[Optional[str], typer.Option("--answer-type", help="only this answer type")] = None,
    unanswered: Annotated[bool, typer.Option("--unanswered", help="only tasks this profile has not answered yet")] = False,
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", help="at most N tasks")] = None,
    concurrency: Annotated[Optional[int], typer.Option("--concurrency", "-c", help="requests in flight")] = None,
    vision_model: Annotated[Optional[str], typer.Option("--vision-model", help="agent mode: profile that analyses media")] = None,
    param: Annotated[Optional[list[str]], typer.Option(
        "--param", "-p", help="strategy parameter name=value, e.g. frames=10, max_steps=5, detail=low")] = None,
    new: Annotated[bool, typer.Option("--new", help="start a new run even if an unfinished one matches")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="do not answer from the response cache")] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="try failed answers of a resumed run again")] = False,
    batch: Annotated[bool, typer.Option("--batch", help="send the requests through the profile's Batch API "
                                        "(at its batch price) and wait for the results")] = False,
    no_wait: Annotated[bool, typer.Option("--no-wait", help="with --batch: submit and return; follow it with "
                                          "`run batch-status` / `run batch-resume`")] = False,
    batch_out: Annotated[Optional[Path], typer.Option(
        "--batch-out", help="write the requests as OpenAI Batch JSONL to this file (for `vllm run-batch -i`) "
        "instead of sending them; import its output with `run batch-import`")] = None,
    poll_interval: Annotated[float, typer.Option("--poll-interval", help="with --batch: seconds between polls")] = 30.0,
) -> None:
    """Run model profile MODEL over PROJECT's tasks; resumes an unfinished run of the same tasks.

    Answers are saved one by one as they arrive; Ctrl-C (or a crash) loses nothing finished, and running
    the same command again continues where it stopped without paying twice. With --batch the requests go
    to the provider's Batch API instead (one line per answer; Ctrl-C stops waiting, the batch goes on and
    `run batch-resume` collects it); with --batch-out they are written to a file for vllm run-batch.
    """
    try:
        profile = profile_store.get_profile(model)
        vision = profile_store.get_profile(vision_model) if vision_model else None
        params = parse_params(param)
        if strategy:
            get_strategy(strategy)
        if batch and batch_out is not None:
            raise FieldstudioError("choose --batch (send to the Batch API) or --batch-out FILE (write for vllm "
                                   "run-batch), not both")
        if no_wait and not batch:
            raise FieldstudioError("--no-wait goes with --batch")
        if (batch or batch_out is not None) and vision is not None:
            raise FieldstudioError("agent mode (--vision-model) sends several requests per task: it cannot run "
                                   "as a batch")
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    with open_project(project) as p:
        try:
            ids = None if tasks.strip().lower() == "all" else [t for t in tasks.split(",") if t.strip()]
            task_ids = run_queue.select_tasks(p, ids=ids, category=category, scenario=scenario,
                                              answer_type=answer_type,
                                              unanswered_by=profile.name if unanswered else None, limit=limit)
            if not task_ids:
                raise fail("no task matches; see `fieldstudio info` for what the project holds", 1)
            chosen = strategy or default_strategy_for(p, task_ids)
            run_id = None if new else run_records.find_resumable_run(p, profile.name, chosen, task_ids)
            if run_id is None:
                run_id = run_queue.create_run(p, profile, task_ids, chosen, params=params, vision_profile=vision)
                out.print(f"run {run_id[:8]}: {profile.name} ({profile.model}), strategy {chosen}, "
                           f"{len(task_ids)} task(s)", markup=False)
            else:
                before = run_queue.run_summary(p, run_id)
                out.print(f"resuming run {run_id[:8]}: {before.total - before.pending} of {before.total} finished",
                           markup=False)
            if batch_out is not None:
                _write_batch_file(p, run_id, profile, batch_out, use_cache=not no_cache, retry_failed=retry_failed)
                return
            if batch:
                summary = _run_as_batch(p, run_id, profile, use_cache=not no_cache, retry_failed=retry_failed,
                                        wait=not no_wait, poll_interval=poll_interval)
            else:
                with cancel_on_ctrl_c(IN_FLIGHT) as cancel, progress_bar(f"{profile.name}") as update:
                    summary = run_queue.execute_run(p, run_id, progress=update, cancelled=cancel.is_set,
                                                    profile=profile, vision_profile=vision, concurrency=concurrency,
                                                    use_cache=not no_cache, retry_failed=retry_failed)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
    print_summary(summary)
    if summary.in_batch:
        raise typer.Exit(0)
    every_answer_failed = summary.failed > 0 and summary.answered == 0
    raise typer.Exit(0 if summary.status == "done" and not every_answer_failed else 1)


# -- provider batches ----------------------------------------------------------------------------


def _write_batch_file(p: Project, run_id: str, profile: profile_store.ModelProfile, path: Path, *,
                      use_cache: bool, retry_failed: bool) -> None:
    with progress_bar("building requests") as update:
        row_id, lines = vllm_batch_files.write_file(p, run_id, path, profile=profile, use_cache=use_cache,
                                                    retry_failed=retry_failed, progress=update)
    summary = run_queue.run_summary(p, run_id)
    if row_id is None:
        out.print(f"run {run_id[:8]}: nothing to send ({summary.answered} answered, {summary.failed} failed, "
                  f"{summary.in_batch} in open batches)", markup=False)
        return
    out.print(f"wrote {lines} request(s) to {path} (batch {row_id[:8]} of run {run_id[:8]}; "
              f"{summary.total - summary.pending} answered from the cache or refused before sending)", markup=False)
    out.print(f"run it, e.g.: vllm run-batch -i {path} -o output.jsonl --model {profile.model}", markup=False)
    out.print(f"then: fieldstudio run batch-import {p.path} {run_id[:8]} output.jsonl", markup=False)


def _run_as_batch(p: Project, run_id: str, profile: profile_store.ModelProfile | None, *, use_cache: bool,
                  retry_failed: bool, wait: bool, poll_interval: float) -> run_queue.RunSummary:
    """Submit what is unsent (collecting open batches first), then wait for the results unless told not to."""
    with cancel_on_ctrl_c(IN_FLIGHT) as cancel:
        if provider_batch_records.batch_states(p, run_id):
            provider_batch.wait(p, run_id, profile=profile, interval_s=poll_interval, timeout_s=0)
        with progress_bar("building requests") as update:
            made = provider_batch.submit(p, run_id, profile=profile, use_cache=use_cache, retry_failed=retry_failed,
                                         progress=update, cancelled=cancel.is_set)
        for state in provider_batch_records.batch_states(p, run_id):
            if state.id in made:
                out.print(f"batch {state.provider_batch_id or state.id[:8]}: {state.requests} request(s), "
                          f"{state.status}", markup=False)
        if wait and not cancel.is_set():
            with progress_bar("batch requests") as update:
                provider_batch.wait(p, run_id, profile=profile, interval_s=poll_interval, progress=update,
                                    cancelled=cancel.is_set)
    summary = run_queue.run_summary(p, run_id)
    if summary.in_batch:
        out.print(f"{summary.in_batch} request(s) wait in the provider's batch; see `fieldstudio run batch-status "
                  f"{p.path} {run_id[:8]}`, collect with `fieldstudio run batch-resume {p.path} {run_id[:8]}`",
                  markup=False)
    return summary


def batch_status_command(
    project: ProjectArg,
    run: Annotated[Optional[str], typer.Argument(help="run id (or its first 6+ characters); default: every run")]
    = None,
    refresh: Annotated[bool, typer.Option("--refresh/--no-refresh", help="ask the provider about open batches "
                                          "first (one request each; a finished one is imported)")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """List the provider batches of PROJECT (or of one run): status, request counts, when sent and imported."""
    with open_project(project) as p:
        try:
            run_id = run_records.find_run(p, run) if run else None
            if refresh:
                for state in provider_batch_records.batch_states(p, run_id):
                    if state.open and state.kind == "api":
                        try:
                            provider_batch.refresh(p, state.id)
                        except FieldstudioError as exc:
                            err.print(f"batch {state.provider_batch_id or state.id[:8]}: not refreshed: {exc}",
                                      markup=False)
            states = provider_batch_records.batch_states(p, run_id)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
    rows = [{"batch": b.id, "run": b.run_id, "kind": b.kind, "provider_batch_id": b.provider_batch_id,
             "path": b.path, "status": b.status, "requests": b.requests, "completed": b.completed, "failed": b.failed,
             "created_at": b.created_at.isoformat() if b.created_at else None,
             "imported_at": b.imported_at.isoformat() if b.imported_at else None, "error": b.error} for b in states]
    if as_json:
        out.print_json(json.dumps(rows))
        return
    if not rows:
        out.print("no batches yet (`fieldstudio run P -m PROFILE --batch` sends one)")
        return
    table = Table("run", "batch", "kind", "status", "requests", "completed", "failed", "sent", "imported")
    for b in states:
        table.add_row(b.run_id[:8], b.provider_batch_id or (Path(b.path).name if b.path else b.id[:8]), b.kind,
                      b.status + ("" if b.open else " (imported)"), str(b.requests),
                      "" if b.completed is None else str(b.completed), "" if b.failed is None else str(b.failed),
                      b.created_at.strftime("%Y-%m-%d %H:%M") if b.created_at else "",
                      b.imported_at.strftime("%Y-%m-%d %H:%M") if b.imported_at else "")
    out.print(table)
    for b in states:
        if b.error:
            out.print(f"batch {b.provider_batch_id or b.id[:8]}: {b.error}", markup=False)


def batch_resume_command(
    project: ProjectArg,
    run: Annotated[str, typer.Argument(help="run id (or its first 6+ characters)")],
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="send the failed answers again (only those)")]
    = False,
    no_wait: Annotated[bool, typer.Option("--no-wait", help="submit what is unsent and return")] = False,
    poll_interval: Annotated[float, typer.Option("--poll-interval", help="seconds between polls")] = 30.0,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="do not answer from the response cache")] = False,
) -> None:
    """Continue RUN as a batch: collect its open batches by their stored ids, send what was never sent, wait.

    Nothing is paid twice: answers stored or waiting in an open batch are never sent again.
    """
    with open_project(project) as p:
        try:
            run_id = run_records.find_run(p, run)
            summary = _run_as_batch(p, run_id, None, use_cache=not no_cache, retry_failed=retry_failed,
                                    wait=not no_wait, poll_interval=poll_interval)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
    print_summary(summary)
    raise typer.Exit(0 if summary.pending == 0 or summary.in_batch == summary.pending else 1)


def batch_import_command(
    project: ProjectArg,
    run: Annotated[str, typer.Argument(help="run id (or its first 6+ characters)")],
    path: Annotated[Path, typer.Argument(help="output JSONL of `vllm run-batch -o` (or a batch output / error "
                                         "file downloaded by hand)")],
) -> None:
    """Import the output of a batch written with `run ... --batch-out` into RUN (answers, tokens, cost)."""
    with open_project(project) as p:
        try:
            run_id = run_records.find_run(p, run)
            report = vllm_batch_files.import_file(p, run_id, path)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
        summary = run_queue.run_summary(p, run_id)
    out.print(f"{path.name}: {report.answered} answered, {report.failed} failed, {report.missing} without a line"
              + (f", {report.unknown} line(s) of no open batch ignored" if report.unknown else "")
              + (f", {report.duplicates} repeated line(s) ignored" if report.duplicates else ""), markup=False)
    print_summary(summary)


def batch_cancel_command(
    project: ProjectArg,
    run: Annotated[str, typer.Argument(help="run id (or its first 6+ characters)")],
) -> None:
    """Cancel RUN's open batches (the provider stops them; what finished is still collected by batch-resume).

    A batch written to a file is abandoned: its requests count as unsent again.
    """
    with open_project(project) as p:
        try:
            run_id = run_records.find_run(p, run)
            count = provider_batch.cancel(p, run_id)
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
    out.print(f"cancelled {count} batch(es) of run {run_id[:8]}", markup=False)


def _clip(text: str | None, width: int = 60) -> str:
    if text is None:
        return ""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def answers_command(
    project: ProjectArg,
    run: Annotated[Optional[str], typer.Option("--run", "-r", help="run id (or its first 6+ characters)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """List PROJECT's runs, or with --run the answers of one run (answer, tokens, cost, latency, error)."""
    with open_project(project) as p:
        runs = list_runs(p, oldest_first=True)
        if run is None:
            rows, costs = [], []
            for r in runs:
                summary = run_queue.run_summary(p, r.id)
                costs.append(_fmt_cost(summary, short=True))
                rows.append({"run": r.id, "name": r.name, "kind": r.kind, "profile": r.profile_name,
                             "strategy": r.strategy, "status": r.status, "total": summary.total,
                             "answered": summary.answered, "failed": summary.failed, "pending": summary.pending,
                             "from_cache": summary.from_cache, "cost_usd": summary.cost_usd,
                             "cost_complete": summary.cost_complete, "cost_status": summary.cost_status,
                             "batch": r.batch})
            if as_json:
                out.print_json(json.dumps(rows))
                return
            table = Table("run", "name", "strategy", "status", "answered", "failed", "pending", "cached", "cost",
                          "batch")
            for row, cost in zip(rows, costs):
                table.add_row(row["run"][:8], row["name"], row["strategy"] or row["kind"], row["status"],
                              str(row["answered"]), str(row["failed"]), str(row["pending"]), str(row["from_cache"]),
                              cost if row["kind"] == "model" else "", row["batch"] or "")
            out.print(table)
            return
        try:
            answers = list_answers(p, run_records.find_run(p, run))
        except FieldstudioError as exc:
            raise fail(str(exc)) from None
    items = [{"task": a.task_label, "task_id": a.task_id, "state": a.state, "answer": a.reply,
              "error_kind": a.error_kind, "error": a.error, "prompt_tokens": a.prompt_tokens,
              "completion_tokens": a.completion_tokens, "reasoning_tokens": a.reasoning_tokens,
              "latency_s": a.latency_s, "cost_usd": a.cost_usd, "from_cache": a.from_cache, "retries": a.retries,
              "frames": a.frames} for a in answers]
    if as_json:
        out.print_json(json.dumps(items))
        return
    table = Table("task", "state", "answer / error", "tokens in/out", "cost", "s", "cache", "frames")
    for it in items:
        tokens = "/".join("?" if it[k] is None else str(it[k]) for k in ("prompt_tokens", "completion_tokens"))
        cost = "" if it["cost_usd"] is None else f"${it['cost_usd']:.5f}"
        shown = f"{it['error_kind']}: {_clip(it['error'], 50)}" if it["error_kind"] else _clip(it["answer"])
        table.add_row(it["task"], it["state"], shown, tokens if it["state"] != "pending" else "", cost,
                      "" if it["latency_s"] is None else f"{it['latency_s']:.2f}", "yes" if it["from_cache"] else "",
                      str(it["frames"]))
    out.print(table)


class _ListByDefault(TyperGroup):
    """``fieldstudio answers P`` still lists (as before the group existed); ``answers import`` imports."""

    def resolve_command(self, ctx, args):  # noqa: ANN001, ANN201 - click's signature
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args.insert(0, "list")
        return super().resolve_command(ctx, args)


def answers_import_command(
    project: ProjectArg,
    path: Annotated[Path, typer.Argument(help=ANSWER_FILES_HELP)],
    model: Annotated[str, typer.Option("--model", "--name", help="name of this answer source (the model)")],
    fmt: Annotated[str, typer.Option("--format", "-f", help=ANSWER_FORMAT_HELP)] = "auto",
) -> None:
    """Import answers produced elsewhere as a named answer source."""
    from fieldstudio.scoring.imported_answers import import_answers

    if fmt != "auto":
        if fmt not in formats.choices():
            raise fail(f"--format {fmt!r}: choose one of auto, {', '.join(formats.choices())}")
        if why := formats.format_mismatch(path, fmt, answers=True):
            raise fail(f"{path}: {why}")

    with open_project(project) as p, progress_bar("Importing answers") as update:
        report = import_answers(p, path, model, progress=update)
    print_import_report(report)
    raise typer.Exit(report.exit_code(report.answers_imported))


class _StartByDefault(TyperGroup):
    """``fieldstudio run P -m X ...`` runs ``run start P -m X ...`` (as before the group existed); the other
    words (``batch-status``...) name their commands."""

    def parse_args(self, ctx, args):  # noqa: ANN001, ANN201 - click's signature
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["start", *args]
        return super().parse_args(ctx, args)


def register(app: typer.Typer) -> None:
    """Add the ``run`` group (``run P -m X`` starts a run; ``run batch-…`` follow provider batches) and the
    ``answers list|import`` group (``answers P`` lists) to the main command line app."""
    run_app = typer.Typer(cls=_StartByDefault, no_args_is_help=True,
                          help="Run a model profile over the tasks (`run P -m PROFILE`), now or as a provider "
                               "batch, and follow batches.")
    run_app.command("start")(run_command)
    run_app.command("batch-status")(batch_status_command)
    run_app.command("batch-resume")(batch_resume_command)
    run_app.command("batch-import")(batch_import_command)
    run_app.command("batch-cancel")(batch_cancel_command)
    app.add_typer(run_app, name="run")
    answers_app = typer.Typer(cls=_ListByDefault, no_args_is_help=True,
                              help="Answers: list runs and their answers, or import answers made elsewhere.")
    answers_app.command("list")(answers_command)
    answers_app.command("import")(answers_import_command)
    app.add_typer(answers_app, name="answers")
    app.command("import-answers", hidden=True)(answers_import_command)  # the old spelling, kept as an alias
