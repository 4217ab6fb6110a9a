"""fs-tiou over 100,000 time-range answers against a plain pandas pass over the same rows.

Run with ``python benchmarks/bench_temporal.py``. 1,000 ground-truth ranges (``from HH:MM:SS.fff to HH:MM:SS.fff``,
as a linked segment writes them) over a 10-minute 30 fps video, 100 answers each written the same way with random
ends. Figure (issue 33, speed):

- fs-tiou through the registry (``ScorerInfo.score``: the whole-answer grammar, tIoU, onset and offset in seconds
  and in frames from the video's frame times, the explanation) against a pandas pass that extracts the four times
  with one vectorised regular expression and computes the tIoU with numpy (no grammar checks, no explanation),
  the median of 3 passes (target <= 100x: the scorer checks each answer's whole text and writes a sentence).

Both tIoU columns are checked to agree (to 1e-9) before the ratio is printed.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from benchmarks import targets  # noqa: E402
from fieldstudio.scoring.scorers import REGISTRY, AnswerInputs, TaskInputs  # noqa: E402

N_TASKS, PER_TASK, PASSES, FPS, SECONDS = 1_000, 100, 3, 30, 600
_TIME = r"(\d\d):(\d\d):(\d\d\.\d{3})"
_RANGE = rf"^from {_TIME} to {_TIME}$"


def clock(seconds: float) -> str:
    """HH:MM:SS.fff, rounded to the millisecond before it is split (59.9996 s is 00:01:00.000, never 00:00:60.000)."""
    h, rest = divmod(round(seconds * 1000) / 1000, 3600)
    m, s = divmod(rest, 60)
    return f"{int(h):02d}:{int(m):02d}:{s:06.3f}"


def rows(seed: int = 33) -> pd.DataFrame:
    rng = random.Random(seed)
    out = []
    for i in range(N_TASKS):
        a = rng.uniform(0, SECONDS - 60)
        truth = f"from {clock(a)} to {clock(a + rng.uniform(1, 60))}"
        for _ in range(PER_TASK):
            b = rng.uniform(0, SECONDS - 60)
            out.append((f"t{i}", truth, f"from {clock(b)} to {clock(b + rng.uniform(1, 60))}"))
    return pd.DataFrame(out, columns=["task_id", "ground_truth", "answer"])


def pandas_pass(df: pd.DataFrame) -> np.ndarray:
    """The tIoU of every row by a vectorised regex and numpy."""
    def seconds(parts: pd.DataFrame, k: int) -> np.ndarray:
        return (parts[k].astype(float) * 3600 + parts[k + 1].astype(float) * 60 + parts[k + 2].astype(float)).to_numpy()

    g = df["ground_truth"].str.extract(_RANGE)
    a = df["answer"].str.extract(_RANGE)
    g0, g1, a0, a1 = seconds(g, 0), seconds(g, 3), seconds(a, 0), seconds(a, 3)
    inter = np.clip(np.minimum(a1, g1) - np.maximum(a0, g0), 0, None)
    union = np.maximum(a1, g1) - np.minimum(a0, g0)
    return inter / union


def main() -> None:
    df = rows()
    info = REGISTRY["fs-tiou"]
    frame_times = np.arange(SECONDS * FPS) / FPS
    tasks = {t: TaskInputs(t, t, "manual", "When?", "time_range", g, None, None, None, None,
                           {"frame_times_s": frame_times})
             for t, g in df[["task_id", "ground_truth"]].drop_duplicates().itertuples(index=False)}
    answers = [AnswerInputs(f"a{i}", "r", t, text, None, None)
               for i, (t, text) in enumerate(df[["task_id", "answer"]].itertuples(index=False))]
    runs = []
    for _ in range(PASSES):
        t = time.perf_counter()
        ours = np.array([info.score(tasks[a.task_id], a).value for a in answers], dtype=float)
        mid = time.perf_counter()
        theirs = pandas_pass(df)
        runs.append((mid - t, time.perf_counter() - mid))
    agree = bool(np.allclose(ours, theirs, atol=1e-9, rtol=0))
    ratio = statistics.median(a / b for a, b in runs)
    print(f"{len(df):,} answers: fs-tiou {statistics.median(a for a, _ in runs):.2f} s "
          f"({statistics.median(a for a, _ in runs) / len(df) * 1e6:.1f} µs an answer), pandas pass "
          f"{statistics.median(b for _, b in runs):.3f} s; tIoU agree: {agree}")
    if not agree:
        raise SystemExit("fs-tiou and the pandas pass disagree")
    targets.declare(f"fs-tiou over {len(df):,} answers (median of {PASSES})", ratio, 100, better=targets.LOWER,
                    reference="plain pandas pass over the same rows", sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
