"""Acceptability measures of a 12-megapixel photo against OpenCV decoding it.

Every measure of a 12-megapixel photo with a target box against the time OpenCV needs to decode that
photo, in the same run (target <= 2x; issue 10). Run with ``python benchmarks/bench_acceptability.py``.
The photo is made once in benchmarks/_work/inputs: a sample photo of ``sample_data/`` scaled up to
4000 x 3000 with fine noise, saved as JPEG quality 92 (a phone photo's size).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import targets, work_folders  # noqa: E402
from fieldstudio.ratings.acceptability import measures as image_measures  # noqa: E402

PHOTO = ROOT / "sample_data" / "media" / "images" / "ppe_electricians_hardhat_vest_wire_room_mta.jpg"


def make_photo() -> Path:
    def make(out: Path) -> None:
        img = cv2.resize(cv2.imread(str(PHOTO)), (4000, 3000), interpolation=cv2.INTER_CUBIC)
        noise = np.random.default_rng(5).normal(0, 4, img.shape)
        img = np.clip(img + noise, 0, 255).astype(np.uint8)
        if not cv2.imwrite(str(out), img, [cv2.IMWRITE_JPEG_QUALITY, 92]):
            raise OSError(f"could not write {out}")

    return work_folders.made_once("photo_12mp.jpg", make)


def main() -> None:
    path = make_photo()
    decode, measure = [], []
    box = (1200.0, 600.0, 2600.0, 2700.0)
    others = [(1500.0, 650.0, 1900.0, 900.0), (2400.0, 2000.0, 3200.0, 2900.0)]
    for _ in range(5):
        t = time.perf_counter()
        bgr = cv2.imread(str(path))
        decode.append(time.perf_counter() - t)
        rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        t = time.perf_counter()
        values = image_measures.measure_all(rgb, box, others)
        measure.append(time.perf_counter() - t)
    d, m = statistics.median(decode), statistics.median(measure)
    print(f"measures of a {rgb.shape[1]}x{rgb.shape[0]} photo with a target box: median {m * 1000:.0f} ms; "
          f"OpenCV decode {d * 1000:.0f} ms; ratio {m / d:.2f} (target <= 2.0)")
    print("  " + ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items()))
    targets.declare("every acceptability measure of a 12 MP photo with a target box (median of 5)", m / d, 2.0,
                    better=targets.LOWER, reference="OpenCV decoding the photo", sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
