"""Box tracking: following a box through 300 frames of 1080p H.264.

Run with ``python benchmarks/bench_tracking.py`` (issue 20). The clip is the test suite's textured rectangle on its
Lissajous path (``tests/support/tracking_clips.py``, ``path="loop"``), enlarged 3x to 1920x1080 (the box is
240 x 168 px), 300 frames at 30 fps with a keyframe every 30 frames and B-frames, made by ffmpeg.

Printed:

- tracking speed: frames followed per second by ``annotations.tracking.follow_box`` (exact frames from the
  frame table, CSRT on frames scaled for the tracker, the appearance check), target >= 25 frames/s;
- the reference measured in the same run: a plain PyAV decode of the same frames to full-size RGB
  (what showing the frames would cost), and the ratio tracking / decoding;
- the CPU time the process used for it (decoding thread included) and frames per CPU second: on this
  shared machine (2 cores, several sessions) the wall-clock rate depends on the other work running, the
  CPU rate much less; the load average is printed with them;
- accuracy on the way: the share of frames whose tracked box has IoU >= 0.7 with the true box.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import av

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import targets, work_folders  # noqa: E402
from fieldstudio.annotations import annotation_records as ann  # noqa: E402
from fieldstudio.annotations import tracking  # noqa: E402
from fieldstudio.media import library, video_index  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402
from tests.support.tracking_clips import iou, make_clip, truth  # noqa: E402

FRAMES = 300
SCALE = 3
TARGET_FPS = 25.0


def plain_decode(clip: Path) -> float:
    """Seconds for PyAV to decode every frame of ``clip`` to RGB (the reference)."""
    t = time.perf_counter()
    with av.open(str(clip)) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        for f in c.decode(s):
            f.to_ndarray(format="rgb24")
    return time.perf_counter() - t


def main() -> None:
    run = work_folders.fresh_run_folder()
    clip = work_folders.made_once(f"tracking_loop_{FRAMES}_1080p.mp4",
                                  lambda out: make_clip(out, "loop", frames=FRAMES, scale=SCALE))
    with Project.create(run / "tracking.fieldstudio") as p:
        report = library.add_paths(p, [clip])
        video_index.index_videos(p, report.media_ids)
        media_id = report.media_ids[0]
        x1, y1, x2, y2 = (v * SCALE for v in truth(0, "loop"))
        box = ann.add_box(p, media_id, (x1, y1, x2 - x1, y2 - y1), frame_index=0, track_id=1)
        start = tracking.start_of_box(p, box)
        t, cpu = time.perf_counter(), time.process_time()
        result = tracking.follow_box(p, start, FRAMES - 1)
        seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    t_ref = plain_decode(clip)
    fps = result.frames_followed / seconds
    good = sum(iou(b, tuple(v * SCALE for v in truth(f, "loop"))) >= 0.7 for f, b in result.boxes.items() if f)
    print(f"tracking: {result.frames_followed} frames of 1920x1080 in {seconds:.2f} s = {fps:.1f} frames/s "
          f"(target >= {TARGET_FPS:.0f}); stop: {result.stop}")
    print(f"reference: plain PyAV decode to RGB of the same {FRAMES} frames {t_ref:.2f} s = {FRAMES / t_ref:.1f} "
          f"frames/s; ratio tracking / decoding {seconds / t_ref * FRAMES / max(result.frames_followed, 1):.2f}")
    print(f"CPU time: {cpu:.2f} s = {result.frames_followed / cpu:.1f} frames per CPU second; load average "
          f"{' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
    print(f"accuracy: IoU >= 0.7 with the true box on {good} of {result.frames_followed} frames followed")
    targets.declare(f"following a box through {FRAMES} frames of 1080p", fps, TARGET_FPS, better=targets.HIGHER,
                    reference="absolute (PyAV decoding the same frames printed beside it)", unit="frames/s",
                    sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
