"""The demo project's answer sources: two written by hand, and one real model run recorded in sample_data/.

* ``sample_data/demo/answers/sample_*.csv`` are illustrative answers written by a person, in the answer CSV
  format (``task_id,answer``). Their source names say so ("sample: careful", "sample: guesser").
* ``sample_data/demo/recorded_runs/*.json`` are real runs of a model, recorded with `export_recorded_run`
  from a project in which ``fieldstudio run`` produced them, with their provenance (model file and its
  SHA-256, server, date, prompt strategy and parameters, the command). The demo stores each as a model run
  with its tokens and latencies as they were measured; nothing is sent to a model when the demo is built.

After the sources are added, every one of them is scored with the tasks' default scorer without a judge,
so the Compare tab, its summary, the plots and the report have something to show on first open; the
answers a judge-free scorer cannot decide stay unscored and are shown as such.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.core.errors import ProjectError
from fieldstudio.core.paths import sample_data_dir
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.scoring.service import score_answers
from fieldstudio.store.models import Answer, Run, Task, utcnow
from fieldstudio.store.project import Project

RECORDED_RUN_FORMAT = "fieldstudio-recorded-run"
RECORDED_RUN_VERSION = 1

SAMPLE_SOURCES = {
    "sample_careful.csv": "sample: careful (written by hand)",
    "sample_guesser.csv": "sample: guesser (written by hand)",
}
"""Answer files of sample_data/demo/answers/ and the source name each gets in the demo."""

DEMO_SCORER = "fs-match"
"""The scorer the demo's sources are scored with on build (judge-free: what its matchers can decide)."""

_ANSWER_FIELDS = ("raw_text", "prompt_tokens", "completion_tokens", "latency_s", "error")


def demo_answers_dir() -> Path:
    """sample_data/demo/answers/ (the hand-written sources)."""
    return sample_data_dir() / "demo" / "answers"


def recorded_runs_dir() -> Path:
    """sample_data/demo/recorded_runs/ (the recorded model runs)."""
    return sample_data_dir() / "demo" / "recorded_runs"


def export_recorded_run(project: Project, run_id: str, path: Path, provenance: dict[str, Any]) -> int:
    """Write run ``run_id`` of ``project`` to ``path`` as a recorded run; returns the number of answers.

    Answers are keyed by the task's external id (stable across projects); ``provenance`` is stored as given
    beside the run's own strategy, strategy version and parameters. Raises ProjectError for an unknown run.
    """
    with project.read() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise ProjectError(f"{project.path}: no run {run_id!r}")
        rows = s.execute(select(Answer, Task.external_id).join(Task, Task.id == Answer.task_id)
                         .where(Answer.run_id == run_id).order_by(Task.external_id)).all()
        doc = {
            "format": RECORDED_RUN_FORMAT, "version": RECORDED_RUN_VERSION, "name": run.name,
            "strategy": run.strategy, "strategy_version": run.strategy_version, "params": run.params or {},
            "provenance": provenance,
            "answers": [{"task_id": ext, **{f: getattr(a, f) for f in _ANSWER_FIELDS}} for a, ext in rows],
        }
    atomic_write_text(Path(path), json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return len(rows)


def load_recorded_run(path: Path) -> dict[str, Any]:
    """Read a recorded run file. Raises ProjectError naming the file when it is not one (format, version)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProjectError(f"{path}: not a readable recorded run ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != RECORDED_RUN_FORMAT:
        raise ProjectError(f"{path}: not a {RECORDED_RUN_FORMAT} file")
    if doc.get("version") != RECORDED_RUN_VERSION:
        raise ProjectError(f"{path}: {RECORDED_RUN_FORMAT} version {doc.get('version')!r}; this fieldstudio "
                           f"reads version {RECORDED_RUN_VERSION}")
    return doc


def add_recorded_run(project: Project, path: Path) -> str:
    """Store a recorded run as a model run of ``project`` (answers matched by task external id); returns its id.

    Answers naming no task of the project are skipped. The run's ``params`` hold the recorded parameters and,
    under ``recorded``, the provenance and the file it came from. Each answer's cost is its tokens at the
    recorded prices (``params.prices``), as ``fieldstudio run`` prices them, and unknown (None) without them.
    """
    doc = load_recorded_run(path)
    prices = (doc.get("params") or {}).get("prices") or {}
    with project.write() as s:
        ids = dict(s.execute(select(Task.external_id, Task.id)).all())
        run = Run(name=doc["name"], kind="model", strategy=doc.get("strategy"),
                  strategy_version=doc.get("strategy_version"), status="done", finished_at=utcnow(),
                  params={**(doc.get("params") or {}),
                          "recorded": {**(doc.get("provenance") or {}), "file": Path(path).name}})
        s.add(run)
        s.flush()
        for entry in doc.get("answers") or []:
            task_id = ids.get(entry.get("task_id"))
            if task_id is not None:
                s.add(Answer(run_id=run.id, task_id=task_id, cost_usd=_recorded_cost(prices, entry),
                             **{f: entry.get(f) for f in _ANSWER_FIELDS}))
        return run.id


def _recorded_cost(prices: dict[str, Any], entry: dict[str, Any]) -> float | None:
    """USD of one recorded answer at the recorded prices (USD per million tokens); None when a price or the
    token counts are missing: a server with no price set has no cost to show, not a cost of $0."""
    p_in, p_out = prices.get("input_per_mtok"), prices.get("output_per_mtok")
    n_in, n_out = entry.get("prompt_tokens"), entry.get("completion_tokens")
    if None in (p_in, p_out, n_in, n_out):
        return None
    return (n_in * p_in + n_out * p_out) / 1e6


def add_demo_answers(project: Project) -> list[str]:
    """Add the hand-written sources and the recorded runs to the demo project; returns the run ids."""
    run_ids = []
    for file_name, source in SAMPLE_SOURCES.items():
        report = import_answers(project, demo_answers_dir() / file_name, source)
        if report.run_id is None:
            raise ProjectError(f"{demo_answers_dir() / file_name}: "
                               + "; ".join(p.message for p in report.problems))
        run_ids.append(report.run_id)
    for path in sorted(recorded_runs_dir().glob("*.json")):
        run_ids.append(add_recorded_run(project, path))
    return run_ids


def score_demo_sources(project: Project, run_ids: list[str]) -> None:
    """Score the demo's sources with `DEMO_SCORER` and no judge (undecidable answers stay unscored)."""
    score_answers(project, DEMO_SCORER, run_ids)
