"""The window: cold start with 5,000 media, the exact frame after a playhead release.

Run with ``python benchmarks/bench_viewer.py [cold] [release]`` (both by default; offscreen Qt is used when no display is set). Each figure is
a ratio against a reference measured in the same run:

- cold start to a shown main window on a project of 5,000 media vs a bare QApplication showing an empty
  QMainWindow, both as fresh processes (median of 7 each, after one unmeasured start of each; target <= 2.0x,
  issue 37; it was 2.5x). "Shown" is the window painted with the project's name and the library's first
  screenful of rows: the end of the first paint of the library's list (of the bare window's QMainWindow), when the
  platform has exposed the window (``viewer_children._on_first_paint``). Until this round the figure stopped at
  the first zero-timer after ``show()``, which ran before that paint and before the work the window had queued
  meanwhile: the rest of the library's rows and the start of the open's worker came between it and the paint
  a user saw (measured so, main's window was 2.2x the bare one where the zero-timer said 1.9x). The time until
  every row is listed and until the project is open are printed too.
  Both start as an installed fieldstudio does, from compiled bytecode: ``PYTHONDONTWRITEBYTECODE`` is
  dropped for the children and their ``.pyc`` files go to ``_work/pycache`` (pip and the installers compile
  every module when installing; without it each start of a fresh clone compiles ~60 modules, ~45 ms that
  no user pays, while the bare window's PySide6 is compiled already)
- exact frame painted after a playhead release vs our own random access (``FrameReader.get`` of a lone reader) on
  the same 1080p clip and indices, each release beside its reference in the same process, the median of the
  per-position ratios (``paired_ratio``; the ratio of the medians is printed beside it) (target <= 1.2x, issue 37;
  it was 1.5x): twice, a release with nothing before it (the worst case: nothing decoded
  ahead), the release that ends a 160 ms drag at once, and the same drag held still for 300 ms before the
  release, as a user placing the playhead on a frame does (the frame under the playhead is decoded while it is
  held). Painted: the end of the pass that paints the canvas after ``frame_shown`` and flushes it to the screen,
  what a user sees (a high-priority event posted at that paint, as the cold start's "shown"; until the last round
  the figure stopped at ``frame_shown``, before the paint, and that time is printed beside it; until this round
  a zero-timer stopped it, after the work queued in the same turn of the event loop, which now holds the
  read-out the window updates after the picture's paint). Each release is also
  given against a second, user-visible reference: Go to frame (Ctrl+G) to a random frame in the same window,
  timed to the paint of that exact frame as a release is (the decode reference has no thread hand-off, picture or
  paint: it favours itself by 15-25 ms of paint at load 13)

Playback (frames shown against frames libVLC delivered) and the memory while playing are measured by
``bench_playback.py``. The child processes run ``viewer_children.py``, which imports nothing of the benchmarks'
own (their imports, ~20 ms quiet and 50-65 ms at load 9, were counted in both windows' start and made the ratio
look smaller than a user's); they print one JSON line.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import targets, work_folders  # noqa: E402

N_MEDIA = 5000
COLD_START_TARGET = 2.0
RELEASE_TARGET = 1.2
CHILDREN = Path(__file__).with_name("viewer_children.py")


# --- parent --------------------------------------------------------------------------------------
def _child(*args: str) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: see the module's docstring
    env["PYTHONPYCACHEPREFIX"] = str(work_folders.WORK / "pycache")
    env.setdefault("QT_QPA_PLATFORM", "offscreen" if not env.get("DISPLAY") else env.get("QT_QPA_PLATFORM", ""))
    if not env["QT_QPA_PLATFORM"]:
        env.pop("QT_QPA_PLATFORM")
    start = time.time()
    done = subprocess.run([sys.executable, str(CHILDREN), *args], env=env, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{done.stderr[-3000:]}")
    out = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    out["elapsed"] = out["shown"] - start if "shown" in out else None
    out["ready_elapsed"] = out["ready"] - start if "ready" in out else None
    out["listed_elapsed"] = out["listed"] - start if "listed" in out else None
    return out


def project_with_media(run: Path, n: int) -> Path:
    """A new project in ``run`` of ``n`` small distinct JPEGs (the images are made once)."""
    from fieldstudio.media import library
    from fieldstudio.store.project import Project

    folder = work_folders.random_jpegs(f"images_{n}_64x48", n, 48, 64, seed=3, stem="site")
    path = run / f"viewer_{n}.fieldstudio"
    with Project.create(path, name=f"{n} media") as p:
        report = library.add_paths(p, [folder])
    assert report.imported_total == n, report.imported_total
    return path


def project_with_1080p(run: Path) -> tuple[Path, Path]:
    """A new project in ``run`` holding the 60 s 1080p clip, indexed; returns (project, clip)."""
    from fieldstudio.media import library, video_index
    from fieldstudio.store.project import Project

    clip = work_folders.clip_60s_1080p()
    path = run / "viewer_1080p.fieldstudio"
    with Project.create(path, name="1080p") as p:
        report = library.add_paths(p, [clip])
        video_index.index_videos(p, report.media_ids)
    return path, clip


def bench_cold_start(run: Path) -> None:
    project = project_with_media(run, N_MEDIA)
    bare, ours, listed, ready = [], [], [], []
    _child("bare"), _child("window", str(project))  # unmeasured: bytecode compiled, files in the OS's cache
    for _ in range(7):
        bare.append(_child("bare")["elapsed"])
        out = _child("window", str(project))
        ours.append(out["elapsed"])
        ready.append(out["ready_elapsed"])
        listed.append(out["listed_elapsed"])
        assert out["rows"] == N_MEDIA and 0 < out["rows_shown"] <= N_MEDIA, out
    b, o, r = statistics.median(bare), statistics.median(ours), statistics.median(ready)
    print(f"cold start with {N_MEDIA} media: window shown with its library in {o:.2f} s (median of 7); "
          f"bare QMainWindow {b:.2f} s; ratio {o / b:.2f} (target <= {COLD_START_TARGET})")
    print(f"  every one of the {N_MEDIA} rows listed after {statistics.median(listed):.2f} s; project open and every "
          f"tool usable after {r:.2f} s (ratio {r / b:.2f}, for information)")
    targets.declare(f"cold start, window shown with {N_MEDIA:,} media (median of 7)", o / b, COLD_START_TARGET,
                    better=targets.LOWER, reference="bare QMainWindow shown", sizes_reduced=False)


def paired_ratio(measured: list[float], reference: list[float]) -> float:
    """Median over positions of ``measured[i] / reference[i]``: each pair was timed at one position, one after the
    other, under the same load.

    The ratio of the two medians, the figure until this round, mixed in how far each frame is from its keyframe
    (a decode of 1 to 60 frames, 10-120 ms at 1080p): with the machine's own swings (a decode varies 1.5x within a
    minute on two shared cores), two runs of the same code gave 1.09 and 1.23. A ratio per position cancels the
    position; both figures are printed."""
    return statistics.median(m / r for m, r in zip(measured, reference, strict=True))


def bench_release(run: Path) -> None:
    project, _clip = project_with_1080p(run)
    out = _child("release", str(project))
    ref = out["reference_s"]
    ram, goto = statistics.median(ref), statistics.median(out["goto_s"])
    n = len(ref)
    print(f"exact frame painted after Go to frame (the window's random access): median {goto * 1000:.1f} ms "
          f"(frame_shown after {statistics.median(out['goto_shown_s']) * 1000:.1f} ms); FrameReader.get "
          f"{ram * 1000:.1f} ms (interleaved); ratio {paired_ratio(out['goto_s'], ref):.2f} per position "
          f"({goto / ram:.2f} of the medians)")
    for key, what in (("release", "a playhead release with no drag before it"),
                      ("drag", "a 160 ms drag of the playhead, released at once"),
                      ("held", "a 160 ms drag of the playhead, held 300 ms, released")):
        times, shown = out[f"{key}_s"], out[f"{key}_shown_s"]
        painted = statistics.median(times)
        vs_ram, vs_goto = paired_ratio(times, ref), paired_ratio(times, out["goto_s"])
        print(f"exact frame painted after {what}: median {painted * 1000:.1f} ms (frame_shown after "
              f"{statistics.median(shown) * 1000:.1f} ms, ratio {paired_ratio(shown, ref):.2f}); decode reference "
              f"{ram * 1000:.1f} ms, ratio {vs_ram:.2f} per position ({painted / ram:.2f} of the medians); Go to "
              f"frame painted {goto * 1000:.1f} ms, ratio {vs_goto:.2f} per position ({painted / goto:.2f} of the "
              f"medians) (target <= {RELEASE_TARGET} for both)")
        # two references, named apart: the decode alone (no hand-off, picture or paint: it favours itself by the
        # paint, 15-25 ms at load) and what a user sees of a random jump (the same stopping point as the release)
        targets.declare(f"exact frame painted after {what}, 1080p, vs decode on the calling thread "
                        f"(median of {n} per-position ratios)", vs_ram, RELEASE_TARGET, better=targets.LOWER,
                        reference="decode reference: a lone FrameReader.get on the calling thread, interleaved",
                        sizes_reduced=False)
        targets.declare(f"exact frame painted after {what}, 1080p, vs Go to frame painted "
                        f"(median of {n} per-position ratios)", vs_goto, RELEASE_TARGET, better=targets.LOWER,
                        reference="window's random access: Go to frame (Ctrl+G) to the paint, interleaved",
                        sizes_reduced=False)


def main() -> None:
    parts = [a for a in sys.argv[1:] if not a.startswith("--")] or ["cold", "release"]  # e.g. ``bench_viewer.py release`` for one part
    run = work_folders.fresh_run_folder()
    if "cold" in parts:
        bench_cold_start(run)
    if "release" in parts:
        bench_release(run)
    targets.print_own_table()


if __name__ == "__main__":
    main()
