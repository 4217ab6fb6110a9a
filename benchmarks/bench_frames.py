"""Foundation benchmarks: exact frame access, stepping, frame indexing and adding images.

Run with ``python benchmarks/run.py``. Every figure is a ratio against a reference measured in the
same run on the same files, so machines of different speed give comparable numbers:

- random access: ``FrameReader.get`` vs a plain PyAV seek-to-keyframe-and-decode loop (target <= 1.3x)
- one-frame steps forward/backward vs our own random-access median (target <= 0.15x)
- building the frame index vs ``ffprobe -show_entries frame=pts_time`` (target <= 1.0x)
- adding 1,000 images (thumbnails excluded) vs ``sha256sum`` on the same files (target <= 2.0x)
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import av
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fieldstudio.media import decoded_table, frame_reader, frame_table, library  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402

WORK = Path(__file__).resolve().parent / "_work"


def make_clip(path: Path) -> Path:
    """60 s of 1080p30 H.264 with a keyframe every 2 s (60 frames) and B-frames, made by ffmpeg."""
    if not path.exists():
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30",
                        "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-keyint_min", "60",
                        "-sc_threshold", "0", "-bf", "2", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


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
    t_index = timed(decoded_table.build_frame_table, clip)
    ffprobe = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
               "-of", "csv=p=0", str(clip)]
    t_probe = timed(lambda: subprocess.run(ffprobe, check=True, capture_output=True))

    table = decoded_table.build_frame_table(clip)
    print(f"frame index: {len(table)} frames in {t_index:.2f} s; ffprobe {t_probe:.2f} s; "
          f"ratio {t_index / t_probe:.2f} (target <= 1.0)")

    rng = random.Random(7)
    indices = rng.sample(range(len(table)), 25)
    ref = [timed(pyav_seek_decode, clip, table, i) for i in indices]
    reader = frame_reader.FrameReader(clip, table)
    ours = [timed(reader.get, i) for i in indices]
    ra_median = statistics.median(ours)
    print(f"random access: median {ra_median * 1000:.1f} ms; plain PyAV seek+decode {statistics.median(ref) * 1000:.1f} ms; "
          f"ratio {ra_median / statistics.median(ref):.2f} (target <= 1.3)")

    steps = []
    for i in rng.sample(range(5, len(table) - 5), 10):
        reader.get(i)
        steps += [timed(reader.get, i + 1), timed(reader.get, i + 2), timed(reader.get, i + 1), timed(reader.get, i),
                  timed(reader.get, i - 1)]
    print(f"one-frame steps: median {statistics.median(steps) * 1000:.1f} ms; ratio to random access "
          f"{statistics.median(steps) / ra_median:.3f} (target <= 0.15)")
    reader.close()


def bench_add_images() -> None:
    import cv2

    folder = WORK / "images"
    if not folder.exists():
        folder.mkdir(parents=True)
        rng = np.random.default_rng(1)
        for i in range(1000):
            img = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)
            cv2.imwrite(str(folder / f"img_{i:04d}.jpg"), img)
    files = sorted(folder.iterdir())
    t_ref = timed(lambda: subprocess.run(["sha256sum", *map(str, files)], check=True, capture_output=True))
    with tempfile.TemporaryDirectory() as tmp, Project.create(Path(tmp) / "b.fieldstudio") as p:
        t = time.perf_counter()
        report = library.add_paths(p, [folder])
        t_add = time.perf_counter() - t
    print(f"add 1000 images: {report.imported_total} imported in {t_add:.2f} s; sha256sum {t_ref:.2f} s; "
          f"ratio {t_add / t_ref:.2f} (target <= 2.0)")


def main() -> None:
    WORK.mkdir(exist_ok=True)
    clip = make_clip(WORK / "clip_60s_1080p.mp4")
    bench_frames(clip)
    bench_add_images()


if __name__ == "__main__":
    main()
