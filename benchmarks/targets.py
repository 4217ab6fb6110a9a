"""The figures a benchmark measures, each declared beside its target, and the table that shows them.

A benchmark calls ``declare(...)`` once per figure that has a target: what was measured, the reference it
was divided by (measured in the same run), the target and whether lower or higher is better. Run alone, a
benchmark prints its own table at the end (``print_own_table``); run by ``benchmarks/run.py``, it also
appends each figure as one JSON line to the file named by ``FIELDSTUDIO_BENCH_RESULTS``, and the runner
prints one table for every benchmark. Lines printed "for information" have no target and are not declared.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

RESULTS_ENV = "FIELDSTUDIO_BENCH_RESULTS"
"""Names the file a benchmark run by ``run.py`` appends its figures to (one JSON object a line)."""
QUICK_ENV = "FIELDSTUDIO_BENCH_QUICK"
"""Set to 1 by ``run.py --quick``: benchmarks that have sizes use their smaller ones."""

LOWER, HIGHER = "lower", "higher"


@dataclass(frozen=True)
class Figure:
    """One measured figure beside its target.

    ``measured`` and ``target`` are in ``unit``: "x" for a ratio to ``reference``, "" for a share of it
    (e.g. frames shown / frames delivered), else e.g. "MB", "s", "ms", "frames/s" for an absolute figure,
    whose ``reference`` says so. ``better`` is ``"lower"`` (met when
    measured <= target) or ``"higher"`` (met when measured >= target). ``skipped`` holds why the figure
    could not be measured on this machine (then ``measured`` is NaN). ``quick``: measured at the
    benchmark's smaller sizes.
    """

    benchmark: str
    name: str
    measured: float
    target: float
    better: str
    reference: str
    unit: str = "x"
    quick: bool = False
    skipped: str = ""

    @property
    def met(self) -> bool | None:
        """True or False, or None when the figure was not measured."""
        if self.skipped or math.isnan(self.measured):
            return None
        return self.measured <= self.target if self.better == LOWER else self.measured >= self.target

    def target_text(self) -> str:
        unit = {"x": "x", "": ""}.get(self.unit, f" {self.unit}")
        return f"{'≤' if self.better == LOWER else '≥'} {self.target:g}{unit}"


_declared: list[Figure] = []


def quick() -> bool:
    """Whether to run at the smaller sizes (``--quick`` on the command line, or ``run.py --quick``)."""
    return os.environ.get(QUICK_ENV) == "1" or "--quick" in sys.argv[1:]


def _benchmark_name() -> str:
    return Path(sys.argv[0]).stem.removeprefix("bench_")


def declare(name: str, measured: float, target: float, *, better: str, reference: str, unit: str = "x",
            sizes_reduced: bool | None = None) -> Figure:
    """Record one figure of the running benchmark (see ``Figure``); returns it.

    ``sizes_reduced``: whether this figure was measured at smaller sizes (default: ``quick()``; pass
    False for a figure whose benchmark has no smaller size). Raises ValueError for an unknown ``better``.
    """
    if better not in (LOWER, HIGHER):
        raise ValueError(f"better must be {LOWER!r} or {HIGHER!r}, not {better!r}")
    figure = Figure(_benchmark_name(), name, float(measured), float(target), better, reference, unit,
                    quick() if sizes_reduced is None else sizes_reduced)
    _record(figure)
    return figure


def skip(name: str, target: float, *, better: str, reference: str, why: str, unit: str = "x") -> Figure:
    """Record a figure that cannot be measured here (a missing program or server), saying why."""
    figure = Figure(_benchmark_name(), name, math.nan, float(target), better, reference, unit, quick(), why)
    _record(figure)
    return figure


def _record(figure: Figure) -> None:
    _declared.append(figure)
    results = os.environ.get(RESULTS_ENV)
    if results:
        with open(results, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(asdict(figure)) + "\n")


def read_results(path: Path) -> list[Figure]:
    """The figures appended to ``path`` (none when it does not exist)."""
    if not path.exists():
        return []
    return [Figure(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def format_value(value: float, unit: str) -> str:
    """``70.1x``, ``0.469x``, ``0.952``, ``412 MB``: a ratio ("x") to three significant figures below 10, else
    one decimal; a share (unit "") to three decimals; an absolute figure to three significant figures."""
    if math.isnan(value):
        return "-"
    if unit == "":
        return f"{value:.3f}"
    if unit == "x":
        return f"{value:.3g}x" if abs(value) < 10 else f"{value:.1f}x"
    number = f"{value:.3g}" if abs(value) < 10 else f"{value:.0f}"
    return f"{number} {unit}"


def verdict(figure: Figure) -> str:
    met = figure.met
    if met is None:
        return f"skipped: {figure.skipped}" if figure.skipped else "not measured"
    return "met" if met else "MISSED"


def print_table(figures: list[Figure], out: TextIO = sys.stdout) -> None:
    """One row a figure: "benchmark | figure / reference | measured | target | met, MISSED or skipped"."""
    rows = [(f.benchmark, f"{f.name} / {f.reference}" + (" [quick]" if f.quick else ""),
             format_value(f.measured, f.unit), f.target_text(), verdict(f)) for f in figures]
    print_columns(("benchmark", "figure / reference", "measured", "target", ""), rows, out)


def print_columns(header: tuple[str, ...], rows: list[tuple[str, ...]], out: TextIO = sys.stdout) -> None:
    """Rows of text cells as left-aligned columns under ``header``."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip(), file=out)


def load_average() -> str:
    """The 1, 5 and 15 minute load averages and the number of cores, e.g. ``2.31 1.90 1.42 on 2 cores``."""
    return f"{' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores"


def print_own_table() -> None:
    """At the end of a benchmark run alone: its declared figures as a table (run.py prints its own)."""
    if os.environ.get(RESULTS_ENV) or not _declared:
        return
    print(f"\nfigures against their targets (load average {load_average()}):")
    print_table(_declared)
