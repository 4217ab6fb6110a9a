"""What one scoring adds to the reproducibility record of each run it scored (``inference.runs.run_context``).

A scoring's entry names the scorer (name, version, parameters and the SHA-256 its scores carry,
``staleness.scorer_sha``), the judge (profile, model, endpoint, the settings its calls were made with) and the judge
prompt files with their SHA-256 and known version (the benchmark's own files as ``scoring.official`` checked them,
or fieldstudio's templates), the counts, fieldstudio's version and the time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fieldstudio import __version__
from fieldstudio.inference.runs.run_context import add_record_entries
from fieldstudio.scoring.scoring_report import ScoringReport
from fieldstudio.scoring.staleness import scorer_sha
from fieldstudio.store.models import utcnow
from fieldstudio.store.project import Project


def scoring_entry(report: ScoringReport, params: Mapping[str, Any], judge: Any, source: Any,
                  run_id: str) -> dict[str, Any]:
    """The entry of one scoring for run ``run_id`` (see the module docstring). ``judge`` is the JudgeCaller or
    None; ``source`` the benchmark's checked judge files (``OfficialSource``) or None."""
    judge_params = dict(judge.params) if judge is not None else None
    prompt_source = judge_params.pop("prompt_source", None) if judge_params else None
    if prompt_source is None and source is not None:
        prompt_source = source.record()
    scored, unscored = report.per_run.get(run_id, (0, 0))
    return {"time": utcnow().isoformat(), "fieldstudio_version": __version__, "scorer": report.scorer,
            "scorer_version": report.version, "params": dict(params),
            "scorer_sha256": scorer_sha(report.scorer, report.version, params,
                                        None if source is None else source.sha256),
            "judge": judge_params, "judge_files": prompt_source, "judge_settings": report.judge_settings,
            "answers_scored": scored, "answers_unscored": unscored, "rows_written": report.written,
            "cancelled": report.cancelled}


def record_scoring(project: Project, report: ScoringReport, params: Mapping[str, Any], judge: Any,
                   source: Any) -> None:
    """Append the scoring's entry to every run it scored answers of (one short write for them all)."""
    add_record_entries(project, "scorings", {run_id: scoring_entry(report, params, judge, source, run_id)
                                             for run_id in report.per_run})


__all__ = ["scoring_entry", "record_scoring"]
