"""The comparison as one self-contained HTML page (``render_html``): the scorer and its rules, the coverage
warning, the per-source summary with the official figures beside fieldstudio's headline, the categories x
sources tables, paired differences, the judge audit, the plots as base64 PNG and the tasks x sources grid (answer
and score per cell, full text on click). Every text cell goes through ``report_redaction``."""

from __future__ import annotations

import base64
import functools
import html
import math
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import select

from fieldstudio.compare import audit, cost_per_correct, coverage, evidence, official, plots
from fieldstudio.compare.comparison import Comparison
from fieldstudio.compare.report_redaction import KEYLIKE, redact, secret_values
from fieldstudio.compare.summaries import pivot_summary, summary_cost_text
from fieldstudio.core.wording import plural
from fieldstudio.store.models import ModelProfile, Run
from fieldstudio.store.project import Project

__all__ = ["MAX_GRID_TASKS", "render_html"]

MAX_GRID_TASKS = 2000


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


_STALE_BACKGROUND = "repeating-linear-gradient(45deg,#eee 0 4px,#bbb 4px 6px)"
"""A stale cell's background: grey hatching, as in the Compare grid."""


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
    reasons = (answers["stale_reason"].astype(object).where(answers["stale_reason"].notna(), None).tolist()
               if "stale_reason" in answers else [None] * len(answers))
    whys = [w if r is None else f"stale ({r}); it said: {w}" for w, r in zip(whys, reasons)]
    if _needs_redaction(texts + whys, secrets):
        texts = [redact(t, secrets) for t in texts]
        whys = [redact(w, secrets) for w in whys]
    short = functools.lru_cache(maxsize=None)(_short)       # a repeated answer or explanation: built once
    title = functools.lru_cache(maxsize=None)(html.escape)
    score: dict[tuple[float | None, bool, bool], tuple[str, str]] = {}
    cell: dict[tuple[str, str], str] = {}
    for tid, src, value, text, why, overridden, reason in zip(
            task_ids, srcs, answers["value"].to_numpy(dtype=float).tolist(), texts, whys,
            answers["overridden"].to_numpy(dtype=bool).tolist(), reasons):
        if tid not in wanted:
            continue
        stale = reason is not None
        key = (None if math.isnan(value) else value, overridden, stale)   # NaN != NaN: one key for all of them
        head = score.get(key)
        if head is None:
            background = _STALE_BACKGROUND if stale else _cell_colour(value, lo, hi)
            label = "stale" if stale else _fmt(value)
            head = score[key] = (f'<td style="background:{background}" title="',
                                 f'"><b>{label}{" ✎" if overridden else ""}</b> ')
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
    return any(secret in blob for secret in secrets) or KEYLIKE.search(blob) is not None


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
    out["scored / total"] = [coverage.coverage_text(r["n"], r["total"], r.get("stale", 0))
                             for _, r in summary.iterrows()]
    out["headline mean [95% CI]"] = [with_ci(r, "headline", "headline_ci_low", "headline_ci_high")
                                     for _, r in summary.iterrows()]
    out["mean of scored [95% CI]"] = [with_ci(r, "mean", "ci_low", "ci_high") for _, r in summary.iterrows()]
    out["accuracy of scored"] = summary["accuracy"]
    if "official_printed" in summary and summary["official_printed"].astype(bool).any():
        out["official (benchmark's tool, over answered)"] = summary["official_printed"]
    out["answered"] = [coverage.answered_text(r["answers"], r["total"], r["n"], r.get("stale", 0))
                       for _, r in summary.iterrows()]
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


def _evidence_html(comparison: Comparison, secrets: Sequence[str]) -> list[str]:
    """The section "Accuracy by evidence coverage": per source and status, answers, scored, mean and accuracy of
    scored (none when no task's ground truth names a frame or time of a video)."""
    split = comparison.evidence_split
    if split.empty or set(split["evidence"]) == {evidence.NO_EVIDENCE}:
        return []
    shown = split.assign(evidence=split["evidence"].map(lambda s: evidence.STATUS_WORDS.get(s, s)))
    return ["<h2>Accuracy by evidence coverage</h2><p class=\"note\">Whether one of the frames an answer was sent "
            "lies in the span of its ground truth (the segment, event or mark it is linked to, or the time in its "
            "reference): a model that never saw the moment is told apart from one that saw it and was wrong. "
            "<b>unknown</b>: the answer records no frames, or the video has no frame index; <b>no evidence</b>: "
            "the ground truth names no frame or time of a video.</p>",
            _table(shown[["source", "evidence", "answers", "scored", "mean", "accuracy", "coverage"]], index=False,
                   secrets=secrets)]


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


def _cost_html(c: Comparison, secrets: Any) -> list[str]:
    """The cost per correct answer section: its note, the table by source and category, the frontier plot."""
    tables = cost_per_correct.cost_tables(c.answers, n_resamples=c.n_resamples, seed=c.seed)
    return ["<h2>Cost per correct answer</h2>", f"<p class=\"note\">{html.escape(cost_per_correct.NOTE)}</p>",
            _table(tables.display(), index=False, secrets=secrets), "<div class=\"plots\">",
            _img(plots.cost_frontier(tables.by_source, scorer_label=c.scorer_label),
                 "total cost against accuracy per source, with the cost-accuracy (Pareto) frontier"), "</div>"]


def render_html(project: Project, comparison: Comparison) -> str:
    """The self-contained HTML report (UTF-8 text) for one comparison."""
    secrets = secret_values()
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
        *_evidence_html(c, secrets),
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
        *_cost_html(c, secrets),
        "<h2>Runs</h2>", _table(_runs_table(project, c), secrets=secrets),
        "<h2>Tasks × sources</h2><p class=\"note\">Cell: score (✎ set by a person) and answer; hover for the "
        "scorer's explanation, click a long answer for its full text.</p>",
        _grid_html(c, secrets),
        "</body></html>",
    ]
    return "\n".join(parts)


# ---------------------------------------------------------------- writing
