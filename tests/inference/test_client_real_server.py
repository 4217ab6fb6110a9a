"""Integration with a real OpenAI-compatible server: llama.cpp serving SmolLM2-135M-Instruct
(tests/support/llama_server.py).

What is checked is what a fake server cannot show: the capability probe on a real text-only model, a blind
text-only run (IndustryEQA's blind baseline: the question without frames), the refusal of image tasks before
anything is sent, and `fieldstudio score --judge` on real FieldWorkArena answers: requests made, the cache
answering the second time, cost from the usage the server reported, and the judge's raw reply stored.
SmolLM2-135M is a weak judge: the tests check the plumbing and the bookkeeping, never its verdicts.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.inference import profiles
from fieldstudio.store.models import Answer, Run, Score, Task
from fieldstudio.store.project import Project
from tests.support.llama_server import llama_server  # noqa: F401
from tests.support.scoring_fixtures import add_run
from tests.support.shared_data import SHARED_DATA

pytestmark = pytest.mark.slow

PRICE_IN, PRICE_OUT = 0.5, 1.5       # USD per million tokens, made up: the test checks the arithmetic


def _cli(*args: str):
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result


def _add_profile(server) -> None:
    result = _cli("models", "add", "smol", "--preset", "llamacpp", "--base-url", server.base_url,
                  "--model", server.model, "--price-in", PRICE_IN, "--price-out", PRICE_OUT)
    assert result.exit_code == 0, result.output


def test_probe_blind_run_and_refused_image_tasks(llama_server, demo_path):  # noqa: F811
    _add_profile(llama_server)
    probe = _cli("models", "test", "smol")
    assert probe.exit_code == 0, probe.output
    assert "does NOT accept images" in probe.output
    assert profiles.get_profile("smol").capabilities.images_accepted is False

    with Project.open(demo_path) as p, p.read() as s:
        photo_tasks = [t.external_id for t in s.scalars(select(Task).order_by(Task.external_id))
                       if t.external_id.startswith("ppe-")][:3]
    assert len(photo_tasks) == 3

    # IndustryEQA's blind baseline: its JSON reply format. SmolLM2-135M rarely writes the JSON, and an answer
    # without it is kept with its text and recorded as IndustryEQA records it (a parse failure), not dropped.
    blind = _cli("run", demo_path, "--model", "smol", "--strategy", "blind", "--tasks", ",".join(photo_tasks),
                 "--param", "max_tokens=48")
    assert "3 task(s)" in blind.output, blind.output
    plain = _cli("run", demo_path, "--model", "smol", "--strategy", "blind-text", "--tasks",
                 ",".join(photo_tasks), "--param", "max_tokens=24")
    assert plain.exit_code == 0, plain.output
    with Project.open(demo_path) as p, p.read() as s:
        for strategy in ("blind", "blind-text"):
            (run,) = [r for r in s.scalars(select(Run).where(Run.strategy == strategy))
                      if "recorded" not in (r.params or {})]       # the demo's own recorded run aside
            answers = s.scalars(select(Answer).where(Answer.run_id == run.id)).all()
            assert len(answers) == 3
            for a in answers:
                assert a.raw_text and a.raw_text.strip()
                assert a.error is None or a.error.startswith("malformed_json"), a.error
                assert a.prompt_tokens and a.prompt_tokens > 10 and a.completion_tokens
                expected = (a.prompt_tokens * PRICE_IN + a.completion_tokens * PRICE_OUT) / 1e6
                assert a.cost_usd == pytest.approx(expected, rel=1e-9)
            if strategy == "blind-text":
                assert all(a.error is None for a in answers)

    seeing = _cli("run", demo_path, "--model", "smol", "--strategy", "fieldworkarena", "--tasks", photo_tasks[0],
                  "--new")
    assert seeing.exit_code == 1, seeing.output
    with Project.open(demo_path) as p, p.read() as s:
        refused = s.scalars(select(Answer).join(Run).where(Run.strategy == "fieldworkarena")).all()
    assert len(refused) == 1
    assert "does not accept images" in (refused[0].error or "")
    assert refused[0].prompt_tokens is None          # nothing was sent


def _fieldworkarena_answers(project_file):
    """A dozen FieldWorkArena tasks with short free-text ground truths, answered by copy and by negation."""
    with Project.open(project_file) as p:
        from fieldstudio.tasks.importing import import_tasks

        import_tasks(p, [SHARED_DATA / "fieldworkarena" / "ground_truth"])
        with p.read() as s:
            tasks = [t for t in s.scalars(select(Task).order_by(Task.external_id))
                     if t.ground_truth and len(t.ground_truth) < 60 and not t.ground_truth.lstrip().startswith(("{", "["))]
        chosen = tasks[:: max(1, len(tasks) // 12)][:12]
        assert len(chosen) == 12
        answers = {t.id: (t.ground_truth if i % 2 == 0 else f"It is not {t.ground_truth}.")
                   for i, t in enumerate(chosen)}
        add_run(p, "copies and negations", answers)
    return [t.id for t in chosen]


def _judged_rows(project_file, scorer, task_ids):
    with Project.open(project_file) as p, p.read() as s:
        rows = s.scalars(select(Score).join(Answer).where(Score.scorer == scorer, Answer.task_id.in_(task_ids))).all()
    return [r for r in rows if r.judge and r.judge.get("calls")]


def test_score_with_a_real_judge(llama_server, tmp_path):  # noqa: F811
    """fieldstudio's own judge prompts (fwa-logic+fs-prompt): calls, cache, cost from usage, raw replies."""
    _add_profile(llama_server)
    project_file = tmp_path / "fwa.fieldstudio"
    Project.create(project_file).close()
    task_ids = _fieldworkarena_answers(project_file)
    scorer = "fwa-logic+fs-prompt"

    first = _cli("score", project_file, "--scorer", scorer, "--judge", "smol")
    assert first.exit_code == 0, first.output
    judged = _judged_rows(project_file, scorer, task_ids)
    assert judged, first.output
    calls = sum(r.judge["calls"] for r in judged)
    assert f"judge smol: {calls} calls, 0 from the cache" in first.output
    for r in judged:
        assert r.judge["raw"] is not None                       # the judge's own words are kept
        assert r.judge["prompt_tokens"] > 50 and r.judge["completion_tokens"] >= 1
        expected = (r.judge["prompt_tokens"] * PRICE_IN + r.judge["completion_tokens"] * PRICE_OUT) / 1e6
        assert r.judge["cost_usd"] == pytest.approx(expected, rel=1e-9)
    total = sum(r.judge["cost_usd"] for r in judged)
    assert f"cost {total:.4g} USD" in first.output

    with Project.open(project_file) as p, p.write() as s:     # forget the verdicts, keep the request cache
        for r in s.scalars(select(Score).where(Score.scorer == scorer)):
            s.delete(r)
    again = _cli("score", project_file, "--scorer", scorer, "--judge", "smol")
    assert again.exit_code == 0, again.output
    assert f"judge smol: {calls} calls, {calls} from the cache" in again.output or \
        f"judge smol: 0 calls, {calls} from the cache" in again.output, again.output


def test_official_scorer_with_a_real_judge_records_the_source(llama_server, tmp_path):  # noqa: F811
    """fwa-official reads its prompts and settings from the benchmark's files (stand-ins registered for this
    test); the real server receives them, and every verdict records the file's hash and the settings."""
    from fieldstudio.scoring.official import known
    from tests.support.official_standins import write_standin

    _add_profile(llama_server)
    project_file = tmp_path / "fwa.fieldstudio"
    Project.create(project_file).close()
    task_ids = _fieldworkarena_answers(project_file)[:4]
    folder = write_standin(tmp_path / "FieldWorkArena", "fieldworkarena")
    evaluator = next(folder.rglob("automatic_evaluation.py"))

    result = _cli("score", project_file, "--scorer", "fwa-official", "--judge", "smol", "--official-source", folder)
    assert result.exit_code == 0, result.output
    judged = _judged_rows(project_file, "fwa-official", task_ids)
    assert judged, result.output
    for r in judged:
        assert r.judge["max_tokens"] == 99 and r.judge["seed"] == 7        # the stand-in's settings, not ours
        assert r.judge["completion_tokens"] <= 99                          # and the server honoured them
        files = r.judge["prompt_source"]["files"]
        assert known.fingerprint(evaluator) in {f["sha256"] for f in files}
        assert r.judge["raw"] is not None
