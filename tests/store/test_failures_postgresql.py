"""A PostgreSQL server stopped in the middle of a command (issue 36 items 5, 6): the command ends with one line naming
the server and the reason, exit 2, no traceback; what was committed before is kept. The server is a throwaway
cluster of its own (tests/support/pg_cluster.py), stopped with ``pg_ctl stop -m immediate``."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time

import pytest

from tests.support import pg_cluster


@pytest.fixture
def own_cluster():
    bindir = pg_cluster.pg_bin()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb) on this machine")
    cluster = pg_cluster.Cluster(bindir)
    try:
        yield cluster
    finally:
        cluster.stop()


def test_the_server_stopped_during_an_import_is_one_line(own_cluster, tmp_path, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", own_cluster.password)
    url = pg_cluster.new_database_url(own_cluster.url)
    subprocess.run([sys.executable, "-m", "fieldstudio", "new", url], check=True, capture_output=True, timeout=120)
    tasks = [{"question_id": f"q{i}", "question": f"What is on shelf {i}?", "answer": "boxes",
              "episode_history": "hm3d-v0/000-hm3d-BFRyYbPCCPE", "category": "object recognition"}
             for i in range(100_000)]
    source = tmp_path / "open-eqa-big.json"
    source.write_text(json.dumps(tasks))
    child = subprocess.Popen([sys.executable, "-m", "fieldstudio", "tasks", "import", url, str(source)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # stop the server once the first batch is committed: the import is then under way (a batch is 2,000 of the
    # 100,000 tasks), whatever the machine's speed
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        with contextlib.suppress(psycopg.Error), psycopg.connect(plain, connect_timeout=5) as con:
            if con.execute("SELECT count(*) FROM task").fetchone()[0] > 0:
                break
        time.sleep(0.05)
    assert child.poll() is None, "the import ended before the server was stopped: the test would prove nothing"
    own_cluster._run("pg_ctl", "-D", str(own_cluster.data), "-m", "immediate", "-w", "stop")
    out, err = child.communicate(timeout=120)
    assert child.returncode == 2, out + err
    assert "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert len(err.strip().splitlines()) == 1 and last.startswith("error: postgresql+psycopg://")
    # where the command was when the server went: in a statement, or opening its next connection
    assert "the PostgreSQL server went away or cannot be reached" in last or ": cannot connect (" in last
    assert own_cluster.password not in last
