"""Fixtures used by the tests of more than one package: isolated user folders, generated barcode clips, a fresh
project on either back end, the demo project, the fake model servers, a keyring in memory.

A fixture used by the tests of one package only lives in that package's conftest.py (tests/<package>/), one
used by one test file in that file; tests/architecture/test_fixtures.py checks that each name is defined once.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.fake_batch_api import fake_batch_api  # noqa: F401
from tests.support.fake_openai import fake_openai  # noqa: F401
from tests.support.hostile_openai import hostile_openai  # noqa: F401
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
    "tests.annotations.test_annotation_records", "tests.compare.test_answer_table_summary_columns",
    "tests.compare.test_comparison", "tests.core.test_calibration",
    "tests.core.test_media_roots", "tests.core.test_tracks", "tests.inference.test_answer_import_ids",
    "tests.inference.test_queue", "tests.ratings.test_packages", "tests.ratings.test_rating_records",
    "tests.scoring.test_currency", "tests.scoring.test_currency_records", "tests.scoring.test_service", "tests.store.test_bulk_insert",
    "tests.store.test_data_version", "tests.store.test_write_generation", "tests.store.test_engine_backends", "tests.store.test_engine_two_writers",
    "tests.tasks.test_exporting",
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
def media_project(project):
    """``project`` holding the hand-written test media of tests/support/annotation_fixtures.py (a photo and a
    30-frame video with a variable-rate frame table, no files needed)."""
    from tests.support.annotation_fixtures import add_test_media

    add_test_media(project)
    return project


# -- the demo project -------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def demo_file(tmp_path_factory) -> Path:
    """The demo project as ``fieldstudio demo`` builds it (``build_demo``), built once per session. Read it, copy
    it (``demo_path``), never write to it."""
    from fieldstudio.demo.project import build_demo

    path = tmp_path_factory.mktemp("demo") / "demo.fieldstudio"
    build_demo(path)
    return path


@pytest.fixture
def demo_path(demo_file, tmp_path) -> Path:
    """A fresh copy of the demo project: ``tmp_path / "demo.fieldstudio"``, for this test to change."""
    return Path(shutil.copyfile(demo_file, tmp_path / "demo.fieldstudio"))


@pytest.fixture
def demo_project(demo_path):
    """The demo project, open, on a fresh copy (``demo_path``)."""
    from fieldstudio.store.project import Project

    p = Project.open(demo_path)
    yield p
    p.close()


# -- published benchmark files ----------------------------------------------------------------------
@pytest.fixture
def fwa_project(tmp_path):
    """A project with FieldWorkArena's four demo photos, its demo tasks and the 80 tasks of category 2.1 (their
    media is not distributed): 84 tasks. Skips without the shared data."""
    from fieldstudio.media import library
    from fieldstudio.store.project import Project
    from fieldstudio.tasks.importing import import_tasks

    fwa = SHARED / "fieldworkarena"
    if not (fwa / "demo_images").is_dir():
        pytest.skip(f"shared data not found at {fwa}")
    p = Project.create(tmp_path / "fwa.fieldstudio")
    report = library.add_paths(p, [fwa / "demo_images"])
    assert not report.unreadable
    imported = import_tasks(p, [fwa / "tasks_v2" / "tasks_demo.json", fwa / "ground_truth" / "Tasks_2.1.json"])
    assert imported.created == 84
    yield p
    p.close()


@pytest.fixture
def standin_fwa(tmp_path):
    """Stand-in FieldWorkArena judge files (tests/support/official_standins.py, our own text) in a folder,
    registered as a known version for the test."""
    from fieldstudio.scoring.official import known
    from tests.support.official_standins import write_standin

    yield write_standin(tmp_path / "fwa-files", "fieldworkarena")
    known.clear_stand_ins()


# -- user settings and secrets ----------------------------------------------------------------------
@pytest.fixture
def config_dir(tmp_path, monkeypatch) -> Path:
    """A fresh configuration folder for the test (FIELDSTUDIO_CONFIG_DIR), not made yet."""
    folder = tmp_path / "config"
    monkeypatch.setenv("FIELDSTUDIO_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def no_keyring():
    """No usable keyring for the test (keyring's own failing backend): every read and write raises."""
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring():
    """A keyring in memory (tests/support/memory_keyring.py) in place of the OS keyring for the test."""
    import keyring

    from tests.support.memory_keyring import MemoryKeyring

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
