"""Task import benchmark (issue 23, item 7g). Run with ``python benchmarks/bench_task_reimport.py [N]``.

Imports a task CSV of N tasks (default 100,000; two inputs each) into a new project, then imports the same
file again. The second import finds every task unchanged, writes nothing and must take at most the time
of the first. Prints both times and the ratio; the exit code is 1 when the target is missed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fieldstudio.store.project import Project  # noqa: E402
from fieldstudio.tasks.importing import import_tasks  # noqa: E402


def main(n: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "tasks.csv"
        f.write_text("task_id,query,ground_truth,category,inputs\n" + "".join(
            f"t{i:06d},How many pallets are in bay {i}?,{i % 9},{i % 4}.1,bay_{i % 50}.jpg;clip_{i % 20}.mp4#t=1,5\n"
            for i in range(n)), encoding="utf-8")
        with Project.create(Path(tmp) / "bench.fieldstudio") as project:
            t0 = time.perf_counter()
            first = import_tasks(project, [f])
            t1 = time.perf_counter()
            again = import_tasks(project, [f])
            t2 = time.perf_counter()
    print(f"first import: {first.created} created in {t1 - t0:.2f} s")
    print(f"re-import:    {again.created} created, {again.updated} updated, {again.unchanged} unchanged "
          f"in {t2 - t1:.2f} s ({(t2 - t1) / (t1 - t0):.2f}x the first)")
    ok = again.updated == 0 and again.unchanged == n and (t2 - t1) <= (t1 - t0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000))
