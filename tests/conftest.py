"""Shared fixtures: generated barcode clips, a fresh project, isolated user folders, the fake model server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.fake_batch_api import fake_batch_api  # noqa: F401
from tests.support.fake_openai import fake_openai  # noqa: F401
from tests.support.video_fixtures import make_all

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.support.shared_data import SHARED_DATA as SHARED  # noqa: E402
SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "media"


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("FIELDSTUDIO_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("FIELDSTUDIO_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("FIELDSTUDIO_LOG_DIR", str(base / "log"))


@pytest.fixture(scope="session")
def clips(tmp_path_factory) -> dict[str, Path]:
    """Barcoded clips made with the ffmpeg CLI: vfr, cfr_bframes, hevc, mpeg4_avi, mkv, webm, mov, ts, rot90/180/270."""
    return make_all(tmp_path_factory.mktemp("clips"))


BOTH_BACKENDS = {
    "tests.annotations.test_annotation_records", "tests.compare.test_comparison", "tests.core.test_calibration",
    "tests.core.test_media_roots", "tests.core.test_tracks", "tests.inference.test_queue",
    "tests.ratings.test_packages", "tests.ratings.test_rating_records", "tests.scoring.test_service",
    "tests.store.test_engine_backends", "tests.store.test_engine_two_writers", "tests.tasks.test_exporting",
    "tests.tasks.test_importing_answer_ids",
}
"""The store tests: their ``project`` fixture runs once on SQLite and once on PostgreSQL (issue 22)."""


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames and metafunc.module.__name__ in BOTH_BACKENDS:
        metafunc.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def backend(request) -> str:
    """The store back end of ``project``: "sqlite", or in the ``BOTH_BACKENDS`` modules each of both."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def project(tmp_path, backend, request):
    from fieldstudio.store.project import Project

    ref = tmp_path / "test.fieldstudio" if backend == "sqlite" else request.getfixturevalue("pg_url")
    p = Project.create(ref)
    yield p
    p.close()


# -- PostgreSQL (issue 22) ---------------------------------------------------------------------------
@pytest.fixture(scope="session")
def pg_server() -> str:
    """The URL of a PostgreSQL server for test databases (tests/support/pg_cluster.py); skips when there is none."""
    from tests.support import pg_cluster

    url = pg_cluster.server_url()
    if url is None:
        pytest.skip(pg_cluster.why_not())
    return url


@pytest.fixture
def pg_url(pg_server):
    """A URL naming a fresh database (not made yet: ``Project.create`` makes it); dropped after the test."""
    from tests.support import pg_cluster

    url = pg_cluster.new_database_url(pg_server)
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture
def backend_ref(backend, tmp_path, request):
    """Where a new project goes on ``backend``: a ``.fieldstudio`` path or a fresh PostgreSQL URL."""
    return tmp_path / "test.fieldstudio" if backend == "sqlite" else request.getfixturevalue("pg_url")


@pytest.fixture
def any_n_intervals(monkeypatch):
    """Intervals for every n: tests of the interval arithmetic on a handful of tasks, below the 10 scored
    from which fieldstudio shows an interval (that rule, ``compare.coverage.MIN_INTERVAL_N``, has its own
    tests in tests/compare/test_coverage.py)."""
    from fieldstudio.compare import coverage

    monkeypatch.setattr(coverage, "MIN_INTERVAL_N", 1)
