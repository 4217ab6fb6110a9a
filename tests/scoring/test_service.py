"""The scoring service: scores written per answer, the judge cached and priced, overrides kept with history.

Expected values come from benchmarks.md §1.5 (test vectors, verdict "correct": official and paper totals)
and §1.4 (the gate, empty numerical values), not from the code under test.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from sqlalchemy import func, select, text

from fieldstudio.core.errors import NotFound
from fieldstudio.scoring import service as scoring
from fieldstudio.scoring import store as score_store
from fieldstudio.scoring.scorers import fs_match
from fieldstudio.scoring.service import (
    ScoringError,
    current_scores,
    override_score,
    score_answers,
    score_history,
)
from fieldstudio.inference.call_errors import ModelCallError
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.store.models import ResponseCache, Score, Task
from tests.support.fake_openai import Reply
from tests.support.scoring_fixtures import add_run, add_task


@pytest.fixture
def fwa(project):
    """Five FieldWorkArena-like tasks and one run answering them."""
    t = {
        "dist": add_task(project, "2.3.0001", "12 meters", eval_func="numerical_match"),
        "t30": add_task(project, "1.1.0001", "00:01:00", eval_func="numerical_match"),
        "t60": add_task(project, "1.1.0002", "00:01:00", eval_func="numerical_match"),
        "fuzzy": add_task(project, "2.1.0001", "The worker carries a box to the shelf", eval_func="fuzzy_match"),
        "failed": add_task(project, "2.1.0002", "Yes", eval_func="fuzzy_match"),
    }
    run = add_run(project, "model-a", {
        t["dist"]: "11 meters",
        t["t30"]: "00:01:30",
        t["t60"]: "00:02:00",
        t["fuzzy"]: "He takes a box over to the shelves",
        t["failed"]: {"raw_text": None, "error": "read timeout after 120 s"},
    })
    return project, t, run


def _values(project, scorer):
    df = current_scores(project, scorer)
    return {row.task_id: row for row in df.itertuples()}


def test_fwa_test_vectors_through_the_project(fwa):
    project, t, run = fwa
    rep = score_answers(project, "fs-match")
    assert (rep.answers, rep.scored, rep.unscored, rep.failed_answers) == (5, 3, 2, 1)
    rep_p = score_answers(project, "fwa-paper", [run])
    assert rep_p.scored == 3
    off, pap = _values(project, "fs-match"), _values(project, "fwa-paper")
    # §1.5: distance 11 vs 12 -> fs-match 0 (another value), paper S = 0.5 + 0.5 * (1 - (1/12)/0.5) = 0.9167
    assert off[t["dist"]].value == pytest.approx(0.0)
    assert pap[t["dist"]].value == pytest.approx(0.5 + 0.5 * (1 - (1 / 12) / 0.5))
    # time off by 30 s: fs-match 0 (the ladder's step 0.4 in the explanation); paper S_n 0.5 -> 0.75; off by 60 s:
    # paper 0 -> 0.5
    assert off[t["t30"]].value == pytest.approx(0.0) and off[t["t30"]].explanation.endswith(
        "(FieldWorkArena's time step would give 0.4; fs-match credits only the same value)")
    assert pap[t["t30"]].value == pytest.approx(0.75)
    assert off[t["t60"]].value == pytest.approx(0.0)
    assert pap[t["t60"]].value == pytest.approx(0.5)
    assert pap[t["t60"]].correct is False                     # correct only when score > 0.5
    # free text without a judge is never guessed; a failed call is reported, not scored
    assert math.isnan(off[t["fuzzy"]].value) and "needs a judge" in off[t["fuzzy"]].explanation
    assert math.isnan(off[t["failed"]].value) and "read timeout" in off[t["failed"]].explanation
    assert rep.unscored_reasons["needs a judge"] == 1
    assert set(current_scores(project)[["scorer", "scorer_version"]].itertuples(index=False, name=None)) == {
        ("fs-match", fs_match.VERSION), ("fwa-paper", "1.1")}
    assert set(current_scores(project)["scorer"]) == {"fs-match", "fwa-paper"}


def test_fwa_paper_thresholds_from_task_and_params(fwa):
    project, t, run = fwa
    with project.write() as s:
        s.get(Task, t["t30"]).tolerances = {"T_th": 120}
    score_answers(project, "fwa-paper")
    # T_th 120: S_n = 1 - 30/120 = 0.75 -> S = 0.875
    assert _values(project, "fwa-paper")[t["t30"]].value == pytest.approx(0.5 + 0.5 * 0.75)
    score_answers(project, "fwa-paper", params={"T_th": 60, "alpha": 0.0})
    # alpha 0: S = S_n = 0.5
    assert _values(project, "fwa-paper")[t["t30"]].value == pytest.approx(0.5)


def test_rescoring_rewrites_nothing_unchanged_and_keeps_row_ids(fwa):
    project, t, run = fwa
    score_answers(project, "fs-match")
    ids_before = set(current_scores(project)["score_id"])
    rep = score_answers(project, "fs-match")
    assert rep.written == 0
    assert set(current_scores(project)["score_id"]) == ids_before
    with project.read() as s:
        assert s.scalar(select(func.count()).select_from(Score)) == 5


def _rows(project):
    with project.read() as s:
        stamps = [r[0] for r in s.execute(text("SELECT created_at FROM score"))]
        if project.is_shared:                                   # timestamptz: an aware datetime in UTC
            assert all(x.utcoffset().total_seconds() == 0 for x in stamps), stamps[:2]
        else:
            assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", x) for x in stamps), stamps[:2]
        return sorted((r.answer_id, r.value, r.correct, r.explanation, r.judge, r.created_at.year > 2000)
                      for r in s.scalars(select(Score)))


def test_sqlite_fast_path_stores_what_the_core_path_stores(fwa, monkeypatch, fake_openai):
    project, t, _ = fwa
    score_answers(project, "fs-match")
    fast = _rows(project)
    with project.write() as s:
        s.query(Score).delete()
    monkeypatch.setattr(score_store, "FAST_SQLITE_WRITES", False)
    score_answers(project, "fs-match")
    assert _rows(project) == fast
    assert all(r[4] is None for r in fast)                      # SQL NULL, not the JSON text 'null'
    with project.read() as s:
        assert s.scalar(select(func.count()).select_from(Score).where(Score.judge.is_(None))) == 5
    # judged rows (JSON column) through both paths
    fake_openai.responder = lambda request: Reply(text="correct")
    with project.write() as s:
        s.query(Score).delete()
    score_answers(project, "fwa-logic+fs-prompt", judge_profile=_judge(fake_openai))
    core_judged = [(r[1], (r[4] or {}).get("raw")) for r in _rows(project)]
    with project.write() as s:
        s.query(Score).delete()
    monkeypatch.setattr(score_store, "FAST_SQLITE_WRITES", True)
    score_answers(project, "fwa-logic+fs-prompt", judge_profile=_judge(fake_openai))
    assert [(r[1], (r[4] or {}).get("raw")) for r in _rows(project)] == core_judged


def test_unknown_scorer_and_run_are_clear_errors(fwa):
    project, _, _ = fwa
    with pytest.raises(ScoringError, match="unknown scorer 'nope'"):
        score_answers(project, "nope")
    with pytest.raises(NotFound, match="no run 'zzzz'"):
        score_answers(project, "fs-match", ["zzzz"])
    assert score_answers(project, "fs-match", ["model-a"]).answers == 5     # by name


def test_cancel_keeps_committed_batches(fwa, monkeypatch):
    project, _, _ = fwa
    monkeypatch.setattr(scoring, "DETERMINISTIC_BATCH", 2)
    calls = iter([False, True])
    rep = score_answers(project, "fs-match", cancelled=lambda: next(calls, True))
    assert rep.cancelled
    assert len(current_scores(project)) == 2


# ---------------------------------------------------------------- overrides
def test_override_keeps_history_and_survives_rescoring(fwa):
    project, t, _ = fwa
    score_answers(project, "fs-match")
    row = _values(project, "fs-match")[t["fuzzy"]]
    new_id = override_score(project, row.score_id, 1.0, "same meaning, checked the video", "ana")
    now = _values(project, "fs-match")[t["fuzzy"]]
    assert (now.score_id, now.value, now.correct, now.overridden, now.author) == (new_id, 1.0, True, True, "ana")
    history = score_history(project, new_id)
    assert [h["id"] for h in history] == [row.score_id, new_id]
    assert history[0]["value"] is None and history[1]["reason"] == "same meaning, checked the video"
    assert score_history(project, row.score_id) == history
    rep = score_answers(project, "fs-match")
    assert rep.kept_overrides == 1
    assert _values(project, "fs-match")[t["fuzzy"]].value == 1.0
    # the older row cannot be overridden a second time; the newer one can
    with pytest.raises(ScoringError, match="already overridden"):
        override_score(project, row.score_id, 0.0, "x", "bo")
    third = override_score(project, new_id, 0.0, "on second thought", "bo")
    assert [h["author"] for h in score_history(project, third)] == [None, "ana", "bo"]
    assert _values(project, "fs-match")[t["fuzzy"]].value == 0.0


def test_override_rejects_bad_input(fwa):
    project, t, _ = fwa
    score_answers(project, "fs-match")
    sid = _values(project, "fs-match")[t["dist"]].score_id
    with pytest.raises(ScoringError, match="reason"):
        override_score(project, sid, 1.0, "  ", "ana")
    with pytest.raises(ScoringError, match="between 0 and 1"):
        override_score(project, sid, 2.0, "typo", "ana")
    with pytest.raises(ScoringError, match="finite"):
        override_score(project, sid, float("nan"), "typo", "ana")
    with pytest.raises(NotFound):
        override_score(project, "0" * 32, 1.0, "r", "ana")


def test_promote_answer_to_ground_truth_keeps_the_old_one(fwa):
    project, t, run = fwa
    with project.read() as s:
        from fieldstudio.store.models import Answer
        answer_id = s.scalar(select(Answer.id).where(Answer.task_id == t["fuzzy"]))
    scoring.promote_answer_to_ground_truth(project, answer_id, "ana", "better wording")
    with project.read() as s:
        task = s.get(Task, t["fuzzy"])
        assert task.ground_truth == "He takes a box over to the shelves"
        assert task.extra["ground_truth_history"][0]["value"] == "The worker carries a box to the shelf"


# ---------------------------------------------------------------- the judge
def _judge(fake_openai, **prices) -> ModelProfile:
    return ModelProfile(name="judge", base_url=fake_openai.base_url, model="judge-model", retries=0, seed=42,
                        price_input_per_mtok=prices.get("price_in", 1.0), price_output_per_mtok=prices.get("price_out", 2.0))


def _by_answer(replies: dict[str, str]):
    """A fake-server responder: the reply whose key appears in the prompt's 'Assistant's answer' part."""
    def respond(request):
        prompt = request.body["messages"][-1]["content"]
        for marker, text in replies.items():
            if marker in prompt:
                return Reply(text=text, prompt_tokens=100, completion_tokens=10)
        return Reply(text="incorrect", prompt_tokens=100, completion_tokens=10)
    return respond


def test_judge_scores_are_cached_priced_and_keep_the_raw_text(fwa, fake_openai):
    project, t, _ = fwa
    numbers_gate = json.dumps({"correctness": "incorrect", "numerical_values": {
        "distance": {"teacher": "12", "student": "11", "unit": "m", "type": "length"}}})
    fake_openai.responder = _by_answer({
        "He takes a box": "correct\nThe same action.",
        "11 meters": numbers_gate,
        "00:01:30": json.dumps({"correctness": "correct", "numerical_values": {}}),
        "00:02:00": json.dumps({"correctness": "correct", "numerical_values": {
            "time": {"teacher": "00:01:00", "student": "00:02:00", "unit": "s", "type": "time"}}}),
    })
    rep = score_answers(project, "fwa-logic+fs-prompt", judge_profile=_judge(fake_openai))
    assert rep.judge_calls == 4 and rep.judge_cache_hits == 0          # the failed answer is not sent
    # each call: 100 input tokens at 1 USD/M + 10 output tokens at 2 USD/M = 0.00012 USD
    assert rep.judge_cost_usd == pytest.approx(4 * (100 * 1.0 + 10 * 2.0) / 1e6)
    vals = _values(project, "fwa-logic+fs-prompt")
    assert vals[t["fuzzy"]].value == 1.0 and vals[t["fuzzy"]].judge_raw == "correct\nThe same action."
    assert vals[t["dist"]].value == 0.0                                 # the gate closes on "incorrect"
    assert vals[t["t30"]].value == 0.0 and "ZeroDivisionError" in vals[t["t30"]].explanation
    assert vals[t["t60"]].value == pytest.approx(0.6)                   # Δ60 s -> 0.5 + 0.5 * 0.2
    assert vals[t["fuzzy"]].judge_cost_usd == pytest.approx(1.2e-4)
    with project.read() as s:
        judged = s.scalars(select(Score).where(Score.judge.is_not(None))).all()
        assert len(judged) == 4
        assert {j.judge["model"] for j in judged} == {"judge-model"}
        assert {j.judge["seed"] for j in judged} == {42}
        assert s.scalar(select(func.count()).select_from(ResponseCache)) == 4
    # scoring again asks the model nothing and changes nothing
    n_requests = len(fake_openai.chat_requests())
    rep2 = score_answers(project, "fwa-logic+fs-prompt", judge_profile=_judge(fake_openai))
    assert len(fake_openai.chat_requests()) == n_requests
    # every score stands (same answers, ground truth and scorer): none is judged again, not even from the cache
    assert (rep2.judge_calls, rep2.judge_cache_hits, rep2.written) == (0, 0, 0)
    assert (rep2.current, rep2.stale) == (rep2.answers, 0)
    assert rep2.judge_cost_usd == 0.0
    # fwa-logic+fs-prompt is never scored without its judge; judge-free scoring is another scorer
    with pytest.raises(ScoringError, match="needs a judge.*fs-match"):
        score_answers(project, "fwa-logic+fs-prompt")
    with project.read() as s:
        stored = s.scalars(select(Score).where(Score.scorer == "fwa-logic+fs-prompt",
                                               Score.judge.is_not(None))).all()
        files = {f["file"] for j in stored for f in j.judge["prompt_source"]["files"]}
        assert files == {"judge_three_level.txt", "judge_numbers.txt"}
        assert all(len(f["sha256"]) == 64 for j in stored for f in j.judge["prompt_source"]["files"])


def test_judge_without_usage_makes_cost_unknown(fwa, fake_openai):
    project, _, _ = fwa
    fake_openai.responder = lambda request: Reply(text="correct", usage=False)
    rep = score_answers(project, "fwa-logic+fs-prompt", judge_profile=_judge(fake_openai))
    assert rep.judge_calls == 4
    assert rep.judge_cost_usd is None and not rep.judge_cost_complete


def test_judge_with_bad_key_stops_at_once(fwa, fake_openai, monkeypatch):
    project, _, _ = fwa
    fake_openai.require_key = "right-key"
    monkeypatch.setenv("JUDGE_KEY_TEST", "wrong-key")
    profile = ModelProfile(name="judge", base_url=fake_openai.base_url, model="m", retries=0,
                           api_key_env="JUDGE_KEY_TEST")
    with pytest.raises(ModelCallError) as err:
        score_answers(project, "fwa-logic+fs-prompt", judge_profile=profile)
    assert err.value.kind == "auth"
    assert len(fake_openai.chat_requests()) == 1
    # at most the failed answer (no text, never sent to the judge) may have been stored before the stop
    kept = current_scores(project)
    assert len(kept) <= 1 and kept["value"].isna().all()
    assert all("no answer" in e for e in kept["explanation"])


def test_llm_match_and_eqa_through_the_project(project, fake_openai):
    q1 = add_task(project, "q1", "Air conditioning unit", source="openeqa", category="object recognition",
                  ground_truth_extra={"extra_answers": ["AC"]})
    q2 = add_task(project, "5", "Two pallets", source="industryeqa", category="count",
                  ground_truth_extra={"reasoning_answer": "I see two pallets"}, extra={"reasoning_status": "0"})
    run = add_run(project, "m", {q1: "An AC unit. It looks white",
                                 q2: {"raw_text": "Two", "parsed": {"direct_answer": "Two", "reasoning_answer": "x"}}})
    seen = []

    def respond(request):
        seen.append(request.body["messages"][-1]["content"])
        return Reply(text="4")

    fake_openai.responder = respond
    score_answers(project, "llm-match+fs-prompt", [run], judge_profile=_judge(fake_openai))
    vals = _values(project, "llm-match+fs-prompt")
    assert vals[q1].value == pytest.approx(75.0)                          # (4 - 1) / 4 * 100
    prompt = next(p for p in seen if "Air conditioning" in p)
    assert "It looks white" not in prompt and "An AC unit." in prompt    # OpenEQA truncation (§5 pitfall 22)
    score_answers(project, "eqa-reasoning+fs-prompt", [run], judge_profile=_judge(fake_openai))
    r = _values(project, "eqa-reasoning+fs-prompt")[q2]
    assert math.isnan(r.value) and "reasoning_status" in r.explanation


def test_acceptability_reads_the_verdict_word(project):
    a = add_task(project, "p1", "accept", source="csv", category="tape")
    b = add_task(project, "p2", "reject", source="csv", category="tape")
    c = add_task(project, "p3", "unsure", source="csv", category="tape")
    add_run(project, "m", {a: "Accept. The tape is readable.", b: "accept", c: "reject"})
    score_answers(project, "acceptability")
    vals = _values(project, "acceptability")
    assert (vals[a].value, vals[b].value) == (1.0, 0.0)
    assert math.isnan(vals[c].value) and "gray zone" in vals[c].explanation


def test_uuid7_ids_are_rfc9562_version_7_time_ordered():
    import time
    import uuid

    before_ms = time.time_ns() // 1_000_000
    ids = score_store.uuid7_hex_many(3000)
    after_ms = time.time_ns() // 1_000_000
    assert len(set(ids)) == 3000 and ids == sorted(ids)
    for h in ids[:200]:
        u = uuid.UUID(hex=h)
        assert (len(h), u.version, u.variant) == (32, 7, uuid.RFC_4122)
        assert before_ms <= int(h[:12], 16) <= after_ms          # RFC 9562 §5.7: 48-bit Unix time in ms
    time.sleep(0.002)
    later = score_store.uuid7_hex_many(5)
    assert min(later) > max(ids)                                # a later call sorts after
    assert score_store.uuid7_hex_many(0) == []


def test_counts_per_run_and_repeated_answers_on_the_fast_path(project):
    # two copies of one task (same reference and eval_func) and a repeated answer: the memo must give
    # each answer its own row with its value (1200 cm is 12 m -> 1.0)
    a = add_task(project, "2.3.0001", "12 meters", eval_func="numerical_match")
    b = add_task(project, "2.3.0001.copy", "12 meters", eval_func="numerical_match")
    c = add_task(project, "2.1.0001", "The worker carries a box", eval_func="fuzzy_match")
    r1 = add_run(project, "m1", {a: "1200 cm", b: "1200 cm", c: "a box"})
    r2 = add_run(project, "m2", {a: "1200 cm", b: {"raw_text": None, "error": "timeout"}, c: "a box"})
    rep = score_answers(project, "fs-match")
    assert rep.per_run == {r1: [2, 1], r2: [1, 2]} and list(rep.per_run) == sorted([r1, r2])
    assert (rep.answers, rep.scored, rep.unscored, rep.failed_answers, rep.written) == (6, 3, 3, 1, 6)
    assert rep.unscored_reasons == {"needs a judge": 2, "no answer": 1}
    df = current_scores(project, "fs-match")
    assert sorted(df["value"].dropna()) == [1.0, 1.0, 1.0] and df["answer_id"].is_unique
    # a person's override on one answer: the next scoring keeps it, scores the rest and rewrites nothing
    row = df[df["run_id"] == r1].dropna(subset=["value"]).iloc[0]
    override_score(project, row["score_id"], 0.0, "wrong room", "ana")
    again = score_answers(project, "fs-match")
    assert (again.kept_overrides, again.scored, again.unscored, again.written) == (1, 2, 3, 0)
    # a new run next to scored ones (answers with and without a row in one batch): only its rows are written
    r3 = add_run(project, "m3", {a: "12 m", b: "15 meters", c: "a box"})
    third = score_answers(project, "fs-match")
    assert (third.written, third.per_run[r3]) == (3, [2, 1])
    new = current_scores(project, "fs-match", [r3]).set_index("task_id")["value"]
    assert new[a] == 1.0 and new[b] == 0.0                               # 15 vs 12 m: another value


def test_scoring_restores_the_garbage_collector_and_the_checkpoint_setting(fwa):
    import gc

    project, _, _ = fwa
    assert gc.isenabled()
    score_answers(project, "fs-match")
    assert gc.isenabled()
    gc.disable()
    try:
        score_answers(project, "fwa-paper")
        assert not gc.isenabled()                                # left as the caller had it
    finally:
        gc.enable()
    if not project.is_shared:
        with project.write() as s:                               # a new connection: SQLite's default 1000 pages
            assert s.execute(text("PRAGMA wal_autocheckpoint")).scalar() == 1000
    assert len(current_scores(project)) == 10
