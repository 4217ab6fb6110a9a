"""The ``fieldstudio`` console entry point: open the window quickly, or hand over to the command line.

``fieldstudio``, ``fieldstudio P.fieldstudio`` and ``fieldstudio open [P]`` start the window without
importing the command line's modules (typer, the importers, the model client, the scorers), which would
add seconds to a cold start; every other invocation goes to :func:`fieldstudio.cli.app.main`.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

PROJECT_SUFFIX = ".fieldstudio"  # the same as fieldstudio.store.project.PROJECT_SUFFIX (tested)


def window_target(args: list[str]) -> tuple[bool, Path | None]:
    """(True, project or None) when ``args`` ask only to open the window, else (False, None)."""
    if not args:
        return True, None
    if len(args) == 1 and args[0].endswith(PROJECT_SUFFIX) and not args[0].startswith("-"):
        return True, Path(args[0])
    if args[0] == "open" and len(args) <= 2 and not any(a.startswith("-") for a in args[1:]):
        return True, Path(args[1]) if len(args) == 2 else None
    return False, None


def main(argv: list[str] | None = None) -> None:
    """Run fieldstudio with ``argv`` (default ``sys.argv[1:]``); exits with the window's or command's code."""
    args = list(sys.argv[1:] if argv is None else argv)
    gui, project = window_target(args)
    if gui:
        # the window's imports make ~70 garbage collections (7 ms, more on a loaded machine) of objects that all
        # live on; run_gui turns collection back on once the window is on screen
        gc.disable()
        try:
            from fieldstudio.gui.app import run_gui
        except ImportError:
            gc.enable()  # a build without the window: the command line explains
        else:
            sys.exit(run_gui(project))
    from fieldstudio.cli.app import main as cli_main

    cli_main(args)
