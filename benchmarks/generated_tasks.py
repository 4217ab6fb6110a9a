"""Task and answer files the benchmarks generate (fixed seeds), so that they need no file outside the repository.

- ``fieldworkarena_tasks``: a FieldWorkArena ground-truth file (the benchmark's JSON task array) whose
  ground truths take the shapes of FieldWorkArena's: yes/no, counts, durations and time points, distances,
  short reports and JSON incident lists, in about its mix of ``eval_func`` (fuzzy_match 70 %,
  numerical_match 22 %, json_match 8 %). The texts are our own, written for the benchmarks.
- ``task_csv`` and ``answer_csv``: fieldstudio's task CSV (two inputs a task, one a time range) and an
  answer CSV for it, written with the ``csv`` module as a spreadsheet would write them.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

_YES_NO = ["Yes.", "No.", "Yes", "No", "Yes, the worker wears a hard hat.", "No, the aisle is clear.",
           "No, nobody enters the marked zone.", "Yes, the pallet blocks the fire exit."]
_REPORTS = ["Customer did not buy the target product.", "The forklift waits at the crossing.",
            "The operator checks the gauge before starting.", "Boxes are stacked above the safe height.",
            "The worker carries the panel alone.", "The cart is left in the walkway.",
            "Nobody is at the packing station.", "The shopper returns the item to the shelf.",
            "The door to the cold store stays open.", "Specified motion not found."]
_ACTIVITIES = ["Basket collection", "Product disposal", "Shelf restock", "Label check", "Floor cleaning"]
_INCIDENTS = ["Worker inside the restricted area", "Cart too close to the worker", "Boxes piled too high",
              "Worker without a helmet", "Arms raised more than four times a minute", "Blocked emergency exit"]
_PROCEDURE = ("Before lifting, check the load and the path. Keep the forks low while driving. Sound the horn "
              "at every crossing. Never carry a person on the forks. Park with the forks on the floor.")


def _fuzzy(rng: random.Random) -> str:
    n = rng.randint(0, 12)
    return rng.choice([
        lambda: rng.choice(_YES_NO),
        lambda: f"{n} person." if n == 1 else f"{n} people.",
        lambda: f"The specified motion count is {n}.",
        lambda: "The specified motion was not detected.",
        lambda: f'The employee has done "{rng.choice(_ACTIVITIES)}". The number handled is {n}.',
        lambda: f"{rng.randint(3, 60)} seconds. This is {'' if rng.random() < 0.5 else 'not '}an incident.",
        lambda: rng.choice(_REPORTS),
        lambda: _PROCEDURE,
    ])()


def _numerical(rng: random.Random) -> str:
    a, b = sorted(rng.sample(range(1, 60), 2))
    return rng.choice([
        lambda: f"{rng.randint(0, 40) / 2:.1f} seconds.",
        lambda: f"{rng.randint(1, 60) / 10:.1f} meters.",
        lambda: f"The duration time is 00:00:{a:02d}.",
        lambda: f"The specified motion was detected at 00:{rng.randint(0, 9):02d}:{a:02d}.",
        lambda: f"Entry1 is 00:00:{a:02d}, Exit2 is 00:00:{b:02d}.",
        lambda: "The detected pixel coordinates are " + ",".join(
            f"({rng.randint(0, 1919)},{rng.randint(0, 1079)})" for _ in range(rng.randint(2, 12))) + ".",
    ])()


def _json(rng: random.Random) -> str:
    details = [{"ID": f"{rng.randint(1, 1999):04d}", "Category": rng.choice(["incident", "violation"]),
                "Filename": f"Cam{rng.randint(1, 30):02d}_{rng.randint(0, 59):02d}_{rng.randint(0, 59):02d}.jpg",
                "Short description": rng.choice(_INCIDENTS)} for _ in range(rng.choice([0, 0, 1, 2, 3, 5]))]
    if rng.random() < 0.5:
        return json.dumps(details)
    return json.dumps({"total_violations": len(details), "details": details})


def fieldworkarena_tasks(path: Path, n: int, *, seed: int = 0) -> Path:
    """Write ``n`` FieldWorkArena-shaped tasks with ground truth to ``path`` (a JSON task array); returns it."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        roll = rng.random()
        eval_func, gt = (("fuzzy_match", _fuzzy(rng)) if roll < 0.70 else
                         ("numerical_match", _numerical(rng)) if roll < 0.92 else ("json_match", _json(rng)))
        records.append({"id": f"{1 + i % 3}.{1 + i % 2}.{i:04d}", "input_data": f"Cam{i % 30:02d}_clip.mp4",
                        "conversations": [{"from": "human", "value": f"Question {i} about the footage."},
                                          {"from": "gpt", "value": gt}],
                        "output_format": "json" if eval_func == "json_match" else "text", "eval_func": eval_func})
    path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def task_csv(path: Path, n: int) -> Path:
    """Write fieldstudio's task CSV of ``n`` tasks (``t000000``...), two inputs each, the second with a time
    range (``clip.mp4#t=1,5``, a cell the ``csv`` module quotes for its comma); returns ``path``."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["task_id", "query", "ground_truth", "category", "inputs"])
        out.writerows([f"t{i:06d}", f"How many pallets are in bay {i}?", str(i % 9), f"{i % 4}.1",
                       f"bay_{i % 50}.jpg;clip_{i % 20}.mp4#t=1,5"] for i in range(n))
    return path


def answer_csv(path: Path, n: int) -> Path:
    """Write an answer CSV (``task_id,answer``) answering the ``n`` tasks of ``task_csv``; returns ``path``."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["task_id", "answer"])
        out.writerows([f"t{i:06d}", f"I count {(i * 7) % 11} pallets, one of them half hidden."] for i in range(n))
    return path
