"""Run every speed benchmark and print each figure beside its target.

    python benchmarks/run.py                  # every benchmarks/bench_*.py, one after the other
    python benchmarks/run.py scoring viewer   # only bench_scoring.py and bench_viewer.py
    python benchmarks/run.py --skip playback  # every benchmark but bench_playback.py
    python benchmarks/run.py --quick          # the smaller sizes, where a benchmark has them
    python benchmarks/run.py --list           # the benchmarks and what each measures
    python benchmarks/run.py --compare A.json B.json   # two saved runs side by side

Each benchmark runs as its own process (its output shown as it comes) and declares its figures
(``benchmarks/targets.py``); at the end one table gives every figure, its reference, its target and whether
it was met, with the load average at the start and the end (the machine is shared: a figure taken under
load is slower), and a second table gives each benchmark's wall time (set-up included) and the total. The
figures and the times are also saved to ``benchmarks/_work/results/<time>.json``, after each benchmark (a run
stopped part-way keeps the benchmarks that finished).

The exit code is 0 when every benchmark ran, whether or not its targets were met (this reports; it is not
a test), and 1 when a benchmark crashed.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import targets, work_folders  # noqa: E402

HERE = Path(__file__).resolve().parent


def benchmark_files() -> dict[str, Path]:
    """{name: path} of every ``bench_<name>.py`` beside this file, by name."""
    return {p.stem.removeprefix("bench_"): p for p in sorted(HERE.glob("bench_*.py"))}


def first_line(path: Path) -> str:
    """The first line of a benchmark's docstring: what it measures."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.splitlines()[0] if doc else ""


def choose(names: list[str], skip: list[str] = ()) -> list[tuple[str, Path]]:
    """The benchmarks named (all when none is) but those in ``skip``; raises SystemExit naming the unknown ones."""
    files = benchmark_files()
    wanted, skipped = ([x.removeprefix("bench_").removesuffix(".py") for x in group] for group in (names, skip))
    unknown = [n for n in wanted + skipped if n not in files]
    if unknown:
        raise SystemExit(f"no benchmark named {', '.join(unknown)}; there are: {', '.join(files)}")
    return [(n, files[n]) for n in dict.fromkeys(wanted or files) if n not in skipped]


def run_one(name: str, path: Path, quick: bool) -> tuple[list[targets.Figure], dict]:
    """Run one benchmark as a child process; returns its figures and a record of the run."""
    with tempfile.NamedTemporaryFile(prefix=f"bench-{name}-", suffix=".jsonl", delete=False) as fh:
        results = Path(fh.name)
    env = dict(os.environ, **{targets.RESULTS_ENV: str(results), targets.QUICK_ENV: "1" if quick else "0"})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    load_start = targets.load_average()
    print(f"\n=== {name}: {first_line(path)}\n    load average {load_start}", flush=True)
    started = time.monotonic()
    code = subprocess.run([sys.executable, str(path)], cwd=ROOT, env=env).returncode
    elapsed = time.monotonic() - started
    figures = targets.read_results(results)
    results.unlink(missing_ok=True)
    record = {"benchmark": name, "exit_code": code, "seconds": round(elapsed, 1), "load_start": load_start,
              "load_end": targets.load_average()}
    print(f"=== {name}: {'done' if code == 0 else f'CRASHED (exit code {code})'} in {elapsed / 60:.1f} min; "
          f"load average {record['load_end']}", flush=True)
    return figures, record


def results_path() -> Path:
    """A new ``benchmarks/_work/results/<time>.json`` (its folder made)."""
    folder = work_folders.WORK / "results"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{datetime.now():%Y%m%d-%H%M%S}.json"


def save(path: Path, figures: list[targets.Figure], runs: list[dict], load: tuple[str, str], quick: bool) -> Path:
    """Write the run so far to ``path`` (again after each benchmark: a run stopped part-way keeps what finished,
    and ``--compare`` reads it); returns ``path``."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    path.write_text(json.dumps({"commit": commit.stdout.strip(), "quick": quick, "load_start": load[0],
                                "load_end": load[1], "runs": runs, "figures": [asdict(f) for f in figures]},
                               indent=1), encoding="utf-8")
    return path


def compare(paths: list[Path]) -> None:
    """Print saved runs side by side: one row a figure, one column a run, with each run's load averages."""
    saved = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    by_figure: dict[tuple[str, str], list[targets.Figure | None]] = {}
    for k, run in enumerate(saved):
        for f in (targets.Figure(**d) for d in run["figures"]):
            by_figure.setdefault((f.benchmark, f.name), [None] * len(saved))[k] = f

    def cell(f: targets.Figure | None) -> str:
        if f is None:
            return "-"
        return targets.format_value(f.measured, f.unit) + (" !" if f.met is False else "")

    rows = []
    for (benchmark, name), found in by_figure.items():
        first = next(f for f in found if f is not None)
        rows.append((benchmark, f"{name} / {first.reference}", *map(cell, found), first.target_text()))
    targets.print_columns(("benchmark", "figure / reference", *(f"run {k + 1}" for k in range(len(saved))),
                           "target"), rows)
    print("(! : target missed)")
    seconds: dict[str, list[str]] = {}
    for k, run in enumerate(saved):
        for r in run.get("runs", []):
            seconds.setdefault(r["benchmark"], ["-"] * len(saved))[k] = f"{r['seconds'] / 60:.1f} min"
    totals = [f"{sum(r['seconds'] for r in run.get('runs', [])) / 60:.1f} min" for run in saved]
    print("\nWall time of each benchmark (set-up included):")
    targets.print_columns(("benchmark", *(f"run {k + 1}" for k in range(len(saved)))),
                          [*((name, *cells) for name, cells in seconds.items()), ("total", *totals)])
    for k, (p, run) in enumerate(zip(paths, saved)):
        print(f"run {k + 1}: {p.name}, commit {run['commit']}{', quick' if run['quick'] else ''}; load average "
              f"at start {run['load_start']}, at end {run['load_end']}")


def print_times(runs: list[dict], out=sys.stdout) -> None:  # noqa: ANN001
    """Each benchmark's wall time (set-up included, from its records of :func:`run_one`), the slowest first, with
    the load average at its start, then the total: the table that says where a whole run's minutes go."""
    rows = [(r["benchmark"], f"{r['seconds'] / 60:.1f} min", r["load_start"].split(" on ")[0],
             "done" if r["exit_code"] == 0 else f"CRASHED ({r['exit_code']})")
            for r in sorted(runs, key=lambda r: -r["seconds"])]
    total = sum(r["seconds"] for r in runs)
    rows.append(("total", f"{total / 60:.1f} min", "", f"{len(runs)} benchmark(s)"))
    targets.print_columns(("benchmark", "wall time", "load average at its start", ""), rows, out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="benchmarks to run (e.g. frames scoring); all when none is named")
    ap.add_argument("--skip", nargs="+", default=[], metavar="NAME", help="benchmarks not to run")
    ap.add_argument("--quick", action="store_true", help="the smaller sizes, where a benchmark has them")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and what each measures")
    ap.add_argument("--compare", nargs="+", type=Path, metavar="RUN.json", help="print saved runs side by side")
    args = ap.parse_args(argv)
    if args.compare:
        compare(args.compare)
        return 0
    chosen = choose(args.names, args.skip)
    if args.list:
        for name, path in chosen:
            print(f"{name:18} {first_line(path)}")
        return 0

    load_start = targets.load_average()
    print(f"{len(chosen)} benchmark(s){' (quick)' if args.quick else ''}; load average at start {load_start}")
    figures: list[targets.Figure] = []
    runs: list[dict] = []
    saved = results_path()
    for name, path in chosen:
        found, record = run_one(name, path, args.quick)
        figures += found
        runs.append(record)
        save(saved, figures, runs, (load_start, targets.load_average()), args.quick)
    load_end = targets.load_average()
    print("\nEvery figure beside its target:")
    targets.print_table(figures)
    print("\nWall time of each benchmark (set-up included):")
    print_times(runs)
    crashed = [r for r in runs if r["exit_code"] != 0]
    for r in crashed:
        print(f"{r['benchmark']}: CRASHED (exit code {r['exit_code']}); its figures above, if any, are incomplete")
    met = sum(f.met is True for f in figures)
    missed = sum(f.met is False for f in figures)
    print(f"{met} met, {missed} missed, {len(figures) - met - missed} skipped; load average at start "
          f"{load_start}, at end {load_end}")
    print(f"saved to {save(saved, figures, runs, (load_start, load_end), args.quick).relative_to(ROOT)}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
