"""fieldstudio's commands timed as the benchmarks run them: through the CLI's entry point in this process (the
command's own work, without the interpreter's start-up and imports), or as a fresh process a user starts."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def in_process(*args: str) -> float:
    """Seconds ``fieldstudio ARGS`` takes through the CLI's entry point in this process (its output dropped).

    Raises SystemExit with the command's output if it fails."""
    from fieldstudio.cli import app as cli

    buf = io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            cli.main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
    elapsed = time.perf_counter() - t
    if code:
        raise SystemExit(f"fieldstudio {' '.join(args)} failed ({code}):\n{buf.getvalue()[-2000:]}")
    return elapsed


def fresh_process(*args: str) -> tuple[float, float]:
    """(seconds, peak resident memory in MB) of ``python -m fieldstudio ARGS`` as a new process.

    Raises SystemExit with its error output if it fails."""
    return fresh_python("-m", "fieldstudio", *args)


_LAUNCHER = ("import os, subprocess, sys, time\n"
             "t = time.perf_counter()\n"
             "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
             "_, status, usage = os.wait4(child.pid, 0)\n"
             "print(os.waitstatus_to_exitcode(status), time.perf_counter() - t, usage.ru_maxrss)\n")
"""Starts ARGV from a small process and prints its exit code, seconds and peak resident memory (KiB)."""


def fresh_python(*argv: str) -> tuple[float, float]:
    """(seconds, peak resident memory in MB) of ``python ARGV`` as a new process with this checkout's fieldstudio.

    The process is started by a small launcher process, not by this one: Linux carries the resident size of the
    process that starts another over into the new one's peak (``ru_maxrss``: exec records the old memory map's
    high-water mark), so a command started straight from a benchmark holding a few hundred MB of projects read
    as at least that big whatever it used itself.

    Raises SystemExit with its error output if it fails."""
    # this checkout's fieldstudio, not one installed in the environment
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", _LAUNCHER, sys.executable, *argv], capture_output=True, text=True,
                          env=env)
    try:
        code, elapsed, max_kib = proc.stdout.split()[-3:]
    except ValueError:
        raise SystemExit(f"python {' '.join(argv)[:200]} could not be started:\n{proc.stderr[-2000:]}") from None
    if int(code) != 0:
        raise SystemExit(f"python {' '.join(argv)[:200]} failed:\n{proc.stderr[-2000:]}")
    return float(elapsed), int(max_kib) / 1024  # ru_maxrss is in KiB on Linux
