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
* ``xlsx``: sheets summary (with coverage and the headline mean), categories, pairs, answers and notes (how
  the headline counts unscored answers, the coverage warning);
* ``json``: per source and per category: total, n, coverage, headline, mean, ci_low, ci_high, accuracy, cost
  (issue 8 §5), the headline rule and the coverage warning (a list of at most one).

No API key reaches an export: run parameters are not exported, and any text that looks like a key
(``sk-...``), or equals the value of an environment variable named like a key, token or secret, is
replaced by ``[redacted]``. Spreadsheet cells are written as text, never as formulas.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import select

from fieldstudio.compare import audit, coverage, official, plots
from fieldstudio.compare.comparison import Comparison, build_comparison
from fieldstudio.compare.summaries import pivot_summary, summary_cost_text
from fieldstudio.core.atomic import atomic_write_text, atomic_writer
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.wording import plural
from fieldstudio.store.models import ModelProfile, Run
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
                  "judge_cost_usd", "source_scored", "source_tasks", "source_official", "source_official_figure"]
"""Columns of the CSV and Parquet exports and of the XLSX sheet "answers", in this order. ``source_scored``
and ``source_tasks``: the coverage of the row's source (answers scored / tasks of the comparison), so a
table read alone still says what its scores cover; ``source_official`` and ``source_official_figure``: the
source's official figure as its benchmark's tool computes it, and its label (``compare.official``)."""
MAX_GRID_TASKS = 2000
"""Tasks shown in the HTML grid (the CSV holds all)."""
_EXCEL_MAX_CHARS = 32767
_KEYLIKE = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}|\bBearer\s+[A-Za-z0-9._\-]{8,}")
_SECRET_ENV = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)


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


# ---------------------------------------------------------------- secrets
def _secret_values() -> list[str]:
    return sorted({v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8}, key=len, reverse=True)


def redact(text: Any, secrets: Sequence[str] | None = None) -> Any:
    """``text`` with key-like strings and the given secret values replaced by ``[redacted]``; non-strings unchanged."""
    if not isinstance(text, str):
        return text
    for secret in secrets if secrets is not None else _secret_values():
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return _KEYLIKE.sub("[redacted]", text)


def _redact_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with ``redact`` applied to every text cell (vectorised search, Python only on hits)."""
    secrets = _secret_values()
    out = df.copy()
    for col in out.columns:
        if not (out[col].dtype == object or pd.api.types.is_string_dtype(out[col])):
            continue
        text = out[col].astype("string")
        hit = text.str.contains(_KEYLIKE.pattern, regex=True, na=False)
        for secret in secrets:
            hit |= text.str.contains(secret, regex=False, na=False)
        if hit.any():
            values = out[col].astype(object)
            values[hit.to_numpy()] = [redact(v, secrets) for v in values[hit.to_numpy()]]
            out[col] = values
    return out


# ---------------------------------------------------------------- tables
def answers_table(comparison: Comparison) -> pd.DataFrame:
    """The long table in ``ANSWER_COLUMNS`` order, redacted; ``correct`` as a nullable boolean."""
    df = comparison.answers.reindex(columns=ANSWER_COLUMNS).copy()
    if not comparison.summary.empty and not df.empty:
        df["source_scored"] = df["source"].map(comparison.summary["n"]).astype("Int64")
        df["source_tasks"] = df["source"].map(comparison.summary["total"]).astype("Int64")
        for column, of in (("source_official", "official"), ("source_official_figure", "official_figure")):
            if of in comparison.summary:
                df[column] = df["source"].map(comparison.summary[of])
    df["correct"] = pd.array([None if c is None or (isinstance(c, float) and math.isnan(c)) else bool(c)
                              for c in df["correct"]], dtype="boolean")
    df["overridden"] = df["overridden"].fillna(False).astype(bool)
    return _redact_frame(df)


def _num(x: Any) -> float | int | None:
    if x is None or isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    return None if not np.isfinite(float(x)) else float(x)


_JSON_FIELDS = ("total", "answers", "n", "unscored", "missing", "coverage", "headline", "headline_ci_low",
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
            "coverage_warnings": coverage.coverage_warnings(comparison.summary),
            "sources": sources,
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
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:12px;margin:8px 0}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#555;font-size:12px}.plots img{max-width:100%;display:block;margin:12px 0;border:1px solid #ddd}
details summary{cursor:pointer}.grid td{max-width:260px}.scroll{overflow-x:auto;max-width:100%}
.scroll th{white-space:nowrap}.warn{color:#8a4b00;background:#fff4e0;border:1px solid #f0c36d;padding:4px 8px}
"""


def _cell_colour(value: float, lo: float = 0.0, hi: float = 1.0) -> str:
    if value is None or not math.isfinite(value):
        return "#f4f4f4"
    t = min(1.0, max(0.0, (value - lo) / (hi - lo) if hi > lo else 0.5))
    r, g = int(230 - 90 * t), int(140 + 80 * t)
    return f"rgb({r},{g},150)"


def _fmt(v: Any, digits: int = 3) -> str:
    """A table cell: 3 significant digits, but numbers from 1,000 up (token counts summed as floats, large
    costs) in full to the unit with thousands separators ("900,000", not "9e+05")."""
    if v is None or (isinstance(v, float) and not np.isfinite(v)):
        return "—"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}" if abs(int(v)) >= 1000 else str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if 1000 <= abs(f) < 1e15:
            return f"{f:,.0f}"
        return f"{f:.{digits}g}"
    return str(v)


def _table(df: pd.DataFrame, *, index: bool = True, secrets: Sequence[str] = (), colour: bool = False) -> str:
    """An HTML table of ``df``; ``colour`` shades numeric cells from red (0) to green (1) like a heat map, and
    writes them with 3 decimals, as the summary writes its means (a mean of 0.00225 reads 0.002 in both)."""
    head = ([html.escape(str(df.index.name or ""))] if index else []) + [html.escape(str(c)) for c in df.columns]
    rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for idx, row in df.iterrows():
        cells = [f"<th>{html.escape(redact(str(idx), secrets))}</th>"] if index else []
        for v in row:
            number = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
            cls = ' class="num"' if number else ""
            if colour and number:
                cls += f' style="background:{_cell_colour(float(v))}"'
            fraction = colour and isinstance(v, (float, np.floating)) and np.isfinite(float(v))
            text = f"{float(v):.3f}" if fraction else _fmt(v)
            cells.append(f"<td{cls}>{html.escape(redact(text, secrets))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return '<div class="scroll"><table>' + "\n".join(rows) + "</table></div>"


def _img(fig, alt: str) -> str:
    data = base64.b64encode(plots.figure_bytes(fig, "png", dpi=90, png_compression=1)).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _grid_html(comparison: Comparison, secrets: Sequence[str]) -> str:
    """The tasks x sources table: per cell the score (coloured) and the answer, the explanation on hover.

    Built from plain lists in one pass (no per-row pandas access, no iteration over Arrow-backed string
    columns); redaction is checked once over all texts (``_needs_redaction``) and runs per text only when
    something matched; the HTML of a repeated answer, explanation or score is built once."""
    answers = comparison.answers
    if answers.empty:
        return "<p>No answers.</p>"
    finite = answers["value"].dropna()
    lo, hi = (0.0, 1.0) if finite.empty or (finite.min() >= 0 and finite.max() <= 1) else (finite.min(), finite.max())
    sources = comparison.sources
    tasks = answers.drop_duplicates("task_id").sort_values("external_id", kind="stable")
    shown = tasks.head(MAX_GRID_TASKS)
    wanted = set(shown["task_id"].tolist())
    task_ids, srcs = answers["task_id"].tolist(), answers["source"].tolist()
    texts = [t if t is not None else f"(no answer: {e})"
             for t, e in zip(_texts(answers["answer"]), _texts(answers["error"]))]
    whys = [w or "" for w in _texts(answers["explanation"])]
    if _needs_redaction(texts + whys, secrets):
        texts = [redact(t, secrets) for t in texts]
        whys = [redact(w, secrets) for w in whys]
    short = functools.lru_cache(maxsize=None)(_short)       # a repeated answer or explanation: built once
    title = functools.lru_cache(maxsize=None)(html.escape)
    score: dict[tuple[float | None, bool], tuple[str, str]] = {}
    cell: dict[tuple[str, str], str] = {}
    for tid, src, value, text, why, overridden in zip(task_ids, srcs, answers["value"].to_numpy(dtype=float).tolist(),
                                                       texts, whys, answers["overridden"].to_numpy(dtype=bool).tolist()):
        if tid not in wanted:
            continue
        key = (None if math.isnan(value) else value, overridden)       # NaN != NaN: one key for all of them
        head = score.get(key)
        if head is None:
            head = score[key] = (f'<td style="background:{_cell_colour(value, lo, hi)}" title="',
                                                 f'"><b>{_fmt(value)}{" ✎" if overridden else ""}</b> ')
        cell[(tid, src)] = f"{head[0]}{title(why)}{head[1]}{short(text)}</td>"
    out = ["<table class=\"grid\"><tr><th>task</th><th>category</th><th>ground truth</th>"
           + "".join(f"<th>{html.escape(s)}</th>" for s in sources) + "</tr>"]
    missing = '<td style="background:#fff">no answer</td>'
    for tid, ext, cat, gt in zip(shown["task_id"].tolist(), shown["external_id"].tolist(), shown["category"].tolist(),
                                 shown["ground_truth"].tolist()):
        gt = redact(str(gt if gt is not None else "—"), secrets)
        out.append(f"<tr><td>{html.escape(str(ext))}</td><td>{html.escape(str(cat))}</td><td>{_short(gt)}</td>"
                   + "".join(cell.get((tid, src), missing) for src in sources) + "</tr>")
    out.append("</table>")
    if len(tasks) > len(shown):
        out.append(f'<p class="note">First {len(shown)} of {len(tasks)} tasks shown; the CSV export holds all.</p>')
    return "\n".join(out)


def _texts(column: pd.Series) -> list[Any]:
    """A text column as a list with None for missing values (NaN, None or pd.NA)."""
    return [None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else v
            for v in column.astype(object).tolist()]


def _needs_redaction(texts: Sequence[str], secrets: Sequence[str]) -> bool:
    """Whether ``redact`` would change any of ``texts``: one search over all of them joined by NUL, which
    neither a key-like pattern nor an environment value (which cannot hold NUL) can match across."""
    blob = "\x00".join(texts)
    return any(secret in blob for secret in secrets) or _KEYLIKE.search(blob) is not None


def _short(text: str, limit: int = 80) -> str:
    text = str(text)
    if len(text) <= limit:
        return html.escape(text)
    return (f"<details><summary>{html.escape(text[:limit])}…</summary>"
            f"{html.escape(text)}</details>")


def _runs_table(project: Project, comparison: Comparison) -> pd.DataFrame:
    ids = list(dict.fromkeys(comparison.answers["run_id"])) if not comparison.answers.empty else []
    with project.read() as s:
        rows = s.execute(select(Run.id, Run.name, Run.kind, Run.strategy, Run.status, ModelProfile.model)
                         .outerjoin(ModelProfile, ModelProfile.id == Run.profile_id).where(Run.id.in_(ids))).all()
    source = dict(zip(comparison.answers["run_id"], comparison.answers["source"]))
    df = pd.DataFrame([{"source": source.get(r.id, r.name), "run id": r.id, "kind": r.kind, "model": r.model,
                        "strategy": r.strategy, "status": r.status} for r in rows],
                      columns=["source", "run id", "kind", "model", "strategy", "status"])
    return df.set_index("source").sort_index()


def _summary_display(summary: pd.DataFrame) -> pd.DataFrame:
    """The per-source table of the HTML report: coverage first, then the headline mean and the mean of the
    scored answers with their intervals as text ('(n too small)' below ``coverage.MIN_INTERVAL_N``)."""
    def with_ci(r: pd.Series, mean: str, lo: str, hi: str) -> str:
        if r[mean] is None or not np.isfinite(float(r[mean])):
            return "—"
        ci = coverage.interval_text(r[lo], r[hi], r["n"])
        return f"{float(r[mean]):.3f}" + (f" {ci}" if ci else "")

    out = pd.DataFrame(index=summary.index)
    out["scored / total"] = [coverage.coverage_text(r["n"], r["total"]) for _, r in summary.iterrows()]
    out["headline mean [95% CI]"] = [with_ci(r, "headline", "headline_ci_low", "headline_ci_high")
                                     for _, r in summary.iterrows()]
    out["mean of scored [95% CI]"] = [with_ci(r, "mean", "ci_low", "ci_high") for _, r in summary.iterrows()]
    out["accuracy of scored"] = summary["accuracy"]
    if "official_printed" in summary and summary["official_printed"].astype(bool).any():
        out["official (benchmark's tool, over answered)"] = summary["official_printed"]
    out["answered"] = [coverage.answered_text(r["answers"], r["total"], r["n"]) for _, r in summary.iterrows()]
    out = out.join(summary.reindex(columns=["prompt_tokens", "completion_tokens"]))
    # the words the Runs tab uses for the same answers: a partial sum is never shown as a bare number
    out["cost USD"] = [summary_cost_text(r) for _, r in summary.iterrows()]
    rest = ["cost_per_correct_usd", "judge_cost_usd", "overridden", "rater_agreement"]
    return out.join(summary.reindex(columns=rest))


def _coverage_table(comparison: Comparison) -> pd.DataFrame:
    """Rows = categories (+ "all"), columns = sources, cells 'n/total scored'."""
    if comparison.summary.empty:
        return pd.DataFrame()
    by = comparison.by_category
    n, total = pivot_summary(by, comparison.summary, "n"), pivot_summary(by, comparison.summary, "total")
    return pd.DataFrame({col: [coverage.coverage_text(a, b) for a, b in zip(n[col], total[col])] for col in n.columns},
                        index=n.index)


def _judge_audit_html(project: Project, comparison: Comparison, secrets: Sequence[str]) -> str:
    """The judge audit (``audit.audit_agreement``, ``false_accepts``) and the matcher audit's count."""
    table = audit.audit_agreement(project, comparison.scorer) if comparison.scorer else pd.DataFrame()
    parts = ["<h3>Judge audit: a person's marks on judged answers</h3>"]
    if table.empty:
        parts.append("<p>No judged answer of this scorer is marked yet (Compare tab ▸ Judge audit).</p>")
    else:
        shown = table.copy()
        for name, lo, hi in (("accuracy", "accuracy_ci_low", "accuracy_ci_high"),
                             ("kappa", "kappa_ci_low", "kappa_ci_high")):
            shown[f"{name} [95% CI]"] = [
                "—" if v is None or not np.isfinite(float(v)) else
                f"{float(v):.3f} " + coverage.interval_text(a, b, n) for v, a, b, n in
                zip(table[name], table[lo], table[hi], table["n"])]
        shown = shown[["scorer", "judge_model", "n", "agree", "accuracy [95% CI]", "kappa [95% CI]", "false_accepts",
                       "false_rejects"]]
        parts.append('<p class="note">Accuracy: share of marked answers where the judge agrees with the person '
                     "(Wilson interval); Cohen's kappa with the Cohen 1960 interval; no interval below "
                     f"{coverage.MIN_INTERVAL_N} marks.</p>")
        parts.append(_table(shown, index=False, secrets=secrets))
        people = audit.people_agreement(project, comparison.scorer)     # several people on the same answers
        if not people.empty:
            parts += ["<p>People with each other (Krippendorff's alpha, Cohen's kappa per pair; 95 % intervals):</p>",
                      _table(people, index=False, secrets=secrets)]
        fa = audit.false_accepts(project, comparison.scorer)
        if not fa.empty:
            parts.append("<p>False accepts (the judge passed, a person failed):</p>")
            parts.append(_table(fa[["external_id", "judge_model", "auditor", "answer", "ground_truth"]], index=False,
                                secrets=secrets))
    answers = comparison.answers
    if comparison.scorer and not answers.empty and answers["judge_model"].notna().any():
        flags = audit.matcher_audit(project, answers, comparison.scorer)
        parts.append(f"<p>Deterministic matchers beside the judge: {int(flags['flag'].sum())} of {len(flags)} judged "
                     "answers decided otherwise by a matcher (flagged ⚑ in the Compare grid for a person to check); "
                     f"{int(flags['matcher_correct'].notna().sum())} decided by a matcher at all.</p>")
    return "\n".join(parts)


def render_html(project: Project, comparison: Comparison) -> str:
    """The self-contained HTML report (UTF-8 text) for one comparison."""
    secrets = _secret_values()
    c = comparison
    summary = _summary_display(c.summary)
    rule = coverage.unscored_rule(c.scorer)
    warnings = coverage.coverage_warnings(c.summary)
    ja = c.judge_agreement
    parts = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>fieldstudio report: {html.escape(project.name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>fieldstudio report: {html.escape(project.name)}</h1>",
        f"<p class=\"note\">Generated {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} from "
        f"{html.escape(project.path.name)}; {plural(len(c.answers), 'answer')} from "
        f"{plural(len(c.sources), 'source')}.</p>",
        f"<p><b>Scorer:</b> {html.escape(c.scorer_label)}</p>",
        "<p class=\"note\"><b>mean</b>: mean raw score of the scored answers (GreenAgent's score_rate). "
        "<b>accuracy</b>: share of scored answers the scorer counts correct (FieldWorkArena: score &gt; 0.5, "
        "its correctRate). Intervals: 95 % percentile bootstrap over tasks, resampled within each category; "
        "every source, category and pair is measured on the same resampled tasks (a paired bootstrap), "
        f"{c.n_resamples} resamples, seed {c.seed}; no interval below {coverage.MIN_INTERVAL_N} scored answers "
        f"({coverage.N_TOO_SMALL}). <b>headline mean</b>: over every task in scope (the project's "
        "tasks of the benchmarks the answers belong to, answered or not: a task no source answered is "
        "missing); "
        f"{html.escape(rule.text)}. <b>mean of scored</b> and <b>accuracy of scored</b> leave unscored answers "
        "(no judge, failed calls) out; <b>scored / total</b> says how many that is. Cost: the sum of the known "
        "costs, with how many answers are priced when not all are (\"≥\": a lower bound; \"unknown\": none "
        "priced, e.g. a local server with no price set).</p>",
        "".join(f'<p class="warn">Warning: {html.escape(w)}</p>' for w in warnings),
        "<h2>Summary by source</h2>", _table(summary, secrets=secrets),
        "<h2>Scored / total tasks by category</h2>", _table(_coverage_table(c), secrets=secrets),
        *official.official_html(official.official_figures(c.answers, c.scorer),
                                lambda df: _table(df, index=False, secrets=secrets)),
        "<h2>Headline mean by category</h2>", _table(c.category_table("headline"), secrets=secrets, colour=True),
        "<h2>Mean of scored answers by category</h2>", _table(c.category_table("mean"), secrets=secrets, colour=True),
        "<h2>Accuracy of scored answers by category</h2>",
        _table(c.category_table("accuracy"), secrets=secrets, colour=True),
        "<h2>Paired differences (mean score, A − B)</h2>",
        "<p class=\"note\">Over the tasks both sources scored; <i>distinguishable</i> only when the 95 % "
        "interval excludes 0.</p>",
        _table(c.pairs, index=False, secrets=secrets) if not c.pairs.empty else "<p>Fewer than two sources.</p>",
        "<h2>Judge and people</h2>",
        f"<p>Judged scores a person reviewed: {ja.n}; same verdict: {ja.agree}"
        f"{'' if ja.rate is None else f' ({ja.rate:.0%})'}. Ratings in the project: {len(c.ratings)}.</p>",
        _judge_audit_html(project, c, secrets),
        "<h2>Plots</h2><div class=\"plots\">",
        _img(plots.score_distribution(c.answers, c.summary, scorer_label=c.scorer_label),
             "scores per answer of each source, with its mean and 95 % bootstrap interval"),
        _img(plots.category_bars(c.by_category, value="headline", title="headline mean by category"),
             "headline mean by category and source, with 95 % bootstrap intervals"),
        _img(plots.cost_vs_score(c.summary, scorer_label=c.scorer_label),
             "mean score against total cost per source, with 95 % bootstrap intervals"),
        "</div>",
        "<h2>Runs</h2>", _table(_runs_table(project, c), secrets=secrets),
        "<h2>Tasks × sources</h2><p class=\"note\">Cell: score (✎ set by a person) and answer; hover for the "
        "scorer's explanation, click a long answer for its full text.</p>",
        _grid_html(c, secrets),
        "</body></html>",
    ]
    return "\n".join(parts)


# ---------------------------------------------------------------- writing
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

    sheets = {"summary": _redact_frame(comparison.summary.reset_index()),
              "categories": _redact_frame(comparison.by_category.reset_index())
              if not comparison.by_category.empty else pd.DataFrame(),
              "pairs": _redact_frame(comparison.pairs), "answers": answers.astype({"correct": object}),
              "official": _redact_frame(official.official_table(
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
                  n_resamples: int = 2000, seed: int | None = 0) -> ReportResult:
    """Write the comparison of ``scorer`` over ``run_ids`` (all runs when None) to ``out``.

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
            answers.to_csv(fh, index=False)
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
