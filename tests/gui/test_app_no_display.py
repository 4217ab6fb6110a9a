"""A window command without a usable display (issue 19 item 5) exits 2 with one line on stderr naming
what is missing and what to do, instead of Qt's "Aborted" (exit 134); the reason comes from Qt's own
platform-plugin messages."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time

import pytest


def _free_display() -> str:
    """An X display number with no server (no socket, no lock file)."""
    for n in range(97, 200):
        if not os.path.exists(f"/tmp/.X11-unix/X{n}") and not os.path.exists(f"/tmp/.X{n}-lock"):
            return f":{n}"
    pytest.skip("every X display number from :97 to :199 is in use")


@pytest.mark.parametrize("case", ["no server", "bogus plugin", "unset"])
def test_window_without_a_usable_display_exits_2_with_one_line(demo_path, case):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    display = _free_display()
    if case == "no server":
        env["DISPLAY"] = display
    elif case == "bogus plugin":
        env["QT_QPA_PLATFORM"] = "bogus"
    start = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "fieldstudio", "demo", "--out", str(demo_path)], capture_output=True,
                         text=True, env=env, timeout=60)
    took = time.monotonic() - start
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, res.stderr[-1000:]
    assert took < 10, f"took {took:.1f} s"
    assert len(lines) == 1, res.stderr
    line = lines[0]
    assert line.startswith("error: cannot open the window: ") and "Aborted" not in res.stderr
    named = {"no server": f"could not connect to display {display}", "bogus plugin": 'platform plugin "bogus"',
             "unset": "neither DISPLAY nor WAYLAND_DISPLAY is set"}[case]
    assert named in line
    assert f"`xvfb-run fieldstudio demo --out {demo_path}`" in line and "--no-gui" in line
    # Qt's xcb plugin mentions xcb-cursor on every failure; the line names the library only when it is missing
    try:
        ctypes.CDLL("libxcb-cursor.so.0")
        missing = False
    except OSError:
        missing = True
    assert ("libxcb-cursor0" in line) == (case == "no server" and missing)
