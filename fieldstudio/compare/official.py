"""Each benchmark's official figure beside fieldstudio's headline: the figure as the benchmark's own tool prints it.

fieldstudio's headline mean counts every task of the scope (missing and unscored as its rule says); a
benchmark's own tool prints its figure over the tasks the source answered (FieldWorkArena's correctRate over the
logs it finds, OpenEQA's ``--force`` final score over the results file). Someone comparing with a published
table needs the second, labelled as such. The aggregation is the benchmark's own fact, declared in
``fieldstudio.benchmarks.<name>`` (``Benchmark.official_aggregation``); this module only hands it each
source's answered tasks and lays the result out for the summary, the CLI and every report format.

A task is *answered* when the source has an answer with text (an empty text counts: the tool reads an empty
answer) or without text and without an error (OpenEQA's null prediction, which its tool scores 0); a failed
model call (no text, an error) is not.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from fieldstudio import benchmarks
from fieldstudio.benchmarks.declaration import OfficialFigure, OfficialItem

__all__ = ["OFFICIAL_COLUMNS", "official_figures", "with_official", "official_table", "official_json", "official_html"]

OFFICIAL_COLUMNS = ["official", "official_printed", "official_answered", "official_figure"]
"""Columns ``with_official`` adds to a per-source summary: the figure as a number, as the tool prints it, the
answered tasks it covers, and its one-line label ("official FieldWorkArena correctRate 0.5149 over 837 answered
(...)"); NaN / "" for a source whose scorer has no official aggregation."""

_NO_GROUP = "(none)"


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)


_ITEM_COLUMNS = ("source", "task_id", "external_id", "value", "sub_category", "query", "ground_truth", "extra")
"""The long table's columns ``_item`` reads (with ``source``, which groups them)."""


def _item(row: dict[str, Any]) -> OfficialItem:
    """One row of the long table as the benchmark's aggregation reads it (a column the table lacks reads empty)."""
    value = row.get("value")
    sub = _text(row.get("sub_category"))
    extra = row.get("extra")
    return OfficialItem(task_id=_text(row.get("external_id")) or _text(row.get("task_id")),
                        value=None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value),
                        query=_text(row.get("query")), reference=_text(row.get("ground_truth")),
                        sub_category=None if sub in ("", _NO_GROUP) else sub,
                        extra=extra if isinstance(extra, dict) else {})


def official_figures(answers: pd.DataFrame, scorer: str | None) -> dict[str, OfficialFigure]:
    """{source: its official figure} over the long table ``answers`` (``answer_table.load_answers``) scored by
    ``scorer``; {} when the scorer belongs to no benchmark with a tool of its own. Tasks of a source's answers
    whose benchmark is not the scorer's are left out (their tool would not read them)."""
    benchmark = benchmarks.for_scorer(scorer)
    if benchmark is None or benchmark.official_aggregation is None or answers.empty:
        return {}
    # only the columns ``_item`` reads: records of all 33 columns of 100,000 answers took seconds and a copy
    read = [c for c in _ITEM_COLUMNS if c in answers]
    if "answer" in answers and "error" in answers:      # a failed call has no text and an error: not answered
        rows = answers.loc[answers["answer"].notna() | answers["error"].isna(), read]
    else:
        rows = answers[read]
    figures = {}
    for source, group in rows.groupby("source", sort=True):
        # records made from each column's list: ``to_dict("records")`` walked pandas' Arrow-backed text columns one
        # Python scalar at a time (0.7 s of the Compare tab's 2.4 s load at 900 tasks x 20 sources, issue 37)
        columns = [group[c].tolist() for c in read]
        items = [_item(dict(zip(read, values))) for values in zip(*columns)]
        figure = benchmark.official_figure(scorer, items)
        if figure is not None:
            figures[str(source)] = figure
    return figures


def with_official(summary: pd.DataFrame, answers: pd.DataFrame, scorer: str | None) -> pd.DataFrame:
    """``summary`` (one row per source) with ``OFFICIAL_COLUMNS`` filled from ``official_figures``."""
    figures = official_figures(answers, scorer)
    out = summary.copy()
    out["official"] = [figures[s].value if s in figures and figures[s].value is not None else math.nan
                       for s in out.index]
    out["official_printed"] = [figures[s].printed if s in figures else "" for s in out.index]
    out["official_answered"] = pd.array([figures[s].answered if s in figures else None for s in out.index],
                                        dtype="Int64")
    out["official_figure"] = [figures[s].text if s in figures else "" for s in out.index]
    return out


def official_table(figures: dict[str, OfficialFigure]) -> pd.DataFrame:
    """Every line the tools print, one row each: source, tool, line, field, value (as printed) — for the HTML
    report and the XLSX sheet "official"; the notes as rows with line "note"."""
    rows = []
    for source, f in figures.items():
        rows.append((source, f.tool, "figure", f.name, f.printed))
        for line in f.lines:
            rows += [(source, line.group, line.name, k, _text(v)) for k, v in line.fields.items()]
        rows += [(source, f.tool, "note", "", note) for note in f.notes]
    return pd.DataFrame(rows, columns=["source", "tool", "line", "field", "value"])


def official_json(figure: OfficialFigure) -> dict[str, Any]:
    """One figure as ``report --json`` writes it, under the key "official" of its source."""
    return {"benchmark": figure.benchmark, "figure": figure.name, "official_value": figure.value,
            "official_printed": figure.printed, "answered": figure.answered, "tool": figure.tool,
            "scorer": figure.scorer, "scorer_is_official": figure.scorer_is_official, "label": figure.text,
            "lines": [{"group": line.group, "name": line.name, **{k: v for k, v in line.fields.items()}}
                      for line in figure.lines],
            "notes": list(figure.notes)}


def official_html(figures: dict[str, OfficialFigure], table: Callable[[pd.DataFrame], str]) -> list[str]:
    """The HTML report's section of official figures (each source's label, then ``official_table`` rendered by
    ``table``); [] when there is none."""
    if not figures:
        return []
    return ["<h2>Official figures (as each benchmark's own tool prints them)</h2>",
            "<p class=\"note\">Over the tasks each source answered, as the benchmark's tool divides: not the "
            "headline mean, which counts every task in scope.</p>",
            "".join(f"<p><b>{html.escape(s)}</b>: {html.escape(f.text)}</p>" for s, f in figures.items()),
            table(official_table(figures))]
