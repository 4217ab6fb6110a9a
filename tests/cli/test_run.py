"""`fieldstudio run` and `fieldstudio answers` through a fresh typer app, against the fake server."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from fieldstudio.inference import profiles
from fieldstudio.store.project import Project
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_task, fake_profile

PLANTED_KEY = "sk-planted-7f3a9c1e5b2d4f6a8c0e"


@pytest.fixture
def project_file(tmp_path):
    path = tmp_path / "cli.fieldstudio"
    with Project.create(path) as p:
        for i in range(3):
            add_task(p, f"question {i}", external_id=f"1.1.000{i}", category="1.1", source="fieldworkarena")
        add_task(p, "other", external_id="2.1.0001", category="2.1", source="fieldworkarena")
    return path


def test_run_prints_a_summary_and_a_second_run_comes_from_the_cache(app, project_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.responder = lambda request: Reply(text="an answer", prompt_tokens=1000, completion_tokens=100)
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(project_file), "--model", "fake", "--category", "1.1"])
    assert result.exit_code == 0, result.output
    assert "strategy fieldworkarena, 3 task(s)" in result.output
    assert "3 answered, 0 failed, 0 from cache, 0 pending (of 3)" in result.output
    # 3 x (1000 x $2 + 100 x $8) / 1e6 = $0.0084
    assert "tokens: 3000 prompt, 300 completion (0 reasoning); cost $0.0084" in result.output
    again = runner.invoke(app, ["run", str(project_file), "--model", "fake", "--category", "1.1"])
    assert again.exit_code == 0, again.output
    assert "3 answered, 0 failed, 3 from cache" in again.output and "cost $0.0000" in again.output
    assert len(fake_openai.chat_requests()) == 3

    listing = runner.invoke(app, ["answers", str(project_file), "--json"])
    runs = json.loads(listing.output)
    assert [(r["answered"], r["from_cache"]) for r in runs] == [(3, 0), (3, 3)]
    answers = runner.invoke(app, ["answers", str(project_file), "--run", runs[0]["run"][:8], "--json"])
    items = json.loads(answers.output)
    assert [i["task"] for i in items] == ["1.1.0000", "1.1.0001", "1.1.0002"]
    assert {i["answer"] for i in items} == {"an answer"} and {i["prompt_tokens"] for i in items} == {1000}
    table = runner.invoke(app, ["answers", str(project_file), "--run", runs[0]["run"]])
    assert table.exit_code == 0 and "1.1.0002" in table.output


def test_run_limit_tasks_and_strategy_params(app, project_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.responder = lambda request: Reply(text='{"direct_answer": "Yes", "reasoning_answer": "Seen."}')
    result = CliRunner().invoke(app, ["run", str(project_file), "-m", "fake", "--tasks", "1.1.0001,2.1.0001",
                                      "--strategy", "industryeqa", "--param", "frames=4", "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert "1 task(s)" in result.output and "1 answered" in result.output
    assert "Question: question 1" in json.dumps(fake_openai.chat_requests()[0].body)


def test_run_resumes_an_unfinished_run(app, project_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    with Project.open(project_file) as p:
        from fieldstudio.inference.runs import queue as run_queue

        ids = run_queue.select_tasks(p)
        run_id = run_queue.create_run(p, profiles.get_profile("fake"), ids, "fieldworkarena")
        run_queue.execute_run(p, run_id, cancelled=lambda: len(fake_openai.chat_requests()) >= 1)
    result = CliRunner().invoke(app, ["run", str(project_file), "-m", "fake"])
    assert result.exit_code == 0, result.output
    assert f"resuming run {run_id[:8]}: 1 of 4 finished" in result.output
    assert "4 answered" in result.output and len(fake_openai.chat_requests()) == 4


def test_unknown_profile_and_no_matching_task(app, project_file, fake_openai):
    result = CliRunner().invoke(app, ["run", str(project_file), "-m", "nope"])
    assert result.exit_code == 2 and "No model profile called 'nope'" in result.output
    profiles.add_profile(fake_profile(fake_openai))
    result = CliRunner().invoke(app, ["run", str(project_file), "-m", "fake", "--category", "9"])
    assert result.exit_code == 1 and "no task matches" in result.output


def test_planted_key_never_reaches_the_project_or_the_output(app, project_file, fake_openai, monkeypatch, tmp_path,
                                                             caplog, memory_keyring):
    """The key is sent to the server (the run works) but is in no byte of the project file, the output or the log."""
    monkeypatch.setenv("FS_PLANTED_KEY", PLANTED_KEY)
    fake_openai.require_key = PLANTED_KEY
    creds_url = fake_openai.base_url.replace("http://", "http://user:hunter2secret@")
    profiles.add_profile(fake_profile(fake_openai, api_key_env="FS_PLANTED_KEY"))
    profiles.add_profile(fake_profile(fake_openai, name="creds", base_url=creds_url))
    caplog.set_level("DEBUG")
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(project_file), "-m", "fake"])
    assert result.exit_code == 0, result.output
    assert "4 answered" in result.output
    fake_openai.require_key = None
    creds = runner.invoke(app, ["run", str(project_file), "-m", "creds"])
    listing = runner.invoke(app, ["answers", str(project_file)])
    with Project.open(project_file) as p:
        p.close()
    data = b"".join(f.read_bytes() for f in tmp_path.glob("cli.fieldstudio*"))
    for secret in (PLANTED_KEY, "hunter2secret"):
        assert secret.encode() not in data
        assert secret not in result.output + creds.output + listing.output + caplog.text
    assert re.search(r"\*\*\*@127\.0\.0\.1", data.decode("utf-8", "ignore"))


# ---------------------------------------------------------------- cost unknown, every answer failed (issue 23, 7c 7d)
def test_cost_is_unknown_when_no_answer_reported_usage(app, project_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.responder = lambda request: Reply(text="an answer", usage=False)
    result = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake", "--category", "1.1"])
    assert result.exit_code == 0, result.output
    assert "3 answered, 0 failed" in result.output
    assert "cost unknown (0 of 3 answers priced)" in result.output
    assert "$0.0000" not in result.output and "partial" not in result.output
    listing = CliRunner().invoke(app, ["answers", str(project_file), "--json"])
    assert [r["cost_status"] for r in json.loads(listing.output)] == ["unknown"]


def test_cost_is_partial_when_some_answers_reported_usage(app, project_file, fake_openai):
    """One answer reports 1000 in / 100 out at $2 / $8 per million: $0.0028 known, two unknown."""
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.queue(Reply(text="a", prompt_tokens=1000, completion_tokens=100))
    fake_openai.responder = lambda request: Reply(text="b", usage=False)
    result = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake", "--category", "1.1", "--concurrency", "1"])
    assert result.exit_code == 0, result.output
    assert "cost ≥ $0.0028 (1 of 3 answers priced)" in result.output


def test_run_exits_1_when_every_answer_failed(app, project_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.responder = lambda request: Reply(status=500, error_message="model crashed")
    result = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake", "--category", "1.1"])
    assert "0 answered, 3 failed" in result.output
    assert result.exit_code == 1, result.output
    # one answer that works is enough for 0
    fake_openai.responder = lambda request: Reply(text="fine")
    again = CliRunner().invoke(app, ["run", str(project_file), "--model", "fake", "--category", "1.1", "--new", "--limit", "1"])
    assert "1 answered, 0 failed" in again.output and again.exit_code == 0, again.output
