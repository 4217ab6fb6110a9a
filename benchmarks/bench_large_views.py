"""The window's other large views opened: the longest GUI-thread stall of each, from the click until it is shown.

Run with ``python benchmarks/bench_large_views.py [--quick]`` (``--quick``: 10,000 tasks instead of 100,000). Issue
37 item 2: "the Compare tab and every large view open without a GUI-thread stall over 100 ms". The views, each
built and shown offscreen in this process as the first click on its tab builds it (its module imported before, as
the window does on a worker once a project is shown), with a 5 ms heartbeat on the GUI thread (``heartbeat``):

- the Tasks tab (``TaskEditorPanel``) of a project of 100,000 generated FieldWorkArena-shaped tasks
  (``generated_tasks.task_csv``, imported with ``fieldstudio tasks import``);
- the Runs tab (``RunPanel``, its run history and choice of tasks) of a project of 900 tasks x 20 runs
  (``bench_scoring.project_with``, scored with fs-match), and of the 100,000-task project;
- the media library (``LibraryPanel``) of a project of 5,000 small JPEGs (``bench_viewer.project_with_media``),
  until every row is listed (``all_listed``).

For each, alone (the workers of the view measured before have ended; how long they ran on is printed): the longest
stall from the click until it is shown and 300 ms after (target <= 100 ms), the time to shown (for information),
and beside them the longest gap of the same heartbeat during 3 s with nothing to do (what the
machine's load alone costs the GUI thread).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from benchmarks import generated_tasks, targets, work_folders  # noqa: E402
from benchmarks.commands import in_process  # noqa: E402
from benchmarks.heartbeat import BEAT_MS, Heartbeat, run_until, settle  # noqa: E402

STALL_TARGET_MS = 100.0
IDLE_MS = 3000
AFTER_MS = 300


def main() -> None:
    n_tasks = 10_000 if targets.quick() else 100_000
    run = work_folders.fresh_run_folder()
    from benchmarks.bench_scoring import N_TASKS, project_with
    from benchmarks.bench_viewer import N_MEDIA, project_with_media
    from fieldstudio.scoring import service as scoring
    from fieldstudio.store.project import Project

    tasks_path = run / "tasks.fieldstudio"
    Project.create(tasks_path).close()
    in_process("tasks", "import", str(tasks_path), str(generated_tasks.task_csv(run / "tasks.csv", n_tasks)))
    runs_project = project_with(run, "runs", N_TASKS * 20)
    scoring.score_answers(runs_project, "fs-match")
    runs_path = runs_project.path
    runs_project.close()
    media_path = project_with_media(run, N_MEDIA)

    from fieldstudio.gui.app import application

    app = application()    # as the window makes it (its switch interval and heap bounds)
    from fieldstudio.gui.panels.library import LibraryPanel
    from fieldstudio.gui.panels.runs import RunPanel
    from fieldstudio.gui.panels.tasks import TaskEditorPanel
    from fieldstudio.gui.workspace import import_tab_modules

    import_tab_modules(progress=lambda done, total: None, cancelled=lambda: False)  # as the window's worker does
    heart = Heartbeat()
    settle(300)
    mark = heart.mark()
    settle(IDLE_MS)
    idle_gap = heart.longest_gap_ms(mark)
    keep: list = []

    from PySide6.QtCore import QThreadPool

    def workers_done() -> float:
        """Run the event loop until no worker runs (the Runs tab's estimate of its tasks goes on after loaded);
        seconds waited."""
        t0 = time.perf_counter()
        while QThreadPool.globalInstance().activeThreadCount():
            settle(20)
        return time.perf_counter() - t0

    def opened(what: str, open_view: Callable[[], object], signal_of: Callable[[object], object] | None = None):
        """Open a view as the click does, each alone (no worker of the view before still running); (seconds to
        shown, longest stall in ms)."""
        after = workers_done()
        if after > 0.1:
            print(f"  [information] the workers of the view before ran {after:.1f} s more after it was measured",
                  flush=True)
        settle(300)
        mark = heart.mark()
        if signal_of is None:
            t0 = time.perf_counter()
            keep.append(open_view())
            shown = time.perf_counter() - t0
            settle(AFTER_MS)
        else:
            def click():  # noqa: ANN202
                keep.append(open_view())
                return signal_of(keep[-1])

            shown = run_until(click, after_ms=AFTER_MS)
        gap = heart.longest_gap_ms(mark)
        print(f"{what}: shown in {shown:.2f} s, longest GUI-thread stall {gap:.0f} ms (target <= "
              f"{STALL_TARGET_MS:.0f})", flush=True)
        targets.declare(f"longest GUI-thread stall opening {what}", gap, STALL_TARGET_MS, better=targets.LOWER,
                        reference=f"absolute ({BEAT_MS} ms heartbeat)", unit="ms")
        return shown, gap

    projects = {p: Project.open(p) for p in (tasks_path, runs_path)}

    def panel(cls, project):  # noqa: ANN001, ANN202
        view = cls()
        view.resize(1600, 1000)
        view.show()
        view.set_project(project)
        return view

    def library(path: Path):  # noqa: ANN202
        view = LibraryPanel(path)
        view.resize(400, 1000)
        view.show()
        return view

    opened(f"the Tasks tab, {n_tasks:,} tasks", lambda: panel(TaskEditorPanel, projects[tasks_path]),
           lambda v: v.loaded)
    opened(f"the Runs tab, {N_TASKS} tasks x 20 runs", lambda: panel(RunPanel, projects[runs_path]), lambda v: v.loaded)
    opened(f"the Runs tab, {n_tasks:,} tasks", lambda: panel(RunPanel, projects[tasks_path]), lambda v: v.loaded)
    opened(f"the media library, {N_MEDIA:,} media", lambda: library(media_path), lambda v: v.model.all_listed)
    heart.stop()
    print(f"  [information] {IDLE_MS / 1000:.0f} s with nothing to do: longest gap of the heartbeat {idle_gap:.0f} ms "
          "(the machine's load alone)")
    targets.print_own_table()
    # the views' workers end before the views go: a view whose last reference a worker's thread dropped would be
    # destroyed there, and Qt waits for the GUI thread meanwhile
    workers_done()
    for view in keep:
        if hasattr(view, "set_project"):
            view.set_project(None)
    for p in projects.values():
        p.close()
    del app


if __name__ == "__main__":
    main()
