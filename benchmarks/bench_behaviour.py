"""Behaviour coding: one key press while 2,000 events are coded, and an hour's kappa, identity and time budget.

Run with ``python benchmarks/bench_behaviour.py`` (issue 32 item 2). The video is a media row with a frame table of
one hour at 30 fps (108,000 frames, no file: coding reads only the frame table), coded by two coders, each 1,000
state events and 1,000 point events over two subjects.

Printed:

- one key press in the window (``QTest.keyClick`` on the canvas while coding, then ``processEvents``: the key
  filter, the event stored in one transaction, the Behaviour dock's row inserted or changed, the lanes under the
  timeline laid out and painted again) on a 2-minute clip with 2,000 events already coded in its first minute by
  the coder the keys record for (the keys pressed in the second minute) and the dock's Events tab in front: p95 of
  40 presses, target <= 33 ms (one frame at 30 fps: the window handles the key on its GUI
  thread while libVLC plays); the reference measured in the same run is the same presses in the same window on the
  same clip with no event coded before (the ratio says what 2,000 events add);
- the frame recorded while libVLC plays the barcode clip vs the number in the picture on the canvas at each of 60
  key presses: the clock's estimate recorded at once, and the frame after the picture was matched
  (``media.picture_match``): target 100 % exact;
- the service alone (``coding.record_key``, what the window calls: the overlap check, the insert and the read-back
  in one store session and one commit) on an hour with 2,000 events: the median of 50 presses; the reference is a
  plain ``sqlite3`` INSERT of one row and its commit into a file in the same folder;
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
ETHOGRAM = eth.Ethogram((eth.Behaviour("lift", "l", "#e6194b", "state", "posture"),
                         eth.Behaviour("walk", "w", "#3cb44b", "state", "posture"),
                         eth.Behaviour("look", "k", "#4363d8", "point")),
                        (eth.Subject("A", "1"), eth.Subject("B", "2")))
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
    eth.SetEthogram(p, ETHOGRAM).do()
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


CODER = "ann"  # who coded the window project's events, and whom the window's keys record for
WINDOW_CLIP_FRAMES = 3600  # 2 minutes at 30 fps: 2,000 events on it are one every 1.8 frames
WINDOW_PRESSES = 40
# the events fill the first minute (one every 0.9 frames); the keys are pressed in the second, where a state that
# starts runs on into frames nothing is coded on yet (earlier, most keys were refused as overlapping the record)
CODED_UNTIL = WINDOW_CLIP_FRAMES // 2


def window_project(path: Path, clip: Path, events: int) -> Path:
    """A project with ``clip`` indexed, ``ETHOGRAM`` and ``events`` coded by ``CODER`` (half states started and
    stopped, half points, over two subjects)."""
    from fieldstudio.media import library, video_index

    with Project.create(path) as p:
        report = library.add_paths(p, [clip])
        video_index.index_videos(p, report.media_ids)
        mid = report.media_ids[0]
        eth.SetEthogram(p, ETHOGRAM).do()
        ethogram = eth.load(p)
        for k in range(events // 2):  # a state (started and stopped) and a point event
            frame = k * (CODED_UNTIL - 10) // max(events // 2, 1)
            for f, name in ((frame, "lift"), (frame + 1, "lift"), (frame + 2, "look")):
                edit, _ = coding.code_behaviour(p, ethogram, mid, name, f, subject="AB"[k % 2], coder=CODER)
                edit.do()
        assert len(behaviour_events.list_events(p, mid)) == 2 * (events // 2)
    return path


class ShownWindow:
    """fieldstudio's window on a project, its video shown, coding on (the Behaviour dock's Events tab in front)."""

    def __init__(self, project_path: Path):
        from fieldstudio.gui.app import application
        from fieldstudio.gui.main_window import MainWindow
        from fieldstudio.media import library

        self.app = application()
        self.w = w = MainWindow(Project.open(project_path))
        w.resize(1280, 800)
        w.show()
        w.annotator.confirm_open_segments = lambda: True
        self.wait(lambda: w.state.project is not None and w.library is not None)
        self.media = library.find_media(w.state.project, "two_minutes.mp4")
        w.library.select(self.media.id)
        self.wait(lambda: w.state.media is not None and w.state.media.id == self.media.id and w.view.loader.idle())
        w.behaviour.coding_action.setChecked(True)
        # the keys record for the coder of the events already coded, so the dock's table and the lanes hold them
        # (the window's own coder, the login name in a fresh config, has none: it measured an empty record)
        w.behaviour.choose_coder(CODER)
        w.behaviour.show_tab(0)

    def wait(self, done, timeout_s: float = 30.0) -> None:  # noqa: ANN001 - Callable[[], bool]
        end = time.monotonic() + timeout_s
        while not done():
            if time.monotonic() > end:
                raise RuntimeError("the window did not get there in time")
            self.app.processEvents()
            time.sleep(0.005)

    def show_frame(self, index: int) -> None:
        self.w.state.request_frame(self.media.id, index)
        self.wait(lambda: self.w.state.frame_index == index and self.w.view.loader.idle())

    def close(self) -> None:
        self.w.close()
        self.app.processEvents()


def window_key_presses(project_path: Path) -> list[float]:
    """Seconds per key press in the window on ``project_path`` (``ShownWindow``): subject and behaviour keys on
    frames further on (the frame is moved between presses, not timed)."""
    from PySide6.QtTest import QTest

    shown = ShownWindow(project_path)
    times = []
    for k in range(WINDOW_PRESSES):
        shown.show_frame(CODED_UNTIL + 200 + k * 20)  # forward, as a coder goes: a state may start there
        key = ("1", "l", "k", "2", "w", "l")[k % 6]
        t = time.perf_counter()
        QTest.keyClick(shown.w.view.canvas, key)
        shown.app.processEvents()
        times.append(time.perf_counter() - t)
    shown.close()
    return times


def frames_recorded_while_playing(project_path: Path, presses: int = 60) -> tuple[list[int], list[int], list[str]]:
    """Play the barcode clip with libVLC and press a point event's key ``presses`` times at uneven intervals; per
    press, the frame recorded minus the frame whose picture was on the canvas at that moment (read back from the
    barcode the picture carries, independently of fieldstudio): as recorded at once (the playback clock's
    estimate) and once the picture has been matched (``frame_found``), with how each was found. Empty lists when
    libVLC is not installed."""
    import random

    import cv2
    from PySide6.QtTest import QTest

    from fieldstudio.gui.imaging import rgb_from_qimage
    from fieldstudio.gui.viewer.vlc_playback import vlc_unavailable_reason
    from tests.support.video_fixtures import H, W, read_barcode

    if vlc_unavailable_reason():
        return [], [], []
    shown = ShownWindow(project_path)
    w = shown.w
    shown.show_frame(0)
    w.actions["play"].trigger()
    shown.wait(lambda: w.view.video.played_frame() is not None)
    pace = random.Random(32)
    clock, after, found = [], [], []
    for _ in range(presses):
        end = time.monotonic() + pace.uniform(0.1, 0.4)
        shown.wait(lambda: time.monotonic() >= end)
        picture = rgb_from_qimage(w.view.canvas.video_item.image())  # libVLC's picture on show
        on_screen = read_barcode(cv2.resize(picture, (W, H), interpolation=cv2.INTER_LINEAR))
        before = {e.id for e in behaviour_events.list_events(w.state.project, shown.media.id)}
        QTest.keyClick(w.view.canvas, "k")  # sent at once: no other picture is drawn before the key is handled
        (event,) = [e for e in behaviour_events.list_events(w.state.project, shown.media.id) if e.id not in before]
        clock.append(event.frame_index - on_screen)
        shown.wait(lambda: w.behaviour.correction.pending == 0)  # the match runs on a worker while libVLC plays
        event = behaviour_events.get_event(w.state.project, event.id)
        after.append(event.frame_index - on_screen)
        found.append(event.frame_found)
    w.actions["play"].trigger()
    shown.close()
    return clock, after, found


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def bench_window(run: Path) -> tuple[float, float, tuple[list[int], list[int], list[str]]]:
    """p95 ms of a key press in the window with 2,000 events coded, and with none (the same clip); the errors of
    the frames recorded while libVLC plays (``frames_recorded_while_playing``)."""
    from tests.support.video_fixtures import X264, encode

    clip = encode(run / "two_minutes.mp4", WINDOW_CLIP_FRAMES, args=[*X264, "-g", "60"])
    coded = window_project(run / "coded.fieldstudio", clip, 2000)
    empty = window_project(run / "empty.fieldstudio", clip, 0)
    # empty first: both pay the same imports and caches before their first timed press
    empty_ms = p95(window_key_presses(empty)) * 1000
    coded_ms = p95(window_key_presses(coded)) * 1000
    return coded_ms, empty_ms, frames_recorded_while_playing(empty)


def main() -> None:
    run = work_folders.fresh_run_folder()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    window_ms, window_empty_ms, (clock_errors, playing_errors, found) = bench_window(run)
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
        coding.record_key(p, ethogram, VIDEO, "walk", 100_000 + k * 10, subject="A", coder="ann")
        presses.append(time.perf_counter() - t)
    key_ms = statistics.median(presses) * 1000
    key_p95_ms = p95(presses) * 1000
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
    print(f"key press in the window with 2,000 events coded: p95 {window_ms:.1f} ms of {WINDOW_PRESSES} (target <= "
          f"{KEY_TARGET_MS:.0f} ms); with no event coded: p95 {window_empty_ms:.1f} ms, ratio "
          f"{window_ms / window_empty_ms:.2f}")
    if playing_errors:
        for what, errors in (("the clock's estimate, recorded at once", clock_errors),
                             ("after the picture was matched", playing_errors)):
            n = len(errors)
            exact = sum(e == 0 for e in errors) / n * 100
            near = sum(abs(e) == 1 for e in errors) / n * 100
            print(f"frame recorded while libVLC plays vs the frame whose picture was on the canvas, {what}, {n} "
                  f"presses: exact {exact:.0f} %, off by 1 {near:.0f} %, worse {100 - exact - near:.0f} % (errors "
                  f"{min(errors)} to {max(errors)}: {sorted(errors)})")
        by_picture = [e for e, f in zip(playing_errors, found, strict=True) if f == "picture"]
        print(f"  found by the picture: {len(by_picture)} of {len(found)}, of which exact "
              f"{sum(e == 0 for e in by_picture)}; left on the clock: {found.count('clock')}")
    else:
        print("frame recorded while libVLC plays: not measured (libVLC is not installed)")
    print(f"key press, the service alone, 2,000 events coded: median {key_ms:.1f} ms of 50 (p95 {key_p95_ms:.1f} ms); "
          f"reference: sqlite3 INSERT + commit {ref_ms:.2f} ms, ratio {key_ms / ref_ms:.1f}")
    print(f"kappa, 1 s slices over the coded hour ({kappa.slices} slices x 2 subjects, 4,000 events): {kappa_s:.2f} s, "
          f"K = {kappa.kappa:.3f}")
    print(f"time budget of 1 h (2,000 events, {len(rows)} rows): {budget_s * 1000:.1f} ms")
    print(f"Needleman-Wunsch identity, about 1,000 slices: {identity_s:.2f} s, {identity:.1f} %")
    print(f"load average {load} on {os.cpu_count()} cores")
    targets.declare("one behaviour key press in the window, 2,000 events coded (p95)", window_ms, KEY_TARGET_MS,
                    better=targets.LOWER, reference=f"absolute (no event coded: {window_empty_ms:.1f} ms, ratio "
                    f"{window_ms / window_empty_ms:.2f})", unit="ms", sizes_reduced=False)
    targets.declare("one behaviour key press, the service alone, 2,000 events coded", key_ms, KEY_TARGET_MS,
                    better=targets.LOWER, reference=f"absolute (sqlite3 INSERT + commit: {ref_ms:.2f} ms)", unit="ms",
                    sizes_reduced=False)
    if playing_errors:
        exact_after = sum(e == 0 for e in playing_errors) / len(playing_errors) * 100
        exact_clock = sum(e == 0 for e in clock_errors) / len(clock_errors) * 100
        targets.declare("frame recorded while libVLC plays is the frame shown (exact)", exact_after, 100.0,
                        better=targets.HIGHER, reference=f"absolute (the clock's estimate alone: {exact_clock:.0f} %)",
                        unit="%", sizes_reduced=False)
    targets.declare("Cohen's kappa, 1 h at 1 s slices", kappa_s, 2.0, better=targets.LOWER, reference="absolute",
                    unit="s", sizes_reduced=False)
    targets.declare("time budget of 1 h, 2,000 events", budget_s, 0.5, better=targets.LOWER, reference="absolute",
                    unit="s", sizes_reduced=False)
    targets.declare("Needleman-Wunsch identity, 1,000 slices", identity_s, 1.0, better=targets.LOWER,
                    reference="absolute", unit="s", sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
