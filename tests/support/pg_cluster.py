"""A throwaway PostgreSQL cluster for the tests and benchmarks (issue 22).

``server_url()`` gives the URL of a server to make test databases on: ``$FIELDSTUDIO_TEST_PG_URL`` when set
(CI or a developer's own server; the user must be allowed to create databases), else a cluster this module
starts itself from Debian's PostgreSQL binaries (``/usr/lib/postgresql/<major>/bin``): ``initdb`` in a
temporary folder, a free port on 127.0.0.1, password login over TCP (the password reaches libpq through
``PGPASSWORD``, never through a URL). PostgreSQL refuses to run as root, so under root the cluster runs as the
unprivileged user ``nobody`` and its folder is given to that user. None when neither is available: the
PostgreSQL tests then skip, saying why.
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

ENV_URL = "FIELDSTUDIO_TEST_PG_URL"
SUPERUSER = "fieldstudio"
RUN_AS = "nobody"


def pg_bin() -> Path | None:
    """The folder of the newest Debian PostgreSQL server binaries, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A running throwaway cluster; ``url`` names its ``postgres`` database (no password in it). ``durable``
    keeps PostgreSQL's default fsync settings (benchmarks); the tests' cluster skips fsync."""

    def __init__(self, bindir: Path, *, durable: bool = False) -> None:
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="fieldstudio-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.password = secrets.token_hex(12)
        self.url = f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/postgres"
        self._user = RUN_AS if os.geteuid() == 0 else None
        if self._user:
            entry = pwd.getpwnam(self._user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        pwfile = self.folder / "pw"
        pwfile.write_text(self.password + "\n")
        if self._user:
            os.chown(pwfile, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--pwfile", str(pwfile), "-A", "scram-sha-256",
                  "--auth-local=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        pwfile.unlink()
        # tests: no fsync (a throwaway cluster); benchmarks (durable): the server's own defaults
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c shared_buffers=32MB "
                   "-c max_connections=120" + ("" if durable else " -c fsync=off -c full_page_writes=off"))
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "-t", "60",
                  "start")
        atexit.register(self.stop)

    def _run(self, tool: str, *args: str) -> None:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.folder)}
        done = subprocess.run([str(self.bindir / tool), *args], user=self._user, env=env, cwd=self.folder,
                              capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr or done.stdout}")

    def stop(self) -> None:
        """Stop the server and delete its folder (safe to call twice)."""
        if self.data.exists():
            try:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.folder, ignore_errors=True)


_cluster: Cluster | None = None
_why_not = ""


def server_url() -> str | None:
    """The URL of a server to make test databases on (see module doc), or None (``why_not()`` says why)."""
    global _cluster, _why_not
    if os.environ.get(ENV_URL):
        return os.environ[ENV_URL]
    if _cluster is None and not _why_not:
        bindir = pg_bin()
        if bindir is None:
            _why_not = f"no PostgreSQL server: {ENV_URL} is not set and no initdb was found (apt-get install postgresql)"
            return None
        try:
            _cluster = Cluster(bindir)
        except (RuntimeError, OSError, KeyError, subprocess.TimeoutExpired) as exc:
            _why_not = f"the throwaway PostgreSQL cluster did not start: {exc}"
            return None
        os.environ["PGPASSWORD"] = _cluster.password  # libpq reads it; child processes inherit it
    return _cluster.url if _cluster else None


def why_not() -> str:
    """Why ``server_url()`` gave None."""
    return _why_not


def new_database_url(base: str) -> str:
    """A URL naming a database that does not exist yet on the server of ``base`` (Project.create makes it)."""
    from sqlalchemy.engine import make_url

    url = make_url(base).set(database=f"fs_test_{uuid.uuid4().hex[:12]}")
    return url.render_as_string(hide_password=False)


def drop_database(url: str) -> None:
    """Drop the database ``url`` names, ending its other sessions first."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from fieldstudio.store.engine import release_pg_engines

    u = make_url(url)
    release_pg_engines(u)
    admin = create_engine(u.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :d "
                              "AND pid <> pg_backend_pid()"), {"d": u.database})
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{u.database}"')
    finally:
        admin.dispose()
