"""Entry point of the frozen fieldstudio (PyInstaller): the same command line as ``fieldstudio``.

``fieldstudio`` alone opens the window; ``fieldstudio P.fieldstudio`` opens a project (the file
association passes the path); ``fieldstudio self-test`` checks the installation. On Windows the windowed
``fieldstudio.exe`` has no console, so its missing stdout and stderr go to the null device (the log file
keeps what matters); ``fieldstudio-cli.exe`` is the same program with a console.
"""

import multiprocessing
import os
import sys


def _main() -> None:
    if sys.stdout is None or sys.stderr is None:  # windowed executable: no console attached
        sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
        sys.stdout = sys.stdout or sink
        sys.stderr = sys.stderr or sink
    multiprocessing.freeze_support()

    from fieldstudio.launch import main

    main()  # the window for `fieldstudio [P]`, the command line (self-test included) for everything else


if __name__ == "__main__":
    _main()
