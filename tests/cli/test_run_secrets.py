"""A server that echoes the credentials it received (a password and a key in the base URL, sent as HTTP Basic
and in the query string; a bearer key from an environment variable) leaks them nowhere fieldstudio writes or
prints: not the profile file, the project (answers' errors, scores' explanations), the CLI's output, the log
file (httpx's request lines included) or any report format."""

from __future__ import annotations

import base64
import logging

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from fieldstudio import logs
from fieldstudio.inference import profiles
from fieldstudio.store.models import Answer, Score
from fieldstudio.store.project import Project
from tests.support.scoring_fixtures import add_run, add_task

PASSWORD = "Url-Pass-5150"
QUERY_KEY = "QK-query-777x"
ENV_KEY = "sk-echoed-3c5e7a9b1d2f4a6c"
SECRETS = (PASSWORD, QUERY_KEY, ENV_KEY, base64.b64encode(f"fsuser:{PASSWORD}".encode()).decode())


@pytest.fixture
def logged(config_dir):
    logs.close_logging()
    logs.setup_logging(logging.DEBUG)
    try:
        yield logs.log_path()
    finally:
        logs.close_logging()


def test_echoed_credentials_are_masked_everywhere(app, tmp_path, hostile_openai, memory_keyring, monkeypatch,
                                                  config_dir, logged):
    monkeypatch.setenv("FS_ECHO_KEY", ENV_KEY)
    hostile_openai.behaviour = "echo"
    url = hostile_openai.base_url.replace("http://", f"http://fsuser:{PASSWORD}@") + f"?key={QUERY_KEY}"
    profiles.add_profile(profiles.ModelProfile(name="basic", base_url=url, model="m", retries=0))
    profiles.add_profile(profiles.ModelProfile(name="bearer", base_url=hostile_openai.base_url, model="m",
                                               retries=0, api_key_env="FS_ECHO_KEY"))
    path = tmp_path / "echo.fieldstudio"
    with Project.create(path) as p:
        tasks = [add_task(p, f"2.1.000{i}", f"The worker carries box {i}", eval_func="fuzzy_match") for i in range(2)]
        add_run(p, "m", {t: f"box {i} is carried" for i, t in enumerate(tasks)})
    runner = CliRunner()
    outputs = [runner.invoke(app, ["run", str(path), "-m", name]) for name in ("basic", "bearer")]
    outputs += [runner.invoke(app, ["score", str(path), "--scorer", "fwa-logic+fs-prompt", "--judge", name])
                for name in ("bearer", "basic")]    # the second replaces the first's scores: Basic's are kept
    received = [r.headers.get("authorization", "") for r in hostile_openai.chat_requests()]
    assert any(h.startswith("Basic ") for h in received) and f"Bearer {ENV_KEY}" in received   # were sent
    with Project.open(path) as p, p.read() as session:          # the echoes were kept, masked
        errors = sorted(session.scalars(select(Answer.error).where(Answer.error.is_not(None))))
        explanations = list(session.scalars(select(Score.explanation).where(Score.explanation.like("%judge failed%"))))
    assert "bad credentials Basic *** for /v1/chat/completions?key=***" in errors[0]
    assert "bad credentials Bearer *** for /v1/chat/completions" in errors[-1]
    assert len(explanations) == 2 and all("bad credentials Basic *** for /v1/chat/completions?key=***" in e
                                          for e in explanations)
    reports = []
    for suffix in ("csv", "json", "html", "xlsx"):
        out = tmp_path / f"report.{suffix}"
        outputs.append(runner.invoke(app, ["report", str(path), "--out", str(out)]))
        assert outputs[-1].exit_code == 0, outputs[-1].output
        reports.append(out)
    printed = "".join(r.output for r in outputs)
    outputs.append(runner.invoke(app, ["answers", str(path)]))
    printed = "".join(r.output for r in outputs)
    logging.getLogger().handlers[-1].flush()
    log_text = logged.read_text(encoding="utf-8")
    assert "HTTP Request: POST" in log_text and "key=***" in log_text       # httpx's request lines, masked
    project_bytes = b"".join(f.read_bytes() for f in tmp_path.glob("echo.fieldstudio*"))
    profile_file = (config_dir / "model_profiles.json").read_bytes()
    for secret in SECRETS:
        assert secret not in printed, secret
        assert secret not in log_text, secret
        for blob in (project_bytes, profile_file, *(r.read_bytes() for r in reports)):
            assert secret.encode() not in blob, secret
    import zipfile
    with zipfile.ZipFile(tmp_path / "report.xlsx") as xlsx:               # the XLSX's text is compressed
        for name in xlsx.namelist():
            assert not any(s.encode() in xlsx.read(name) for s in SECRETS)
