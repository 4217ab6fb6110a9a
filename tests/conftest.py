"""Shared fixtures: generated barcode clips, a fresh project, isolated user folders, the fake model server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fake_batch_api import fake_batch_api  # noqa: F401
from tests.fake_openai import fake_openai  # noqa: F401
from tests.video_fixtures import make_all

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.shared_data import SHARED_DATA as SHARED  # noqa: E402
SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "media"


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("FIELDSTUDIO_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("FIELDSTUDIO_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("FIELDSTUDIO_LOG_DIR", str(base / "log"))


@pytest.fixture(scope="session")
def clips(tmp_path_factory) -> dict[str, Path]:
    """Barcoded clips made with the ffmpeg CLI: vfr, cfr_bframes, hevc, mpeg4_avi, mkv, webm, mov, rot90/180/270."""
    return make_all(tmp_path_factory.mktemp("clips"))


@pytest.fixture
def project(tmp_path):
    from fieldstudio.store.project import Project

    p = Project.create(tmp_path / "test.fieldstudio")
    yield p
    p.close()


@pytest.fixture
def any_n_intervals(monkeypatch):
    """Intervals for every n: tests of the interval arithmetic on a handful of tasks, below the 10 scored
    from which fieldstudio shows an interval (that rule, ``compare.coverage.MIN_INTERVAL_N``, has its own
    tests in tests/test_coverage.py)."""
    from fieldstudio.compare import coverage

    monkeypatch.setattr(coverage, "MIN_INTERVAL_N", 1)
