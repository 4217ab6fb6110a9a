"""The privacy gate's face detector (CenterFace on onnxruntime, issue 34 item 1): recall on faces marked by hand, and
its cost per frame.

Run with ``python benchmarks/bench_faces.py``. The faces: scikit-image's public-domain sample photos with a face (the
astronaut, the cameraman), faces marked by hand in frames of the shared data's Intel store clip (CC BY 4.0) and in
FieldWorkArena's demo worksite photos (Apache-2.0), profiles and faces turned three quarters away included
(``tests/support/face_photos.py`` says what counts as a face). A marked face is found when a box of the detector
covers its centre or its box covers the detector's. Figures:

- recall at the gate's threshold (target 1.0 on these faces: every face the gate misses leaves the machine);
- precision: the share of the boxes found in those pictures that lie on a marked face (a box on a head seen from
  behind counts as wrong here: it blurs no face);
- for information: the heads seen from behind (face hidden) that a box covers;
- seconds to find and blur the faces of one 1080p frame (what ``fieldstudio redact`` does per frame of a 1080p video;
  target <= 2.5 s on this 2-core machine), median of 3;
- seconds per frame as the gate sees it (a frame resized to a profile's default longest side, 1024 px; target
  <= 0.75 s), median of 5;
- for information: the boxes found in photos without people (false alarms cost a blurred patch, not a leak).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import targets  # noqa: E402
from fieldstudio.privacy import faces  # noqa: E402
from fieldstudio.privacy.blur import blur_faces  # noqa: E402
from tests.support.face_photos import (HEADS_FROM_BEHIND, MARKED_FACES, RECALL_SET_FACES,  # noqa: E402
                                       SHARED_DATA_FACES, overlaps, sample_rgb, shared_data_picture)

Box = tuple[int, int, int, int]


def _marked() -> list[tuple[str, np.ndarray, list[Box], list[Box]]]:
    """(label, RGB, faces marked, heads from behind marked) of every picture of the recall set."""
    out = [(f"skimage {name}", sample_rgb(name), boxes, []) for name, boxes in MARKED_FACES.items()]
    pictures: dict[tuple[str, int], list[Box]] = {}
    for (video, index), boxes in SHARED_DATA_FACES.items():
        pictures.setdefault((f"media/{video}", index), []).extend(boxes)
    for key, boxes in RECALL_SET_FACES.items():
        pictures.setdefault(key, []).extend(boxes)
    for key in HEADS_FROM_BEHIND:
        pictures.setdefault(key, [])
    for (relative, index), boxes in sorted(pictures.items()):
        try:
            rgb = shared_data_picture(relative, index)
        except FileNotFoundError:
            print(f"  (no shared data: {relative} left out)")
            continue
        label = Path(relative).name + (f" #{index}" if index >= 0 else "")
        out.append((label, rgb, boxes, HEADS_FROM_BEHIND.get((relative, index), [])))
    return out


def median_seconds(action, passes: int) -> float:  # noqa: ANN001
    """The median of ``passes`` timings of ``action()``, in seconds (bench_people.py times its detector with it)."""
    times = []
    for _ in range(passes):
        t = time.perf_counter()
        action()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    detector = faces.FaceDetector()
    print(f"detector: {detector.version}, threshold {detector.threshold}")
    found = total = boxes_found = boxes_on_faces = backs_covered = backs = 0
    for label, rgb, boxes, behind in _marked():
        got = detector.detect(rgb)
        hits = sum(any(overlaps(b.as_list()[:4], m) for b in got) for m in boxes)
        found, total = found + hits, total + len(boxes)
        boxes_found += len(got)
        boxes_on_faces += sum(any(overlaps(b.as_list()[:4], m) for m in boxes) for b in got)
        backs += len(behind)
        backs_covered += sum(any(overlaps(b.as_list()[:4], m) for b in got) for m in behind)
        print(f"  {label}: {hits}/{len(boxes)} marked faces found"
              + (f", {len(behind)} head(s) from behind" if behind else "") + f", {len(got)} box(es), scores "
              + ", ".join(f"{b.score:.2f}" for b in got))
    precision = boxes_on_faces / boxes_found if boxes_found else 1.0
    print(f"recall {found}/{total} = {found / total:.3f}; precision {boxes_on_faces}/{boxes_found} = {precision:.3f}; "
          f"heads seen from behind covered by a box: {backs_covered}/{backs}")
    for name in ("coffee", "chelsea", "rocket"):
        print(f"  skimage {name} (no people): {len(detector.detect(sample_rgb(name)))} box(es)")
    frame = np.full((1080, 1920, 3), 120, np.uint8)
    frame[300:812, 700:1212] = sample_rgb("astronaut")
    per_1080p = median_seconds(lambda: blur_faces(frame, detector.detect(frame)), 3)
    from fieldstudio.media.images import fit_within

    gate_frame = fit_within(frame, 1024)
    per_gate = median_seconds(lambda: blur_faces(gate_frame, detector.detect(gate_frame)), 5)
    print(f"1080p frame {per_1080p:.2f} s; {gate_frame.shape[1]}x{gate_frame.shape[0]} "
          f"frame {per_gate:.2f} s")
    targets.declare(f"face recall on {total} faces marked by hand", found / total, 1.0, better=targets.HIGHER,
                    reference="faces marked by hand", unit="", sizes_reduced=False)
    targets.declare(f"face precision ({boxes_found} boxes in the marked pictures)", precision, 0.9,
                    better=targets.HIGHER, reference="boxes on a marked face", unit="", sizes_reduced=False)
    targets.declare("find and blur the faces of one 1080p frame", per_1080p, 2.5, better=targets.LOWER,
                    reference="absolute, median of 3", unit="s", sizes_reduced=False)
    targets.declare("the gate on one frame at 1024 px", per_gate, 0.75, better=targets.LOWER,
                    reference="absolute, median of 5", unit="s", sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
