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


def fresh_python(*argv: str) -> tuple[float, float]:
    """(seconds, peak resident memory in MB) of ``python ARGV`` as a new process with this checkout's fieldstudio.

    Raises SystemExit with its error output if it fails."""
    # this checkout's fieldstudio, not one installed in the environment
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=env)
    stderr = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    if proc.returncode != 0:
        raise SystemExit(f"python {' '.join(argv)[:200]} failed:\n{stderr[-2000:]}")
    return elapsed, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux
