"""The formats' own readers for the tests (issue 32 "Done when"): datumaro's CVAT importer and BORIS's own code.

They are pyproject.toml's ``readers`` extra, installed without their dependencies into a folder of their own (not the
project's environment): ``FIELDSTUDIO_TEST_READERS_DIR`` names it and is put at the END of ``sys.path``, so the
project's own numpy, pandas and OpenCV stay the ones imported. Without the folder a test that needs a reader is
skipped with the command that installs it, unless ``FIELDSTUDIO_TEST_READERS_REQUIRED`` is set (``.ci/run`` sets it),
when it fails instead.

BORIS loads libmpv when its ``utilities`` module is imported unless the command line asks for mpv's IPC mode
(``-i`` / ``--ipc``, BORIS's own switch); with no libmpv it exits. The import is done with ``--ipc`` in ``sys.argv``
(put back afterwards): nothing here plays media.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

import pytest

READERS_DIR_ENV = "FIELDSTUDIO_TEST_READERS_DIR"
REQUIRED_ENV = "FIELDSTUDIO_TEST_READERS_REQUIRED"
INSTALL = ("pip install --no-deps --ignore-requires-python --target DIR <pyproject.toml's readers extra>, "
           f"then {READERS_DIR_ENV}=DIR (.ci/run does it)")


def _reader(module: str) -> ModuleType:
    folder = os.environ.get(READERS_DIR_ENV)
    if folder and folder not in sys.path:
        # openpyxl chooses at its import whether to write through lxml and read through defusedxml, which the
        # folder brings: imported first, the rest of the session writes XLSX as the project's environment does
        import openpyxl  # noqa: F401
        sys.path.append(folder)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        message = f"{module} (the readers extra) does not import: {exc}; install: {INSTALL}"
        if os.environ.get(REQUIRED_ENV):
            pytest.fail(message)
        pytest.skip(message)


def datumaro_dataset() -> type:
    """datumaro's ``Dataset`` class (``Dataset.import_from(path, "cvat")`` runs its CVAT importer)."""
    return _reader("datumaro.components.dataset").Dataset


def boris(module: str) -> ModuleType:
    """BORIS's module ``boris.<module>`` (e.g. ``export_observation``), imported headless (see the module text)."""
    argv = sys.argv
    sys.argv = [*argv, "--ipc"]
    try:
        return _reader(f"boris.{module}")
    finally:
        sys.argv = argv
