"""Exports of a comparison: a self-contained HTML report, and CSV, XLSX, Parquet or JSON tables.

``export_report(project, out)`` builds a :class:`~fieldstudio.compare.comparison.Comparison` (or takes
one) and writes it atomically (temporary file, fsync, ``os.replace``, STYLE.md §2) in the format named by
``fmt`` or by the file's suffix:

* ``html``: one file with no outside references: the scorer and its rules, the coverage warning, the per-source
  summary (scored / total, the headline mean, the mean of scored answers, with 95 % intervals), the
  categories x sources tables (coverage, headline, mean and accuracy), paired differences, judge agreement,
  the plots as base64 PNG, and the tasks x sources grid (answer and score per cell, full text on click);
* ``csv`` and ``parquet``: the long table of answers and scores (one row per answer, ``ANSWER_COLUMNS``,
  with the source's coverage on every row);
* ``xlsx``: sheets summary (with coverage and the headline mean), categories, pairs, answers, evidence (each
  source's accuracy split by evidence coverage) and notes (how the headline counts unscored answers, the
  coverage warning);
* ``json``: per source and per category: total, n, coverage, headline, mean, ci_low, ci_high, accuracy, cost
  (issue 8 §5), the headline rule, the coverage warning (a list of at most one), ``evidence_split``, and cost per
  correct answer per source and category with its interval (``compare.cost_per_correct``; also an XLSX sheet and an
  HTML section with the cost-accuracy frontier plot).

No API key reaches an export: run parameters are not exported, and any text that looks like a key
(``sk-...``), or equals the value of an environment variable named like a key, token or secret, is
replaced by ``[redacted]``. Spreadsheet cells are written as text, never as formulas.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fieldstudio.compare import audit, cost_per_correct, coverage, official
from fieldstudio.compare.comparison import Comparison, build_comparison
from fieldstudio.compare.report_html import render_html
from fieldstudio.compare.report_redaction import redact, redact_frame
from fieldstudio.core.atomic import atomic_write_text, atomic_writer
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.spreadsheet_cells import protect_frame
from fieldstudio.store.project import Project

__all__ = ["ReportError", "ReportResult", "FORMATS", "ANSWER_COLUMNS", "export_report", "format_of", "answers_table",
           "summary_json", "render_html", "redact", "require_parquet"]

FORMATS = ("html", "csv", "xlsx", "parquet", "json")
_SUFFIXES = {".html": "html", ".htm": "html", ".csv": "csv", ".xlsx": "xlsx", ".parquet": "parquet",
             ".pq": "parquet", ".json": "json"}
ANSWER_COLUMNS = ["external_id", "task_id", "category", "sub_category", "scenario", "answer_type", "query",
                  "ground_truth", "source", "run_id", "answer_id", "answer", "error", "prompt_tokens",
                  "completion_tokens", "reasoning_tokens", "cost_usd", "latency_s", "scorer", "scorer_version",
                  "score_id", "value", "correct", "explanation", "overridden", "author", "reason", "judge_raw",
                  "judge_cost_usd", "stale_reason", "source_scored", "source_tasks", "source_official",
                  "source_official_figure", "evidence", "evidence_distance_s", "source_cost_per_correct"]
"""Columns of the CSV and Parquet exports and of the XLSX sheet "answers", in this order. ``source_scored``
and ``source_tasks``: the coverage of the row's source (answers scored / tasks of the comparison), so a
table read alone still says what its scores cover; ``source_official`` and ``source_official_figure``: the
source's official figure as its benchmark's tool computes it, and its label (``compare.official``).
``stale_reason``: why the row's score no longer stands (its ``value`` and ``correct`` are then empty: not a
verdict on the answer as it is now). ``evidence``: whether a frame it was sent lies in the ground truth's span
(``compare.evidence``: saw, never saw, unknown, no evidence) and ``evidence_distance_s`` the seconds from its
nearest frame when it never saw it. ``source_cost_per_correct``: the source's cost per correct answer with its
interval, or why it is unknown (``compare.cost_per_correct``)."""
"""Tasks shown in the HTML grid (the CSV holds all)."""
_EXCEL_MAX_CHARS = 32767


class ReportError(FieldstudioError):
    """A report cannot be written: unknown format, missing folder; the message names the file."""


@dataclass(frozen=True)
class ReportResult:
    """What was written: ``path``, ``format``, answer rows exported and the comparison it came from."""

    path: Path
    format: str
    rows: int
    comparison: Comparison


def format_of(path: Path, fmt: str | None = None) -> str:
    """The export format: ``fmt`` when given, else from the suffix. Raises ReportError naming both."""
    if fmt:
        fmt = fmt.lower().lstrip(".")
        if fmt not in FORMATS:
            raise ReportError(f"{path}: format {fmt!r} is not one of {', '.join(FORMATS)}")
        return fmt
    try:
        return _SUFFIXES[Path(path).suffix.lower()]
    except KeyError:
        raise ReportError(f"{path}: cannot tell the format from the suffix {Path(path).suffix!r}; use "
                          f"{', '.join(sorted(_SUFFIXES))} or --format") from None


# ---------------------------------------------------------------- tables
def answers_table(comparison: Comparison) -> pd.DataFrame:
    """The long table in ``ANSWER_COLUMNS`` order, redacted; ``correct`` as a nullable boolean; a stale score's
    explanation reads "stale (why); it said: …" (its value and verdict are empty)."""
    df = comparison.answers.reindex(columns=ANSWER_COLUMNS).copy()
    if not comparison.summary.empty and not df.empty:
        df["source_scored"] = df["source"].map(comparison.summary["n"]).astype("Int64")
        df["source_tasks"] = df["source"].map(comparison.summary["total"]).astype("Int64")
        for column, of in (("source_official", "official"), ("source_official_figure", "official_figure")):
            if of in comparison.summary:
                df[column] = df["source"].map(comparison.summary[of])
        per_correct = _cost_tables(comparison).by_source["cost_per_correct"]
        df["source_cost_per_correct"] = df["source"].map(per_correct)
    df["correct"] = pd.array([None if c is None or (isinstance(c, float) and math.isnan(c)) else bool(c)
                              for c in df["correct"]], dtype="boolean")
    df["overridden"] = df["overridden"].fillna(False).astype(bool)
    if "stale_reason" in df and "explanation" in df:    # a stale verdict is history, never read as current
        stale = df["stale_reason"].notna()
        df.loc[stale, "explanation"] = ["stale (" + str(r) + "); it said: " + str(e or "")
                                        for r, e in zip(df.loc[stale, "stale_reason"], df.loc[stale, "explanation"])]
    return redact_frame(df)


def _cost_tables(comparison: Comparison) -> cost_per_correct.CostTables:
    return cost_per_correct.cost_tables(comparison.answers, n_resamples=comparison.n_resamples, seed=comparison.seed)


def _num(x: Any) -> float | int | None:
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    return None if not np.isfinite(float(x)) else float(x)


_JSON_FIELDS = ("total", "answers", "n", "unscored", "stale", "missing", "coverage", "headline", "headline_ci_low",
                "headline_ci_high", "headline_accuracy", "headline_accuracy_ci_low", "headline_accuracy_ci_high",
                "interval_note", "mean", "ci_low", "ci_high", "accuracy", "accuracy_ci_low",
                "accuracy_ci_high", "cost_usd", "cost_status", "cost_per_correct_usd", "prompt_tokens",
                "completion_tokens")


def summary_json(comparison: Comparison, project: Project | None = None) -> dict[str, Any]:
    """For each source and each of its categories: total, n, coverage, headline, mean, ci_low, ci_high,
    accuracy, cost (NaN -> null); with ``project`` also the judge audit's agreement per judge model."""
    sources: dict[str, Any] = {}
    figures = official.official_figures(comparison.answers, comparison.scorer)
    for src, row in comparison.summary.iterrows():
        entry = {k: _num(row.get(k)) for k in _JSON_FIELDS}
        cats = {}
        if not comparison.by_category.empty and src in comparison.by_category.index.get_level_values(0):
            for cat, crow in comparison.by_category.loc[src].iterrows():
                cats[str(cat)] = {k: _num(crow.get(k)) for k in _JSON_FIELDS}
        sources[str(src)] = {"all": entry, "categories": cats}
        if str(src) in figures:
            sources[str(src)]["official"] = official.official_json(figures[str(src)])
    return {"scorer": comparison.scorer, "scorer_label": comparison.scorer_label,
            "interval": f"95 % percentile bootstrap over tasks resampled within each category, the same "
                        f"resampled tasks for every source, category and pair (paired), {comparison.n_resamples} "
                        f"resamples, seed {comparison.seed}",
            "accuracy_means": "share of scored answers the scorer counts correct (FieldWorkArena: score > 0.5)",
            "mean_means": "mean raw score of the scored answers (GreenAgent's score_rate)",
            "headline_means": "mean over every task in scope (total: the project's tasks of the benchmarks "
                              "answered, answered or not; missing = not answered): "
                              + coverage.unscored_rule(comparison.scorer).text,
            "coverage_means": "n scored of total tasks; intervals are null below "
                              f"{coverage.MIN_INTERVAL_N} scored (interval_note: {coverage.N_TOO_SMALL!r})",
            "stale_means": "answers whose score no longer stands (the answer, the ground truth or the scorer "
                           "changed since it was judged): counted in unscored, left out of every figure until "
                           "scored again",
            "coverage_warnings": coverage.coverage_warnings(comparison.summary),
            "sources": sources,
            "evidence_split": [{k: _num(v) for k, v in r.items()} for r in comparison.evidence_split.to_dict("records")],
            "evidence_split_means": "per source and evidence status (saw: a frame sent lies in the ground truth's "
                                    "span; never saw; unknown: frames or frame index not known; no evidence: the "
                                    "ground truth names no frame or time of a video): answers, scored, mean of "
                                    "scored, accuracy of scored",
            "cost_per_correct": _cost_tables(comparison).to_json(),
            "cost_per_correct_means": cost_per_correct.NOTE,
            "pairs": [{k: _num(v) for k, v in r.items()} for r in comparison.pairs.to_dict("records")],
            "judge_agreement": {"n": comparison.judge_agreement.n, "agree": comparison.judge_agreement.agree,
                                "rate": comparison.judge_agreement.rate},
            "judge_audit": [] if project is None or not comparison.scorer else
            [{k: _num(v) for k, v in r.items()}
             for r in audit.audit_agreement(project, comparison.scorer).to_dict("records")],
            "judge_audit_people": [] if project is None or not comparison.scorer else
            [{k: _num(v) for k, v in r.items()}
             for r in audit.people_agreement(project, comparison.scorer).to_dict("records")]}


# ---------------------------------------------------------------- HTML
def _excel_value(ws, v: Any) -> Any:  # noqa: ANN001 - openpyxl write-only worksheet
    """A cell value openpyxl writes as data: text stays text (a leading "=" never makes a formula), control
    characters Excel refuses are dropped, text is cut at Excel's 32,767 characters, NaN/NA become empty."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, np.generic):
        v = v.item()
        if isinstance(v, float) and math.isnan(v):
            return None
    if isinstance(v, str):
        v = ILLEGAL_CHARACTERS_RE.sub("", v)[:_EXCEL_MAX_CHARS]
        if v.startswith("="):
            cell = WriteOnlyCell(ws, value=v)
            cell.data_type = "s"
            return cell
    elif not isinstance(v, (int, float, bool)):
        v = str(v)
    return v


def _write_xlsx(path: Path, comparison: Comparison, answers: pd.DataFrame) -> None:
    """Sheets summary, categories, pairs, answers, notes, written with openpyxl's streaming (write-only) workbook."""
    from openpyxl import Workbook

    sheets = {"summary": redact_frame(comparison.summary.reset_index()),
              "categories": redact_frame(comparison.by_category.reset_index())
              if not comparison.by_category.empty else pd.DataFrame(),
              "pairs": redact_frame(comparison.pairs), "answers": answers.astype({"correct": object}),
              "evidence": redact_frame(comparison.evidence_split),
              "cost_per_correct": redact_frame(_cost_tables(comparison).display()),
              "official": redact_frame(official.official_table(
                  official.official_figures(comparison.answers, comparison.scorer))),
              "notes": pd.DataFrame({"note": [f"headline: {coverage.unscored_rule(comparison.scorer).text}",
                                              f"no interval below {coverage.MIN_INTERVAL_N} scored answers "
                                              f"({coverage.N_TOO_SMALL})"]
                                     + [f"warning: {w}" for w in coverage.coverage_warnings(comparison.summary)]})}
    wb = Workbook(write_only=True)
    for name, df in sheets.items():
        ws = wb.create_sheet(name)
        ws.append([str(c) for c in df.columns])
        for row in df.itertuples(index=False, name=None):
            ws.append([_excel_value(ws, v) for v in row])
    with atomic_writer(path, "wb") as fh:
        wb.save(fh)


def require_parquet(out: Path) -> None:
    """Raise ReportError naming ``out`` unless pyarrow, which pandas writes Parquet with, can be imported.

    pyarrow is the optional ``parquet`` extra (about 150 MB that only this one export needs); the desktop
    bundle leaves it out. CSV and XLSX hold the same answers table.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ReportError(
            f"{out}: Parquet export needs pyarrow, which this installation does not have (the desktop download "
            "leaves it out to stay small). Export CSV or XLSX instead (the same answers table), or install "
            "fieldstudio with: pip install 'fieldstudio[parquet]'") from None


def export_report(project: Project, out: Path | str, fmt: str | None = None, *, scorer: str | None = None,
                  run_ids: Sequence[str] | None = None, comparison: Comparison | None = None,
                  n_resamples: int = 2000, seed: int | None = 0, raw_cells: bool = False) -> ReportResult:
    """Write the comparison of ``scorer`` over ``run_ids`` (all runs when None) to ``out``.

    A CSV's text cells that a spreadsheet would run as a formula get a leading apostrophe
    (``core.spreadsheet_cells``) unless ``raw_cells``.

    Args:
        out: the file to write; its folder must exist. Replaced atomically when it exists.
        fmt: html, csv, xlsx, parquet or json; None takes it from the suffix.
        scorer: a scorer name, None for the one with the most scores.
        comparison: an already built comparison (scorer, run_ids, n_resamples, seed are then ignored).
    Returns:
        ReportResult with the path, format, number of answer rows and the comparison.
    Raises:
        ReportError for an unknown format, a missing folder, a folder given as the file, or Parquet without
        pyarrow installed (:func:`require_parquet`); NotFound for an unknown run.
    """
    out = Path(out)
    kind = format_of(out, fmt)
    if out.is_dir():
        raise ReportError(f"{out}: is a folder; give the file to write, e.g. {out / ('report.' + kind)}")
    if not out.parent.is_dir():
        raise ReportError(f"{out}: folder {out.parent} does not exist")
    if kind == "parquet":
        require_parquet(out)
    comparison = comparison or build_comparison(project, scorer, run_ids, n_resamples=n_resamples, seed=seed)
    answers = answers_table(comparison) if kind in ("csv", "parquet", "xlsx") else None
    if kind == "csv":
        with atomic_writer(out, "w") as fh:
            (answers if raw_cells else protect_frame(answers)).to_csv(fh, index=False)
    elif kind == "parquet":
        with atomic_writer(out, "wb") as fh:
            answers.to_parquet(fh, index=False)
    elif kind == "xlsx":
        _write_xlsx(out, comparison, answers)
    elif kind == "json":
        atomic_write_text(out, json.dumps(summary_json(comparison, project), indent=2, ensure_ascii=False) + "\n")
    else:
        atomic_write_text(out, render_html(project, comparison))
    _normal_mode(out)
    return ReportResult(out, kind, len(comparison.answers), comparison)


def _normal_mode(path: Path) -> None:
    """Give the export the permissions a new file gets (the temporary file was private, mode 0600)."""
    umask = 0o022                                   # read, not set: os.umask() would race other threads
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                umask = int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    try:
        os.chmod(path, 0o666 & ~umask)
    except OSError:
        pass
