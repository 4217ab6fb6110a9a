"""The privacy gate's face detector (CenterFace on onnxruntime, issue 34 item 1): recall on faces marked by hand, and
its cost per frame.

Run with ``python benchmarks/bench_faces.py``. The faces: scikit-image's public-domain sample photos with a face (the
astronaut, the cameraman) and faces marked by hand in frames of the shared data's Intel sample videos (CC BY 4.0;
``tests/support/face_photos.py``). A marked face is found when a box of the detector covers its centre or its box
covers the detector's. Figures:

- recall at the gate's threshold (target 1.0 on these faces: every face the gate misses leaves the machine);
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
from tests.support.face_photos import (MARKED_FACES, SHARED_DATA_FACES, overlaps, sample_rgb,  # noqa: E402
                                       shared_data_frame)
from tests.support.shared_data import SHARED_DATA  # noqa: E402


def _marked() -> list[tuple[str, np.ndarray, list[tuple[int, int, int, int]]]]:
    out = [(f"skimage {name}", sample_rgb(name), boxes) for name, boxes in MARKED_FACES.items()]
    for (video, index), boxes in SHARED_DATA_FACES.items():
        path = SHARED_DATA / "media" / video
        if path.is_file():
            out.append((f"{Path(video).name} #{index}", shared_data_frame(path, index), boxes))
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
    found = total = 0
    for label, rgb, boxes in _marked():
        got = detector.detect(rgb)
        hits = sum(any(overlaps(b.as_list()[:4], m) for b in got) for m in boxes)
        found, total = found + hits, total + len(boxes)
        print(f"  {label}: {hits}/{len(boxes)} marked faces found, {len(got)} box(es), scores "
              + ", ".join(f"{b.score:.2f}" for b in got))
    for name in ("coffee", "chelsea", "rocket"):
        print(f"  skimage {name} (no people): {len(detector.detect(sample_rgb(name)))} box(es)")
    frame = np.full((1080, 1920, 3), 120, np.uint8)
    frame[300:812, 700:1212] = sample_rgb("astronaut")
    per_1080p = median_seconds(lambda: blur_faces(frame, detector.detect(frame)), 3)
    from fieldstudio.media.images import fit_within

    gate_frame = fit_within(frame, 1024)
    per_gate = median_seconds(lambda: blur_faces(gate_frame, detector.detect(gate_frame)), 5)
    print(f"recall {found}/{total}; 1080p frame {per_1080p:.2f} s; {gate_frame.shape[1]}x{gate_frame.shape[0]} "
          f"frame {per_gate:.2f} s")
    targets.declare(f"face recall on {total} faces marked by hand", found / total, 1.0, better=targets.HIGHER,
                    reference="faces marked by hand", unit="", sizes_reduced=False)
    targets.declare("find and blur the faces of one 1080p frame", per_1080p, 2.5, better=targets.LOWER,
                    reference="absolute, median of 3", unit="s", sizes_reduced=False)
    targets.declare("the gate on one frame at 1024 px", per_gate, 0.75, better=targets.LOWER,
                    reference="absolute, median of 5", unit="s", sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
