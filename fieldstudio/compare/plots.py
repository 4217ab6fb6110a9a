"""Comparison plots with matplotlib, drawn headless (Agg canvas, no pyplot, no Qt) and saved atomically.

Every function takes the tables of a :class:`fieldstudio.compare.comparison.Comparison` and returns a
``matplotlib.figure.Figure`` attached to an Agg canvas; the GUI can show the same figure in a Qt canvas,
the report embeds it as PNG, and ``save_figure`` writes PNG or SVG atomically (temporary file, fsync,
``os.replace``). Error bars are the 95 % bootstrap intervals of ``source_summary``.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import cbook
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from fieldstudio.compare.coverage import MIN_INTERVAL_N
from fieldstudio.core.atomic import atomic_write_bytes
from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:
    from fieldstudio.compare.sweeps import SweepResult

__all__ = ["short_name", "NAME_CHARS", "category_heatmap", "category_bars", "cost_vs_score", "score_distribution",
           "sweep_plot", "cost_frontier", "figure_bytes", "save_figure", "FORMATS"]

FORMATS = ("png", "svg")


def _figure(width: float, height: float) -> Figure:
    """A figure on an Agg canvas, without a layout engine: margins come from ``_fit`` (matplotlib's
    constrained layout measures every text and doubles the drawing time of a report's plots)."""
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


_CHAR_PT = 6.2          # width of an average DejaVu Sans character at the 10 pt tick-label size, in points
_LINE_PT = 14.0         # height of one 10 pt text line, in points


def _fit(fig: Figure, *, left_labels: list[str] = (), ylabel: bool = False, xlabel: bool = True,
         title_lines: int = 1, bottom_labels: list[str] = (), rotation: float = 0.0, right_pt: float = 14.0) -> None:
    """Margins from the longest tick labels (estimated from character counts, no text measured):
    ``left_labels`` on the y axis, ``bottom_labels`` on the x axis rotated by ``rotation`` degrees."""
    w_pt, h_pt = (float(v) * 72.0 for v in fig.get_size_inches())
    longest = max((len(line) for t in left_labels for line in str(t).split("\n")), default=4)
    left = 12.0 + _CHAR_PT * longest + (_LINE_PT + 4.0 if ylabel else 0.0)
    rot = max((len(str(t)) for t in bottom_labels), default=0) * _CHAR_PT * np.sin(np.radians(rotation))
    bottom = 10.0 + _LINE_PT + rot + (_LINE_PT + 4.0 if xlabel else 0.0)
    top = 8.0 + 12.0 * title_lines
    fig.subplots_adjust(left=min(0.6, left / w_pt), right=max(0.65, 1.0 - right_pt / w_pt),
                        bottom=min(0.6, bottom / h_pt), top=max(0.4, 1.0 - top / h_pt))


def _title(ax, text: str) -> None:
    """A 9 pt title at the top of the axes. ``y=1.0`` turns off matplotlib's automatic title placement,
    which measures every tick label of the axes (a tight bounding box) on each draw to dodge decorations
    on top; these axes have none there, so the title lands where the automatic placement puts it."""
    ax.set_title(text, fontsize=9, y=1.0)


def _empty(fig: Figure, message: str) -> Figure:
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
    return fig


NAME_CHARS = 32
"""Longest source or category name drawn in a plot; longer ones keep their start and end (``short_name``)."""


DISTRIBUTION_NAME_CHARS = 48
"""Longest source name on the distribution plot, whose labels put the coverage on a second line."""


def short_name(name: object, limit: int = NAME_CHARS) -> str:
    """``name`` as text of at most ``limit`` characters: a longer one keeps its first and last characters
    around an ellipsis ("openrouter/anthrop…, 4 frames)"), since model names differ at either end."""
    text = str(name)
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2 + (limit - 1) % 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def _short_label(label: str) -> str:
    """'fwa-official 1.0' from 'fwa-official 1.0: FieldWorkArena as ...'."""
    return label.split(":", 1)[0][:60]


def _errors(summary: pd.DataFrame, value: str, low: str, high: str) -> np.ndarray:
    mid = summary[value].to_numpy(dtype=float)
    lo = np.nan_to_num(mid - summary[low].to_numpy(dtype=float), nan=0.0)
    hi = np.nan_to_num(summary[high].to_numpy(dtype=float) - mid, nan=0.0)
    return np.vstack([np.clip(lo, 0, None), np.clip(hi, 0, None)])


def category_heatmap(table: pd.DataFrame, *, title: str = "mean score by category") -> Figure:
    """Heat map of a categories x sources table (``Comparison.category_table()``), each cell labelled."""
    fig = _figure(1.6 + 1.1 * max(1, table.shape[1]), 1.2 + 0.4 * max(1, table.shape[0]))
    if table.empty:
        return _empty(fig, "no categories")
    ax = fig.add_subplot()
    values = table.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    vmin, vmax = (0.0, 1.0) if finite.size == 0 or (finite.min() >= 0 and finite.max() <= 1) else \
        (float(finite.min()), float(finite.max()))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdYlGn", vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(np.arange(table.shape[1]), [short_name(c) for c in table.columns], rotation=30, ha="right")
    ax.set_yticks(np.arange(table.shape[0]), [str(i) for i in table.index])
    for (r, c), v in np.ndenumerate(values):
        ax.text(c, r, "—" if not np.isfinite(v) else f"{v:.2f}", ha="center", va="center", fontsize=8)
    _title(ax, title)
    _fit(fig, left_labels=[str(i) for i in table.index], bottom_labels=[short_name(c) for c in table.columns],
         rotation=30, xlabel=False, right_pt=40.0)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def category_bars(by_category: pd.DataFrame, *, value: str = "mean", title: str = "mean score by category") -> Figure:
    """Grouped horizontal bars: one group per category, one bar per source, with the 95 % bootstrap
    interval of ``group_summary`` (index (source, category); columns ``value``, ``ci_low``/``ci_high`` for
    the mean or ``<value>_ci_low``/``<value>_ci_high``) as error bars."""
    low, high = ("ci_low", "ci_high") if value == "mean" else (f"{value}_ci_low", f"{value}_ci_high")
    if by_category.empty or value not in by_category:
        return _empty(_figure(7.0, 2.0), "no categories")
    table = by_category[value].unstack(level=0)
    # the legend to the right of the axes has about 38 characters: the coverage goes on a line of its own
    categories, sources = [str(c) for c in table.index], [_with_coverage(short_name(c), by_category, c, sep="\n")
                                                          for c in table.columns]
    fig = _figure(7.0, 1.4 + 0.16 * len(categories) * max(1, len(sources)) + 0.2 * len(categories))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(sources))
    base = np.arange(len(categories), dtype=float)
    colours = matplotlib.colormaps["tab10"]
    # all bars as one PolyCollection and all error bars as one errorbar call: one artist each instead of a
    # Rectangle per bar (``barh`` adds and draws every patch separately, most of this plot's drawing time)
    rects, faces, ys, xs, errs, missing, zeros = [], [], [], [], [], [], []
    for k, src in enumerate(table.columns):
        rows = by_category.xs(src, level=0).reindex(table.index)
        y = base - 0.4 + width * (k + 0.5)
        x = rows[value].to_numpy(dtype=float)
        for yi, xi in zip(y, x):
            if np.isfinite(xi):
                rects.append([(0.0, yi - width / 2), (xi, yi - width / 2), (xi, yi + width / 2), (0.0, yi + width / 2)])
                faces.append(colours(k % 10))
                if xi == 0.0:          # a mean of exactly 0 has no bar to see: its value is written instead
                    zeros.append(yi)
            else:                      # told apart from a mean of 0, which has no visible bar either
                missing.append(yi)
        ys.append(y)
        xs.append(x)
        errs.append(_errors(rows, value, low, high))
    ax.add_collection(PolyCollection(rects, facecolors=faces, edgecolors="none"), autolim=False)
    ax.errorbar(np.concatenate(xs), np.concatenate(ys), xerr=np.hstack(errs), fmt="none", ecolor="#333333",
                capsize=2, elinewidth=0.8)
    for texts, text, colour in ((missing, "no scored answer", "#777777"), (zeros, "0", "#333333")):
        for yi in texts:               # where the bar would start
            ax.text(0.01, yi, text, fontsize=6, color=colour, va="center", ha="left",
                    transform=ax.get_yaxis_transform())
    ax.set_yticks(base, categories)
    ax.set_ylim(len(categories) - 0.5, -0.5)                  # first category on top
    finite = table.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    ax.set_xlim(0.0, max(1.0, float(finite.max()) if finite.size else 1.0) * 1.05)
    what = {"mean": "mean of scored answers", "headline": "headline mean"}
    ax.set_xlabel(f"{what.get(value, value)}, 95 % bootstrap interval (none below {MIN_INTERVAL_N} scored)")
    ax.legend(handles=[Patch(facecolor=colours(k % 10), label=src) for k, src in enumerate(sources)],
              fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    _title(ax, title)
    longest = max(len(line) for s in sources for line in s.split("\n"))
    _fit(fig, left_labels=categories, right_pt=14.0 + _CHAR_PT * 0.75 * longest + 24.0)
    return fig


def _with_coverage(name: str, table: pd.DataFrame, source: object, sep: str = " ") -> str:
    """'name (31/42 scored)' (``sep`` between the two) from a summary (index source) or a group summary
    (index (source, group))."""
    if "n" not in table or "total" not in table:
        return name
    rows = table.xs(source, level=0) if isinstance(table.index, pd.MultiIndex) else table.loc[[source]]
    return f"{name}{sep}({int(rows['n'].sum())}/{int(rows['total'].sum())} scored)"


def cost_vs_score(summary: pd.DataFrame, *, scorer_label: str = "", value: str = "headline") -> Figure:
    """The headline mean (``value="mean"``: the mean of scored answers) against total cost per source, with
    its 95 % interval as vertical error bars (none below ``MIN_INTERVAL_N`` scored) and each source's
    coverage beside its name.

    Sources whose cost is unknown are left out and named under the plot; partial costs are drawn hollow.
    """
    fig = _figure(7.0, 4.5)
    if value not in summary:                   # a summary from before the headline existed
        value = "mean"
    low, high = ("ci_low", "ci_high") if value == "mean" else (f"{value}_ci_low", f"{value}_ci_high")
    known = summary[summary["cost_usd"].notna() & summary[value].notna()] if not summary.empty else summary
    missing = [] if summary.empty else [str(s) for s in summary.index if s not in known.index]
    if known.empty:
        if summary.empty:
            return _empty(fig, "no source with a known cost and a score")
        # say whose cost is missing and how it becomes known, rather than leave a blank box
        lines = [f"{short_name(s, 56)}: " + ("no score" if pd.isna(summary.at[s, value]) else "cost unknown")
                 for s in summary.index[:8]]
        more = [f"and {len(summary) - 8} more"] if len(summary) > 8 else []
        return _empty(fig, "No source has both a known cost and a score:\n" + "\n".join(lines + more)
                      + "\n\nA cost is known when the answers carry token usage\nand their model profile a price "
                      "(Runs ▸ Model profiles…).")
    ax = fig.add_subplot()
    partial = (known["cost_status"] == "partial").to_numpy()
    x = known["cost_usd"].to_numpy(dtype=float)
    y = known[value].to_numpy(dtype=float)
    err = _errors(known, value, low, high)
    ax.errorbar(x, y, yerr=err, fmt="none", ecolor="#555555", capsize=4)
    ax.scatter(x[~partial], y[~partial], s=50, color="#4c78a8", label="cost complete", zorder=3)
    if partial.any():
        ax.scatter(x[partial], y[partial], s=50, facecolors="none", edgecolors="#e45756", label="cost partial",
                   zorder=3)
    middle = (np.nanmin(x) + np.nanmax(x)) / 2
    for xi, yi, name in zip(x, y, known.index):   # names point inwards: a long one stays inside the figure
        right = xi > middle
        ax.annotate(_with_coverage(short_name(name), known, name), (xi, yi), textcoords="offset points",
                    xytext=(-6 if right else 6, 4),
                    ha="right" if right else "left", fontsize=8)
    ax.margins(x=0.15)                       # room for the names beside the outermost points
    ax.set_xlabel("total cost (USD)")
    ax.set_ylabel(("headline mean" if value == "headline" else "mean of scored") + " (95 % bootstrap interval)")
    if partial.any():                        # a legend only when there are two kinds of marker to tell apart
        ax.legend(fontsize=8, loc="best")
    title = _short_label(scorer_label) or "score against cost"
    if missing:
        title += "\nno known cost: " + ", ".join(missing)[:100]
    _title(ax, title)
    _fit(fig, left_labels=["0.00"], ylabel=True, title_lines=title.count("\n") + 1)
    return fig


def score_distribution(answers: pd.DataFrame, summary: pd.DataFrame | None = None, *, scorer_label: str = "") -> Figure:
    """Box plot of the per-answer scores of each source (unscored answers left out); with ``summary``
    (``source_summary``'s table) also each source's mean score as a red diamond with its 95 % bootstrap
    interval as a horizontal error bar, and n scored answers in the source's label.

    The statistics are matplotlib's own (``cbook.boxplot_stats``: quartiles, whiskers at the last point
    within 1.5 IQR, points beyond as fliers), drawn as ``Axes.boxplot`` draws them (box outline, orange
    median, whiskers and caps, hollow circles) but with one collection per kind instead of six lines per
    box, which took most of this plot's time."""
    fig = _figure(7.0, 1.2 + 0.55 * max(1, answers["source"].nunique() if not answers.empty else 1))
    scored = answers[answers["value"].notna()] if not answers.empty else answers
    if scored.empty:
        return _empty(fig, "no scored answers")
    ax = fig.add_subplot()
    groups = scored.groupby("source", sort=True).indices
    # the coverage goes on a line of its own under the name, which can then be longer than elsewhere
    names = [short_name(n, DISTRIBUTION_NAME_CHARS) for n in groups]
    values = scored["value"].to_numpy(dtype=float)
    stats = cbook.boxplot_stats([values[idx] for idx in groups.values()])
    half = 0.25                                     # boxplot's default width 0.5
    boxes, medians, whiskers, flier_x, flier_y = [], [], [], [], []
    for y, st in enumerate(stats, start=1):
        boxes.append([(st["q1"], y - half), (st["q3"], y - half), (st["q3"], y + half), (st["q1"], y + half)])
        medians.append([(st["med"], y - half), (st["med"], y + half)])
        whiskers += [[(st["whislo"], y), (st["q1"], y)], [(st["q3"], y), (st["whishi"], y)],
                     [(st["whislo"], y - half / 2), (st["whislo"], y + half / 2)],
                     [(st["whishi"], y - half / 2), (st["whishi"], y + half / 2)]]
        flier_x += list(st["fliers"])
        flier_y += [y] * len(st["fliers"])
    ax.add_collection(LineCollection(whiskers, colors="black", linewidths=1.0), autolim=False)
    ax.add_collection(PolyCollection(boxes, facecolors="none", edgecolors="black", linewidths=1.0), autolim=False)
    ax.add_collection(LineCollection(medians, colors="C1", linewidths=1.0), autolim=False)
    if flier_x:
        ax.plot(flier_x, flier_y, linestyle="none", marker="o", markerfacecolor="none", markeredgecolor="black")
    lows = [min(st["whislo"], min(st["fliers"], default=st["whislo"])) for st in stats]
    highs = [max(st["whishi"], max(st["fliers"], default=st["whishi"])) for st in stats]
    lo, hi = min(lows), max(highs)
    labels, title_lines = names, 0
    if summary is not None and not summary.empty:
        rows = summary.reindex(list(groups))
        mean = rows["mean"].to_numpy(dtype=float)
        y = np.arange(1, len(names) + 1, dtype=float) + half + 0.12      # just under each box
        ax.errorbar(mean, y, xerr=_errors(rows, "mean", "ci_low", "ci_high"), fmt="D", color="#e45756",
                    ecolor="#e45756", markersize=5, capsize=3, elinewidth=1.2)
        bounds = np.concatenate([rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)])
        bounds = bounds[np.isfinite(bounds)]
        if bounds.size:
            lo, hi = min(lo, float(bounds.min())), max(hi, float(bounds.max()))
        totals = rows["total"].to_numpy(dtype=float) if "total" in rows else rows["n"].to_numpy(dtype=float)
        labels = [f"{n}\n({int(k)}/{int(t)} scored)" if np.isfinite(k) and np.isfinite(t) else n
                  for n, k, t in zip(names, rows["n"].to_numpy(dtype=float), totals)]
        # over the figure, not the axes: long source labels leave the axes too narrow for this line
        fig.suptitle((_short_label(scorer_label) + "\n" if scorer_label else "")
                     + "box = scores per scored answer, red ◆ = mean of scored with 95 % interval",
                     fontsize=9, y=0.99, va="top")
        title_lines = 2 if scorer_label else 1
    pad = 0.05 * (hi - lo) if hi > lo else 0.05
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(len(names) + 0.5 + half, 0.5)       # first source on top
    ax.set_yticks(np.arange(1, len(names) + 1), labels)
    ax.set_xlabel("score per answer")
    _fit(fig, left_labels=labels, title_lines=title_lines)
    return fig


def _sweep_panel(ax, x: np.ndarray, result: SweepResult, xlabel: str) -> None:
    """Mean score (with its interval) and evidence coverage of each arm against ``x``; NaN x are left out."""
    arms = result.arms
    score = np.array([math.nan if a.score.estimate is None else a.score.estimate for a in arms], dtype=float)
    low = np.array([math.nan if a.score.ci_low is None else a.score.ci_low for a in arms], dtype=float)
    high = np.array([math.nan if a.score.ci_high is None else a.score.ci_high for a in arms], dtype=float)
    cover = np.array([a.evidence_coverage for a in arms], dtype=float)
    keep = np.isfinite(x)
    enough = np.array([a.score.n >= MIN_INTERVAL_N for a in arms])
    with_ci = keep & np.isfinite(score) & np.isfinite(low) & enough
    ax.errorbar(x[with_ci], score[with_ci], yerr=np.vstack([score[with_ci] - low[with_ci], high[with_ci] - score[with_ci]]),
                fmt="none", ecolor="#555555", capsize=4)
    ax.plot(x[keep], score[keep], "o", color="#4c78a8", label=f"mean score (95 % interval from {MIN_INTERVAL_N} scored)", zorder=3)
    ax.plot(x[keep], cover[keep], "s", color="#f58518", label="evidence coverage (saw / known)", zorder=3)
    middle = (np.nanmin(x) + np.nanmax(x)) / 2 if keep.any() else 0.0
    for xi, yi, arm in zip(x[keep], np.where(np.isfinite(score), score, cover)[keep], np.array(arms)[keep]):
        right = xi > middle                    # names point inwards: the outermost stay inside the axes
        ax.annotate(arm.label, (xi, yi), textcoords="offset points", xytext=(-6 if right else 6, 5),
                    ha="right" if right else "left", fontsize=8)
    ax.set_ylim(-0.05, 1.1)
    ax.margins(x=0.2)
    ax.set_xlabel(xlabel)


def sweep_plot(result: SweepResult) -> Figure:
    """A sampling sweep (``compare.sweeps.sweep_result``): each arm's mean score with its 95 % bootstrap interval
    (from ``MIN_INTERVAL_N`` scored answers on) and its evidence coverage, against the mean frames sent per answer (left) and the arm's total cost (right).
    Arms whose cost is not fully known are left out of the right panel and named under it."""
    fig = _figure(10.0, 4.5)
    if not result.arms:
        return _empty(fig, "the sweep has no arm")
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2, sharey=None)
    frames = np.array([a.frames_sent for a in result.arms], dtype=float)
    cost = np.array([math.nan if a.cost_known is None else a.cost_known for a in result.arms], dtype=float)
    _sweep_panel(left, frames, result, "mean frames sent per answer")
    left.set_ylabel("share (0-1)")
    left.legend(fontsize=7, loc="lower right")
    _title(left, f"{result.sweep.profile}: {short_name(result.scorer or 'no scorer')}, "
                 f"{result.n_paired} of {result.n_tasks} tasks scored by every arm")
    _sweep_panel(right, cost, result, "total cost of the arm (USD)")
    unknown = [a.label for a in result.arms if a.cost_known is None]
    _title(right, "cost against score" + (f"\ncost unknown: {', '.join(unknown)}"[:110] if unknown else ""))
    _fit(fig, left_labels=["0.0"], ylabel=True, title_lines=2 if unknown else 1)
    fig.subplots_adjust(wspace=0.25)
    return fig


def cost_frontier(table: pd.DataFrame, *, scorer_label: str = "") -> Figure:
    """Sources on total cost (USD) against accuracy (``compare.cost_per_correct.cost_per_correct_table`` by
    source), the Pareto frontier drawn as a step line through the sources no other beats on both. Sources whose
    cost is not fully known are left out and named under the plot ("cost unknown"), never drawn at $0."""
    from fieldstudio.compare.cost_per_correct import pareto_frontier

    fig = _figure(7.0, 4.5)
    if table.empty:
        return _empty(fig, "no source")
    known = table[(table["cost_status"] == "complete") & table["accuracy"].notna()]
    unknown = [str(s) for s in table.index if s not in known.index]
    if known.empty:
        return _empty(fig, "No source has a known cost and an accuracy.\n\nA cost is known when the answers carry "
                      "token usage and their\nprofile a price, or the profile a cost per hour (local models).")
    ax = fig.add_subplot()
    x, y = known["cost_usd"].to_numpy(dtype=float), known["accuracy"].to_numpy(dtype=float)
    on = pareto_frontier([(str(s), float(c), float(a)) for s, c, a in zip(known.index, x, y)])
    fx = [float(known.at[s, "cost_usd"]) for s in on]
    fy = [float(known.at[s, "accuracy"]) for s in on]
    if len(on) > 1:
        ax.step(fx, fy, where="post", color="#54a24b", linewidth=1.5, label="cost-accuracy frontier", zorder=2)
    mask = np.array([str(s) in on for s in known.index])
    ax.scatter(x[mask], y[mask], s=60, color="#54a24b", zorder=3, label="on the frontier")
    ax.scatter(x[~mask], y[~mask], s=50, color="#4c78a8", zorder=3, label="beaten on cost and accuracy")
    middle = (np.nanmin(x) + np.nanmax(x)) / 2
    for xi, yi, name in zip(x, y, known.index):
        right = xi > middle
        ax.annotate(short_name(name), (xi, yi), textcoords="offset points", xytext=(-6 if right else 6, 4),
                    ha="right" if right else "left", fontsize=8)
    ax.margins(x=0.15, y=0.1)
    ax.set_xlabel("total cost (USD)")
    ax.set_ylabel("accuracy (share judged correct)")
    ax.legend(fontsize=8, loc="lower right")
    title = (_short_label(scorer_label) or "cost against accuracy")
    if unknown:
        title += "\ncost unknown (left out): " + ", ".join(short_name(u) for u in unknown)[:100]
    _title(ax, title)
    _fit(fig, left_labels=["0.00"], ylabel=True, title_lines=title.count("\n") + 1)
    return fig


def figure_bytes(fig: Figure, fmt: str = "png", *, dpi: int = 100, png_compression: int = 6) -> bytes:
    """The figure encoded as PNG or SVG. ``png_compression``: zlib level 0-9 of a PNG (Pillow's
    ``compress_level``; 1 encodes a report's plot about three times faster for a file 15 % larger).
    Raises ValueError for another format."""
    fmt = fmt.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"plot format {fmt!r} is not one of {', '.join(FORMATS)}")
    buf = io.BytesIO()
    if fmt == "png":
        fig.savefig(buf, format=fmt, dpi=dpi, metadata={"Software": "fieldstudio"},
                    pil_kwargs={"compress_level": png_compression})
    else:
        fig.savefig(buf, format=fmt, dpi=dpi, metadata={"Date": None})
    return buf.getvalue()


class PlotPathError(FieldstudioError):
    """A plot file that cannot be written: a format other than PNG/SVG, or a folder that does not exist."""


def check_plot_path(path: Path | str) -> Path:
    """``path`` as a Path when a plot can be written there (suffix .png or .svg, or none: PNG; an existing folder).
    Raises PlotPathError naming the path and the reason, so a command can refuse before it runs or pays anything."""
    path = Path(path)
    fmt = (path.suffix or ".png").lower().lstrip(".")
    if fmt not in FORMATS:
        raise PlotPathError(f"plot {path}: format {fmt!r} is not one of {', '.join(FORMATS)}")
    if not path.parent.is_dir():
        raise PlotPathError(f"plot {path}: folder {path.parent} does not exist")
    return path


def save_figure(fig: Figure, path: Path | str, *, dpi: int = 150) -> Path:
    """Write the figure to ``path`` atomically; the format comes from the suffix (.png or .svg)."""
    path = Path(path)
    atomic_write_bytes(path, figure_bytes(fig, path.suffix or "png", dpi=dpi))
    return path
