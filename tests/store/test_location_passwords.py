"""Where a shared project's password comes from (issue 22, item 1): ``~/.pgpass`` (libpq), the OS keyring, a URL
typed in this process; never from or into the project list, messages or logs."""

from __future__ import annotations

import os

import keyring
import pytest
from sqlalchemy.engine import make_url

from fieldstudio.core.errors import ProjectError
from fieldstudio.store import location
from fieldstudio.store.project import Project
from tests.support.memory_keyring import MemoryKeyring


@pytest.fixture
def no_env_password(pg_url):
    """PGPASSWORD taken away for the test (put back after, before the database is dropped)."""
    password = os.environ.pop("PGPASSWORD", None)
    if password is None:
        pytest.skip("the test server's password is not in PGPASSWORD")
    saved_sessions = dict(location._session_passwords)
    location._session_passwords.clear()
    yield password
    location._session_passwords.clear()
    location._session_passwords.update(saved_sessions)
    os.environ["PGPASSWORD"] = password


def test_without_any_password_the_login_fails_with_a_clear_message(pg_url, no_env_password, tmp_path, monkeypatch):
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    with pytest.raises(ProjectError, match="cannot (connect|make the database)") as caught:
        Project.create(pg_url)
    assert no_env_password not in str(caught.value)


def test_password_from_pgpass(pg_url, no_env_password, tmp_path, monkeypatch):
    url = make_url(pg_url)
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"{url.host}:{url.port}:*:{url.username}:{no_env_password}\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))        # libpq's ~/.pgpass, moved for the test
    with Project.create(pg_url, name="pgpass") as p:
        assert p.name == "pgpass" and str(p.path) == pg_url


def test_password_from_the_keyring_and_never_shown(pg_url, no_env_password, tmp_path, monkeypatch):
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    ring = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(ring)
    try:
        url = make_url(pg_url)
        ring.set_password(location.KEYRING_SERVICE, location.keyring_user(url), no_env_password)
        with Project.create(pg_url, name="ring") as p:
            assert p.name == "ring"
            assert no_env_password not in str(p.path) and no_env_password not in p.location
    finally:
        keyring.set_keyring(previous)


def test_urls_are_masked_in_text():
    text = "could not open postgresql+psycopg://anna:s3cr%40t@db.site:5432/survey (timeout)"
    assert location.mask_in_text(text) == "could not open postgresql+psycopg://anna:***@db.site:5432/survey (timeout)"
    assert location.public_url("postgresql://anna:pw@db/survey") == "postgresql+psycopg://anna@db/survey"
    assert location.is_database_url("postgres://a@b/c") and not location.is_database_url("site.fieldstudio")
    with pytest.raises(ProjectError, match="names no database"):
        location.parse_url("postgresql+psycopg://anna:pw@db")


def test_the_log_file_masks_database_passwords():
    import logging

    from fieldstudio.logs import close_logging, log_path, setup_logging

    close_logging()             # an earlier test may have left the handler on another test's log folder
    setup_logging()
    try:
        logging.getLogger("fieldstudio.test").warning("cannot reach postgresql+psycopg://anna:hunter2@db/survey")
    finally:
        close_logging()
    text = log_path().read_text(encoding="utf-8")
    assert "postgresql+psycopg://anna:***@db/survey" in text and "hunter2" not in text
