"""Behaviour coding: one key press while 2,000 events are coded, and an hour's kappa, identity and time budget.

Run with ``python benchmarks/bench_behaviour.py`` (issue 32 item 2). The video is a media row with a frame table of
one hour at 30 fps (108,000 frames, no file: coding reads only the frame table), coded by two coders, each 1,000
state events and 1,000 point events over two subjects.

Printed:

- one key press (``coding.code_behaviour`` + its edit's ``do()``: the running states read, the event written in
  one transaction) with 2,000 events already on the video: the median of 50 presses, target <= 33 ms (one frame
  at 30 fps: the window handles the key on its GUI thread while libVLC plays); the reference measured in the same
  run is a plain ``sqlite3`` INSERT of one row and its commit into a file in the same folder;
- Cohen's kappa per 1 s slice over the hour (3,600 slices x 2 subjects, 4,000 events): target <= 2 s;
- the time budget of the hour: target <= 0.5 s; the Needleman-Wunsch identity on 1,000 slices (its cap: it is
  quadratic): target <= 1 s.
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import insert  # noqa: E402

from benchmarks import targets, work_folders  # noqa: E402
from fieldstudio.annotations.behaviour import behaviour_events, coder_agreement, coding, time_budget  # noqa: E402
from fieldstudio.annotations.behaviour import ethogram as eth  # noqa: E402
from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent  # noqa: E402
from fieldstudio.store.models import FrameIndexRow, Media  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402

FPS = 30
FRAMES = 3600 * FPS
VIDEO = "v" * 32
TIME_BASE = Fraction(1, 15360)
KEY_TARGET_MS = 1000 / FPS


def make_project(path: Path) -> Project:
    p = Project.create(path)
    with p.write() as s:
        s.add(Media(id=VIDEO, kind="video", path="hour.mp4", file_name="hour.mp4", width=1920, height=1080,
                    time_base_num=1, time_base_den=15360, frame_count=FRAMES, index_status="ready",
                    avg_fps=FPS, duration_s=3600.0))
        s.flush()
        s.execute(insert(FrameIndexRow), [{"media_id": VIDEO, "frame_index": i, "pts": i * 512, "keyframe": i % 60 == 0}
                                          for i in range(FRAMES)])
    e = eth.Ethogram((eth.Behaviour("lift", "l", "#e6194b", "state", "posture"),
                      eth.Behaviour("walk", "w", "#3cb44b", "state", "posture"),
                      eth.Behaviour("look", "k", "#4363d8", "point")),
                     (eth.Subject("A", "1"), eth.Subject("B", "2")))
    eth.SetEthogram(p, e).do()
    return p


def synthetic(coder: str, shift_frames: int) -> list[BehaviourEvent]:
    """1,000 states and 1,000 points over two subjects in the hour (in memory, for the analyses)."""
    out = []
    for k in range(1000):
        subject = "AB"[k % 2]
        start = k * 100 + shift_frames
        out.append(BehaviourEvent(f"{coder}s{k}", VIDEO, "lift" if k % 4 < 2 else "walk", subject, (), "state",
                                  start, start / FPS, start + 60, (start + 60) / FPS, coder))
        out.append(BehaviourEvent(f"{coder}p{k}", VIDEO, "look", subject, (), "point", start + 80, (start + 80) / FPS,
                                  start + 80, (start + 80) / FPS, coder))
    return out


def main() -> None:
    run = work_folders.fresh_run_folder()
    p = make_project(run / "behaviour.fieldstudio")
    ethogram = eth.load(p)
    # 2,000 events already coded (1,000 states started and stopped, by key as a coder would)
    for k in range(1000):
        for frame in (k * 100, k * 100 + 50):
            edit, _ = coding.code_behaviour(p, ethogram, VIDEO, "lift", frame, subject="AB"[k % 2], coder="ann")
            edit.do()
    assert len(behaviour_events.list_events(p, VIDEO)) == 1000
    for k in range(1000):
        edit, _ = coding.code_behaviour(p, ethogram, VIDEO, "look", k * 100 + 70, subject="AB"[k % 2], coder="ann")
        edit.do()
    presses = []
    for k in range(50):
        t = time.perf_counter()
        edit, _ = coding.code_behaviour(p, ethogram, VIDEO, "walk", 100_000 + k * 10, subject="A", coder="ann")
        edit.do()
        presses.append(time.perf_counter() - t)
    key_ms = statistics.median(presses) * 1000
    p.close()
    ref = sqlite3.connect(run / "reference.sqlite")
    ref.execute("CREATE TABLE e (id TEXT PRIMARY KEY, frame INTEGER, attrs TEXT)")
    ref_times = []
    for k in range(50):
        t = time.perf_counter()
        ref.execute("INSERT INTO e VALUES (?, ?, ?)", (f"r{k}", k, '{"behaviour": "walk"}'))
        ref.commit()
        ref_times.append(time.perf_counter() - t)
    ref.close()
    ref_ms = statistics.median(ref_times) * 1000

    a, b = synthetic("ann", 0), synthetic("bob", 3)
    t = time.perf_counter()
    kappa = coder_agreement.cohen_kappa(a, b, 1.0)
    kappa_s = time.perf_counter() - t
    t = time.perf_counter()
    rows = time_budget.time_budget(a, 0.0, 3600.0)
    budget_s = time.perf_counter() - t
    half = [e for e in a if e.start_s < 1000]
    half_b = [e for e in b if e.start_s < 1000]
    t = time.perf_counter()
    identity = coder_agreement.needleman_wunsch_identity(half, half_b, 1.0)
    identity_s = time.perf_counter() - t

    load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"key press with 2,000 events coded: median {key_ms:.1f} ms of 50 (target <= {KEY_TARGET_MS:.0f} ms); "
          f"reference: sqlite3 INSERT + commit {ref_ms:.2f} ms, ratio {key_ms / ref_ms:.1f}")
    print(f"kappa, 1 s slices over the coded hour ({kappa.slices} slices x 2 subjects, 4,000 events): {kappa_s:.2f} s, "
          f"K = {kappa.kappa:.3f}")
    print(f"time budget of 1 h (2,000 events, {len(rows)} rows): {budget_s * 1000:.1f} ms")
    print(f"Needleman-Wunsch identity, about 1,000 slices: {identity_s:.2f} s, {identity:.1f} %")
    print(f"load average {load} on {os.cpu_count()} cores")
    targets.declare("one behaviour key press, 2,000 events coded", key_ms, KEY_TARGET_MS, better=targets.LOWER,
                    reference=f"absolute (sqlite3 INSERT + commit: {ref_ms:.2f} ms)", unit="ms", sizes_reduced=False)
    targets.declare("Cohen's kappa, 1 h at 1 s slices", kappa_s, 2.0, better=targets.LOWER, reference="absolute",
                    unit="s", sizes_reduced=False)
    targets.declare("time budget of 1 h, 2,000 events", budget_s, 0.5, better=targets.LOWER, reference="absolute",
                    unit="s", sizes_reduced=False)
    targets.declare("Needleman-Wunsch identity, 1,000 slices", identity_s, 1.0, better=targets.LOWER,
                    reference="absolute", unit="s", sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
