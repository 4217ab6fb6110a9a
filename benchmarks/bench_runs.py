"""Run-queue benchmarks (issue 7). Run with ``python benchmarks/bench_runs.py``.

- 200 text tasks against the local fake OpenAI-compatible server answering in 0.3 s, concurrency 8: the run
  must finish within 1.25x of the ideal 200 / 8 x 0.3 s = 7.5 s.
- Preparing the ``fieldworkarena`` frames of a 60 s 1080p clip (sampling, exact decoding, resizing to the
  profile's longest side, JPEG encoding, base64): at most 0.5x the time of
  ``ffmpeg -i clip -vf fps=1 -q:v 3 out%03d.jpg`` measured in the same run.

Both figures are printed as ratios; the exit code is 1 when a target is missed.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import multiprocessing.synchronize
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fieldstudio.inference.inputs import FrameEncoder, load_task  # noqa: E402
from fieldstudio.inference.profiles import ModelProfile  # noqa: E402
from fieldstudio.inference.runs import queue as run_queue  # noqa: E402
from fieldstudio.inference.strategies.base import StrategyContext  # noqa: E402
from fieldstudio.inference.strategies.fieldworkarena import build_fieldworkarena  # noqa: E402
from fieldstudio.media import library, video_index  # noqa: E402
from fieldstudio.store.models import Task, TaskInput  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

WORK = Path(__file__).resolve().parent / "_work"
TASKS = 200
LATENCY_S = 0.3
CONCURRENCY = 8


def make_clip(path: Path) -> Path:
    """60 s of 1080p30 H.264 with a keyframe every 2 s and B-frames (the same clip as benchmarks/run.py)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30",
                        "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-keyint_min", "60",
                        "-sc_threshold", "0", "-bf", "2", "-pix_fmt", "yuv420p", str(path)], check=True)
    return path


def _serve(latency_s: float, port_out: multiprocessing.connection.Connection,
           stop: multiprocessing.synchronize.Event) -> None:
    """The fake server in its own process, as a real local server would be (it does not share our GIL)."""
    server = FakeOpenAI().start()
    server.latency_s = latency_s
    port_out.send(server.base_url)
    stop.wait()
    server.stop()


def bench_queue(folder: Path) -> bool:
    project = Project.create(folder / "queue.fieldstudio")
    with project.write() as s:
        s.add_all([Task(query=f"question {i}", source="manual", external_id=f"q{i:03d}") for i in range(TASKS)])
    receive, send = multiprocessing.Pipe(duplex=False)
    stop = multiprocessing.Event()
    server = multiprocessing.Process(target=_serve, args=(LATENCY_S, send, stop), daemon=True)
    server.start()
    base_url = receive.recv()
    profile = ModelProfile(name="bench", base_url=base_url, model="fake-vlm", concurrency=CONCURRENCY,
                           price_input_per_mtok=1.0, price_output_per_mtok=2.0)
    try:
        run_id = run_queue.create_run(project, profile, run_queue.select_tasks(project), "fieldworkarena")
        started = time.perf_counter()
        summary = run_queue.execute_run(project, run_id, profile=profile)
        elapsed = time.perf_counter() - started
    finally:
        stop.set()
        server.join(5)
        project.close()
    ideal = TASKS / CONCURRENCY * LATENCY_S
    ok = summary.answered == TASKS and elapsed <= 1.25 * ideal
    print(f"run queue: {summary.answered}/{TASKS} answered at concurrency {CONCURRENCY}, {LATENCY_S} s per reply, "
          f"in {elapsed:.2f} s; ideal {ideal:.2f} s; ratio {elapsed / ideal:.2f} (target <= 1.25)")
    return ok


def bench_frames(folder: Path) -> bool:
    clip = make_clip(WORK / "clip_60s_1080p.mp4")
    project = Project.create(folder / "frames.fieldstudio")
    report = library.add_paths(project, [clip])
    video_index.index_videos(project, report.media_ids)
    with project.write() as s:
        task = Task(query="What happens?", source="manual")
        s.add(task)
        s.flush()
        s.add(TaskInput(task_id=task.id, position=0, name=clip.name, media_id=report.media_ids[0]))
        task_id = task.id
    profile = ModelProfile(name="bench", base_url="http://127.0.0.1:9/v1", model="m")
    spec = load_task(project, task_id)

    def ours() -> int:
        encoder = FrameEncoder(project)  # a fresh encoder: no frame or JPEG cached from the previous round
        try:
            prompt = build_fieldworkarena(StrategyContext(project, encoder, profile), spec)[0]
            return len(prompt.images)
        finally:
            encoder.close()

    def ffmpeg(out: Path) -> None:
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(clip), "-vf", "fps=1", "-q:v", "3",
                        str(out / "out%03d.jpg")], check=True)

    ours_s, ffmpeg_s = [], []
    frames = 0
    for _ in range(3):
        t = time.perf_counter()
        frames = ours()
        ours_s.append(time.perf_counter() - t)
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            ffmpeg(Path(out))
            ffmpeg_s.append(time.perf_counter() - t)
    project.close()
    a, b = statistics.median(ours_s), statistics.median(ffmpeg_s)
    print(f"fieldworkarena frames of a 60 s 1080p clip: {frames} frames in {a:.2f} s; ffmpeg fps=1 to JPEG "
          f"{b:.2f} s; ratio {a / b:.2f} (target <= 0.5)")
    return a / b <= 0.5


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ok = bench_frames(folder)
        ok = bench_queue(folder) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
