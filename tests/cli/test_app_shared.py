"""The command line on a shared project (issue 22, item 1): `new`, `add`, `info` and `relink` take a PostgreSQL URL
where they take a project file, and never print a password."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy.engine import make_url

from tests.conftest import SAMPLE

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fieldstudio", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)


def test_new_add_info_on_a_postgresql_url(pg_url, tmp_path):
    done = cli("new", pg_url, "--name", "site survey")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"created {pg_url}"
    again = cli("new", pg_url)
    assert again.returncode == 2 and "already holds a fieldstudio project" in again.stderr
    added = cli("add", pg_url, str(SAMPLE / "images"))
    assert added.returncode == 0, added.stderr
    assert "imported 4 media (4 images" in added.stdout
    info = json.loads(cli("info", pg_url, "--json").stdout)
    assert (info["name"], info["path"], info["media"]["image"]) == ("site survey", pg_url, 4)
    from fieldstudio.store.schema_revisions import head_revision

    assert info["schema"] == head_revision()


def test_a_password_in_the_url_is_used_and_never_printed(pg_url):
    password = os.environ.get("PGPASSWORD")
    if not password:
        import pytest

        pytest.skip("the test server's password is not in PGPASSWORD")
    env = {k: v for k, v in os.environ.items() if k != "PGPASSWORD"}
    with_pw = make_url(pg_url).set(password=password).render_as_string(hide_password=False)
    done = cli("new", with_pw, env=env)
    assert done.returncode == 0, done.stderr
    assert password not in done.stdout + done.stderr
    wrong = make_url(pg_url).set(password="not-it").render_as_string(hide_password=False)
    failed = cli("info", wrong, env=env)
    assert failed.returncode == 2
    assert "cannot connect" in failed.stderr and "not-it" not in failed.stderr
    assert "password authentication failed" in failed.stderr
