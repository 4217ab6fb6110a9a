"""Fixtures of the window's tests (tests/gui/): the main window on the viewer test project or on an empty one.

The helpers these build on (opening media, waiting for the decoder, reading the pixels shown) are in
tests/support/gui_support.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gui_support import blank_window, build_viewer_project, shown_window


@pytest.fixture(scope="module")
def viewer_template(clips, tmp_path_factory) -> Path:
    """The viewer test project (``build_viewer_project``: the sample media and three barcode clips, indexed),
    built once per test module; ``window`` opens a copy."""
    return build_viewer_project(tmp_path_factory.mktemp("viewer") / "viewer.fieldstudio", clips)


@pytest.fixture
def window(qtbot, viewer_template, tmp_path):
    """The main window on a copy of the viewer test project, shown at 1280 x 800 (``shown_window``)."""
    w = shown_window(qtbot, viewer_template, tmp_path)
    yield w
    w.close()


@pytest.fixture
def empty_window(qtbot, tmp_path):
    """The main window, shown, on a new empty project ``tmp_path / "p.fieldstudio"`` (``blank_window``)."""
    return blank_window(qtbot, tmp_path / "p.fieldstudio")


@pytest.fixture
def demo_window(qtbot, demo_file, tmp_path):
    """The main window on a copy of the demo project (media, tasks, runs, scores, a rating set, labels with keys,
    a floor calibration), shown at 1280 x 800 (``shown_window``)."""
    w = shown_window(qtbot, demo_file, tmp_path)
    yield w
    w.close()
