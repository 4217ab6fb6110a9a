"""High-DPI: pointer positions and drawn boxes are image pixels, and 1:1 is one image pixel per physical pixel,
at DPR 1, 1.5 and 2.

Each ratio needs its own QApplication (Qt reads QT_SCALE_FACTOR once), so tests/support/dpr_probe.py runs the real
main window in a subprocess and reports what the status bar said.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "sample_data" / "media" / "images" / "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"


@pytest.mark.parametrize("ratio", [1.0, 1.5, 2.0])
def test_pointer_and_one_to_one_at_device_pixel_ratio(ratio, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_SCALE_FACTOR=str(ratio), FIELDSTUDIO_NO_VLC="1")
    probe = ROOT / "tests" / "support" / "dpr_probe.py"
    done = subprocess.run([sys.executable, str(probe), str(tmp_path / "p.fieldstudio"), str(PHOTO)],
                          env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["dpr"] == pytest.approx(ratio)
    # the viewport's backing store has ratio x as many physical pixels
    for got, logical in zip(out["grab_size"], out["viewport_size"]):
        assert abs(got - logical * ratio) <= 1  # a fractional size (x.5 at DPR 1.5) is rounded either way
    for zoom_text, seen in out["zooms"].items():
        zoom = float(zoom_text)
        per_logical_px = ratio / zoom  # image pixels under one device-independent pixel
        (x0, y0), (x1, y1) = seen["start"], seen["moved"]
        # mapFromScene rounds to whole device-independent pixels, and the label shows one decimal
        assert x0 == pytest.approx(100.0, abs=per_logical_px + 0.1)
        assert y0 == pytest.approx(80.0, abs=per_logical_px + 0.1)
        assert x1 - x0 == pytest.approx(40 * per_logical_px, abs=0.11)
        assert y1 - y0 == pytest.approx(20 * per_logical_px, abs=0.11)
        assert seen["label"] == f"zoom {zoom * 100:.0f} %"
    # a box dragged from image point (100, 80) to (180, 140) is stored there (one screen pixel = ratio/3 px)
    (box,) = out["box"]
    assert box == pytest.approx([100.0, 80.0, 180.0, 140.0], abs=ratio / 3.0 + 0.01)
    # at 1:1 the physical pixels shown are exactly the photo's pixels
    assert out["one_to_one_max_diff"] == 0
    # and stay so at 1:1 and 2:1 whatever the view's size and scroll (the canvas snaps to the pixel grid)
    for extra, zoom, ox, oy, diff in out["grid"]:
        assert ox == pytest.approx(round(ox), abs=1e-6) and oy == pytest.approx(round(oy), abs=1e-6), \
            (extra, zoom, ox, oy)
        if zoom == 1.0:   # at 2:1 the smooth pixmap transform blends neighbours: exact only at 1:1
            assert diff == 0, (extra, zoom, diff)
