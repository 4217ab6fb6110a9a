"""How much of a comparison each source's numbers cover, and how unscored tasks enter its headline mean.

A mean over the scored answers alone rewards a model for answers nobody could score: a source that said
"I am not sure" on 11 of 42 tasks and was right on the other 31 has mean 1.000 over its scored answers.
The benchmarks' own evaluators do not do that. fieldstudio therefore shows, for every source:

* coverage: n scored of the tasks in the comparison's scope (``scored / total``). The scope is every task
  of the project's benchmark sources that the compared answers belong to (``Task.source`` of the answered
  tasks, e.g. all 886 FieldWorkArena tasks when a source answered 300 of them), within the active filters
  (category, scenario, answer type); tasks of a benchmark nobody answered stay out. A task of the scope a
  source did not answer is *missing* and enters the headline like an unscored one;
* the *headline* mean, counting every unscored, failed or missing answer as the benchmark's evaluator
  counts it (``UnscoredRule``), beside the mean over the scored answers, labelled as such;
* no interval when fewer than ``MIN_INTERVAL_N`` answers are scored ("n too small"): a percentile
  bootstrap over a handful of values gives an interval that looks precise and is not;
* one warning when two sources' coverages differ by more than ``COVERAGE_GAP`` (5 percentage points),
  naming every source's n scored of its total: their scored-only means are then means over different tasks.

How a benchmark's evaluator counts a task without a score is the benchmark's own fact: its declaration
(``fieldstudio.benchmarks``, ``Benchmark.unscored``) states it, and a scorer follows the rule of the benchmark
it belongs to (``benchmarks.unscored_rule``); a scorer no benchmark declares counts such a task 0, the
conservative choice. Sources: benchmarks.md §1.6, §3.4, pitfalls 14 and 18.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from fieldstudio import benchmarks
from fieldstudio.benchmarks.declaration import UnscoredRule

__all__ = ["UnscoredRule", "unscored_rule", "MIN_INTERVAL_N", "COVERAGE_GAP", "N_TOO_SMALL", "coverage_text",
           "answered_text",
           "coverage_warnings", "interval_text"]

MIN_INTERVAL_N = 10
"""Fewest scored answers for which an interval is shown; below it the interval reads ``N_TOO_SMALL``."""
COVERAGE_GAP = 0.05
"""Largest difference in coverage (fraction of tasks scored) between two sources without a warning."""
N_TOO_SMALL = "n too small"


unscored_rule = benchmarks.unscored_rule
"""``unscored_rule(scorer) -> UnscoredRule``: the rule the headline mean of ``scorer`` follows for tasks
without a score, the rule of the benchmark ``scorer`` belongs to."""


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _stale_part(stale: Any) -> str:
    return f", {int(stale)} stale" if _finite(stale) and int(stale) > 0 else ""


def coverage_text(n: Any, total: Any, stale: Any = 0) -> str:
    """'31/42 scored' (or '— scored' when the counts are unknown), with ', 3 stale' when some scores are stale
    (``scoring.staleness``: they judged an earlier answer, ground truth or scorer and are not counted)."""
    if not (_finite(n) and _finite(total)):
        return "— scored" + _stale_part(stale)
    return f"{int(n)}/{int(total)} scored" + _stale_part(stale)


def answered_text(answers: Any, total: Any, n: Any, stale: Any = 0) -> str:
    """'6 answered, 4 missing, 2 unscored' of ``total`` tasks in scope ('—' when the counts are unknown):
    missing = tasks of the scope without an answer, unscored = answers without a score in force, of which
    ', 1 stale' had a score that no longer stands."""
    if not (_finite(answers) and _finite(total) and _finite(n)):
        return "—"
    a, t, k = int(answers), int(total), int(n)
    return f"{a} answered, {t - a} missing, {a - k} unscored" + _stale_part(stale)


def interval_text(low: Any, high: Any, n: Any, *, decimals: int = 3, sep: str = "–") -> str:
    """'[0.500–0.750]', or '(n too small)' below ``MIN_INTERVAL_N`` scored answers, or '' when unknown."""
    if _finite(n) and int(n) < MIN_INTERVAL_N:
        return f"({N_TOO_SMALL})"
    if not (_finite(low) and _finite(high)):
        return ""
    f = f"{{:.{decimals}f}}"
    return f"[{f.format(float(low))}{sep}{f.format(float(high))}]"


def coverage_warnings(summary: pd.DataFrame, gap: float = COVERAGE_GAP) -> list[str]:
    """The coverage warning: one sentence, or none when no two sources' coverages (``n`` / ``total`` of
    ``summary``) differ by more than ``gap``.

    The sentence gives the widest difference in points and every source's "n of total scored" (highest
    coverage first), e.g. "coverage differs by 26 points: sample: guesser 42 of 42 scored (100%), sample:
    careful 31 of 42 scored (74%); their means over scored answers cover different tasks". It is a list
    (of at most one) so that callers print "Warning: ..." lines without a special case.
    """
    if summary is None or summary.empty or "total" not in summary:
        return []
    rows = [(str(src), int(r["n"]), int(r["total"])) for src, r in summary.iterrows() if _finite(r["total"])
            and int(r["total"]) > 0]
    if len(rows) < 2:
        return []
    # one statement over all sources: a sentence per pair repeated each source once per other source
    # (n sources gave up to n(n-1)/2 warnings saying the same thing)
    rows.sort(key=lambda t: -t[1] / t[2])
    widest = rows[0][1] / rows[0][2] - rows[-1][1] / rows[-1][2]
    if widest <= gap + 1e-12:
        return []
    each = ", ".join(f"{src} {n} of {total} scored ({n / total:.0%})" for src, n, total in rows)
    return [f"coverage differs by {widest * 100:.0f} points: {each}; their means over scored answers cover "
            "different tasks"]
