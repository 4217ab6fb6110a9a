"""Exact frames and adding images: random access, one-frame steps, adding 1,000 images.

Run with ``python benchmarks/bench_frames.py`` (``python benchmarks/run.py frames``). Every figure is a ratio
against a reference measured in the same run on the same files, so machines of different speed give
comparable numbers:

- random access: ``FrameReader.get`` vs a plain PyAV seek-to-keyframe-and-decode loop (target <= 1.3x)
- one-frame steps forward/backward vs our own random-access median (target <= 0.15x)
- adding 1,000 images (thumbnails excluded) vs ``sha256sum`` on the same files (target <= 2.0x)

The decoded frame index against ``ffprobe`` is measured once, in ``bench_playback.py index``.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import av
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import targets, work_folders  # noqa: E402
from fieldstudio.media import decoded_table, frame_reader, frame_table, library  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402


def pyav_seek_decode(path: Path, table: frame_table.FrameTable, index: int) -> np.ndarray:
    """The reference: open, seek to the keyframe before the PTS, decode forward, convert the frame."""
    target = int(table.pts[index])
    with av.open(str(path)) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        c.seek(target, stream=s, backward=True)
        for frame in c.decode(s):
            if frame.pts is not None and frame.pts >= target:
                return frame.to_ndarray(format="rgb24")
    raise RuntimeError("not found")


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def bench_frames(clip: Path) -> None:
    table = decoded_table.build_frame_table(clip)
    rng = random.Random(7)
    indices = rng.sample(range(len(table)), 25)
    ref = [timed(pyav_seek_decode, clip, table, i) for i in indices]
    reader = frame_reader.FrameReader(clip, table)
    ours = [timed(reader.get, i) for i in indices]
    ra_median = statistics.median(ours)
    print(f"random access: median {ra_median * 1000:.1f} ms; plain PyAV seek+decode {statistics.median(ref) * 1000:.1f} ms; "
          f"ratio {ra_median / statistics.median(ref):.2f} (target <= 1.3)")
    targets.declare("random exact frame of a 60 s 1080p clip (median of 25)", ra_median / statistics.median(ref), 1.3,
                    better=targets.LOWER, reference="plain PyAV seek + decode", sizes_reduced=False)

    steps = []
    for i in rng.sample(range(5, len(table) - 5), 10):
        reader.get(i)
        steps += [timed(reader.get, i + 1), timed(reader.get, i + 2), timed(reader.get, i + 1), timed(reader.get, i),
                  timed(reader.get, i - 1)]
    print(f"one-frame steps: median {statistics.median(steps) * 1000:.1f} ms; ratio to random access "
          f"{statistics.median(steps) / ra_median:.3f} (target <= 0.15)")
    targets.declare("one-frame step forward or back (median of 50)", statistics.median(steps) / ra_median, 0.15,
                    better=targets.LOWER, reference="our random exact frame", sizes_reduced=False)
    reader.close()


def bench_add_images(run: Path) -> None:
    folder = work_folders.random_jpegs("images_1000_640x480", 1000, 480, 640, seed=1, stem="img")
    files = sorted(folder.iterdir())
    t_ref = timed(lambda: subprocess.run(["sha256sum", *map(str, files)], check=True, capture_output=True))
    with Project.create(run / "images.fieldstudio") as p:
        t = time.perf_counter()
        report = library.add_paths(p, [folder])
        t_add = time.perf_counter() - t
    print(f"add 1000 images: {report.imported_total} imported in {t_add:.2f} s; sha256sum {t_ref:.2f} s; "
          f"ratio {t_add / t_ref:.2f} (target <= 2.0)")
    targets.declare("add 1,000 640x480 JPEGs (thumbnails excluded)", t_add / t_ref, 2.0, better=targets.LOWER,
                    reference="sha256sum of the same files", sizes_reduced=False)


def main() -> None:
    run = work_folders.fresh_run_folder()
    bench_frames(work_folders.clip_60s_1080p())
    bench_add_images(run)
    targets.print_own_table()


if __name__ == "__main__":
    main()
