"""The benchmarks' own judge files: SHA-256 check, ast reading, locate, and the official reply semantics.

Stand-in files of the same structure (tests/support/official_standins.py, our own text) are registered as known
versions for each test; the official text is never in the repository. Expected values are worked out by
hand from the official code's rules (benchmarks.md §1.4, §2.4, §3.1, §3.2), as noted beside each.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from fieldstudio.scoring.official import known, source as src
from fieldstudio.scoring.official.reading import OfficialSourceError
from fieldstudio.scoring.scorers import fwa_official as off, llm_match as lm
from fieldstudio.scoring.service import ScoringError, current_scores, score_answers
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.store.models import ResponseCache, Score
from tests.support.fake_openai import Reply
from tests.support.official_standins import FILES, write_standin
from tests.support.scoring_fixtures import add_run, add_task


@pytest.fixture(autouse=True)
def _forget_stand_ins():
    yield
    known.clear_stand_ins()


def fixed(*replies):
    """A judge answering ``replies`` in turn (the last one repeated) and recording the prompts."""
    def ask(prompt):
        ask.prompts.append(prompt)
        return replies[min(len(ask.prompts), len(replies)) - 1]
    ask.prompts = []
    return ask


@pytest.fixture
def fwa_source(tmp_path):
    return src.check_folder("fieldworkarena", write_standin(tmp_path / "fwa", "fieldworkarena"))


@pytest.fixture
def offline_source(tmp_path):
    return src.check_folder("fieldworkarena", write_standin(tmp_path / "fwa-offline", "fieldworkarena",
                                                            variant="offline"))


# ---------------------------------------------------------------- known versions and the check
def test_known_versions_are_hashes_of_the_named_commits():
    assert {(k.benchmark, k.role) for k in known.KNOWN} == {(b, r) for b, roles in known.ROLES.items() for r in roles}
    assert all(re.fullmatch(r"[0-9a-f]{64}", k.sha256) for k in known.KNOWN)
    fwa = {k.version.split("@")[0]: k for k in known.KNOWN if k.benchmark == "fieldworkarena"}
    assert fwa["FujitsuResearch/FieldWorkArena"].version.endswith("8ebe8dae3067a75e0029e30f8445b7d0337efec8")
    assert fwa["FujitsuResearch/FieldWorkArena"].variant == "offline"
    assert fwa["ast-fri/FieldWorkArena-GreenAgent"].variant == "leaderboard"


def test_fingerprint_ignores_crlf_and_final_newlines(tmp_path):
    a, b, c = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    a.write_bytes(b"line one\nline two\n")
    b.write_bytes(b"line one\r\nline two")
    c.write_bytes(b"line one\nline  two\n")
    import hashlib
    assert known.fingerprint(a) == known.fingerprint(b) == hashlib.sha256(b"line one\nline two").hexdigest()
    assert known.fingerprint(c) != known.fingerprint(a)


def test_an_unknown_version_is_refused_naming_the_file_and_the_known_hashes(tmp_path):
    folder = write_standin(tmp_path / "fwa", "fieldworkarena", register=False)
    with pytest.raises(OfficialSourceError) as err:
        src.check_folder("fieldworkarena", folder)
    msg = str(err.value)
    assert "automatic_evaluation.py" in msg and "unknown version" in msg
    for k in known.KNOWN:
        if k.benchmark == "fieldworkarena":
            assert k.sha256 in msg and k.version in msg
    assert known.fingerprint(folder / FILES["fieldworkarena"]["evaluator"][0]) in msg


def test_a_stand_in_is_never_accepted_outside_a_test(tmp_path, monkeypatch):
    folder = write_standin(tmp_path / "fwa", "fieldworkarena")
    assert src.check_folder("fieldworkarena", folder).files["evaluator"].version.startswith("test stand-in")
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    with pytest.raises(OfficialSourceError, match="unknown version"):
        src.check_folder("fieldworkarena", folder)
    with pytest.raises(RuntimeError, match="only inside tests"):
        known.register_stand_in("fieldworkarena", "evaluator", "x.py", "0" * 64)


def test_a_missing_file_says_what_to_point_at(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(OfficialSourceError, match="open-eqa checkout"):
        src.check_folder("openeqa", tmp_path / "empty")
    with pytest.raises(OfficialSourceError, match="no benchmark 'realitybench'"):
        src.check_folder("realitybench", tmp_path)


# ---------------------------------------------------------------- reading the files
def test_fwa_prompts_and_settings_are_read_from_the_code(fwa_source):
    s = fwa_source.settings
    # the stand-in's constants, not FieldWorkArena's: model and seed through module names
    assert (s.model, s.temperature, s.top_p, s.seed, s.max_tokens, s.system) == (
        "standin-judge-1", 0, 1.0, 7, 99, "stand-in system")
    assert fwa_source.render("fuzzy_match", question="Q1", reference="R1", pred="P1") == (
        "Stand-in grading request.\nQ) Q1\nR) R1\nS) P1\nSay right or wrong.")
    # implicit concatenation and "+" inside one statement
    assert fwa_source.render("json_match", question="q", reference="r", pred="p") == (
        "Stand-in report request. Two lines.\nQ) q\nR) r\nS) p\n")
    # a later plain assignment replaces the first line, as Python builds the string
    num = fwa_source.render("numerical_match", question="q", reference="r", pred="p")
    assert num.startswith("Stand-in numbers request.\nQ) q\nR) r\nS) p\n") and "overwritten" not in num
    assert num.endswith('Reply {"correctness": ..., "numerical_values": {...}}')


def test_the_file_itself_may_be_named(tmp_path):
    folder = write_standin(tmp_path / "fwa", "fieldworkarena")
    rel = FILES["fieldworkarena"]["evaluator"][0]
    assert src.check_folder("fieldworkarena", folder / rel).files["evaluator"].path == (folder / rel).resolve()


@pytest.mark.parametrize("benchmark", ["fieldworkarena", "openeqa", "industryeqa"])
def test_any_folder_of_the_checkout_at_or_above_the_judge_file_is_accepted(tmp_path, benchmark):
    root = write_standin(tmp_path / "checkout", benchmark)
    judge_file = Path(next(iter(FILES[benchmark].values()))[0])
    folders = [root / Path(*judge_file.parts[:i]) for i in range(len(judge_file.parts))]   # root ... file's folder
    assert len(folders) >= 3                                # e.g. tools/, tools/evaluation/ of FieldWorkArena
    role = next(iter(FILES[benchmark]))
    for folder in folders:
        source = src.check_folder(benchmark, folder)
        assert source.files[role].path == (root / judge_file).resolve(), folder
    (root / "elsewhere").mkdir()
    with pytest.raises(src.OfficialSourceError, match="elsewhere: no "):
        src.check_folder(benchmark, root / "elsewhere")     # a folder beside the file's path is not one of it


def test_a_crlf_checkout_reads_the_same(tmp_path, fwa_source):
    folder = tmp_path / "crlf"
    rel, text = FILES["fieldworkarena"]["evaluator"]
    (folder / rel).parent.mkdir(parents=True)
    (folder / rel).write_bytes(text.replace("\n", "\r\n").encode())
    again = src.check_folder("fieldworkarena", folder)
    assert again.render("fuzzy_match", question="a", reference="b", pred="c") == \
        fwa_source.render("fuzzy_match", question="a", reference="b", pred="c")


def test_a_file_without_the_judge_functions_is_refused(tmp_path):
    folder = tmp_path / "broken"
    rel = FILES["fieldworkarena"]["evaluator"][0]
    (folder / rel).parent.mkdir(parents=True)
    (folder / rel).write_text("def llm_fuzzy_match(pred, reference, question):\n    return 0\n")
    known.register_stand_in("fieldworkarena", "evaluator", rel, known.fingerprint(folder / rel))
    with pytest.raises(OfficialSourceError, match="llm_fuzzy_match: no 'message' string"):
        src.check_folder("fieldworkarena", folder)


def test_openeqa_and_industryeqa_settings_are_read_from_the_code(tmp_path):
    o = src.check_folder("openeqa", write_standin(tmp_path / "o", "openeqa"))
    assert (o.settings.model, o.settings.temperature, o.settings.seed, o.settings.max_tokens, o.settings.system) == (
        "standin-eqa-judge", 0.5, 99, 8, None)
    assert o.mark_tag == "Your mark:"
    i = src.check_folder("industryeqa", write_standin(tmp_path / "i", "industryeqa"))
    assert (i.settings.model, i.settings.temperature, i.settings.max_tokens, i.settings.system) == (
        "standin-ieqa-judge", None, 55, "stand-in evaluator")
    assert i.render("direct", question="q", ground_direct_answer="g", generated_direct_answer="x").endswith(
        '```json\n{"direct_score": }\n```')


# ---------------------------------------------------------------- locate, load, ask
def test_locate_remembers_the_folder_and_load_uses_it(tmp_path):
    with pytest.raises(OfficialSourceError, match="fieldstudio benchmarks locate industryeqa DIR"):
        src.load_source("industryeqa")
    folder = write_standin(tmp_path / "ieqa", "industryeqa")
    src.locate("industryeqa", folder)
    assert src.located_folder("industryeqa") == folder.resolve()
    assert src.load_source("industryeqa").folder == folder.resolve()
    other = write_standin(tmp_path / "other", "industryeqa")
    assert src.load_source("industryeqa", other).folder == other.resolve()          # --official-source
    assert src.forget("industryeqa") and src.located_folder("industryeqa") is None


def test_ask_for_folder_asks_again_with_the_reason_and_remembers(tmp_path):
    good = write_standin(tmp_path / "good", "openeqa")
    (tmp_path / "bad").mkdir()
    asked = []
    answers = iter([tmp_path / "bad", good])

    def choose(message):
        asked.append(message)
        return next(answers)

    got = src.ask_for_folder("openeqa", choose)
    assert got is not None and got.folder == good.resolve()
    assert len(asked) == 2 and "open-eqa checkout" in asked[0] and str(tmp_path / "bad") in asked[1]
    assert src.ask_for_folder("openeqa", lambda m: pytest.fail("asked although located")).folder == good.resolve()
    src.forget("openeqa")
    assert src.ask_for_folder("openeqa", lambda m: None) is None                   # cancelled


# ---------------------------------------------------------------- FieldWorkArena semantics
def numbers(obj) -> str:
    return "Here it is: " + json.dumps(obj) + " done"


def test_failed_or_empty_judge_replies_score_zero_marked_judge_failed(fwa_source):
    def broken(prompt):
        raise ConnectionError("refused")
    for judge in (broken, fixed(""), fixed("   \n")):
        for ev in ("fuzzy_match", "numerical_match", "json_match"):
            r = off.score("12 meters", "12 m", ev, judge=judge, source=fwa_source)
            assert (r.value, r.correct, r.details.get("judge_failed")) == (0.0, False, True)
            assert "judge failed" in r.explanation


def test_the_official_prompt_is_what_the_judge_receives(fwa_source):
    ask = fixed("Correct")
    r = off.score("12 meters", "12 m", "fuzzy_match", question="How far?", judge=ask, source=fwa_source)
    assert r.value == 1.0 and ask.prompts == ["Stand-in grading request.\nQ) How far?\nR) 12 meters\nS) 12 m\n"
                                              "Say right or wrong."]


def test_json_match_empty_reference_rule(fwa_source):
    ask = fixed("correct")
    r = off.score("[ ]", "[ ]", "json_match", judge=ask, source=fwa_source)
    assert r.value == 0.0 and ask.prompts == []          # "[ ]" returns 0.0 whatever the reply
    assert off.score("[]", "[]", "json_match", judge=ask, source=fwa_source).value == 1.0   # "[]" is judged


@pytest.mark.parametrize("reply, expected, error", [
    # no lowercase "correctness" key: json_data["correctness"] raises KeyError -> 0 with the reason
    ({"numerical_values": {"n": {"teacher": 4, "student": 4, "type": "number"}}}, 0.0, "correctness"),
    ({"Correctness": "correct", "numerical_values": {"n": {"teacher": 4, "student": 4, "type": "number"}}}, 0.0,
     "correctness"),
    # an entry without "teacher" (or "student"): v["teacher"] raises KeyError -> 0
    ({"correctness": "correct", "numerical_values": {"n": {"student": 4, "type": "number"}}}, 0.0, "teacher"),
    ({"correctness": "correct", "numerical_values": {"n": {"teacher": 4, "type": "number"}}}, 0.0, "student"),
    # "incorrect" closes the gate before the entries are read, so a broken entry does not matter
    ({"correctness": "incorrect", "numerical_values": {"n": {"type": "number"}}}, 0.0, None),
    # one good number entry and one time off by 3 s (step 0.8): S_n = 0.9 -> 0.5 + 0.45 = 0.95
    ({"correctness": "partially correct", "numerical_values": {
        "n": {"teacher": 4, "student": 4, "type": "number"},
        "t": {"teacher": "00:01:00", "student": "63", "type": "time"}}}, 0.95, None),
    # int(5.7) is 5 for a JSON number (int("5.7") would raise): 5 == 5 -> 1.0
    ({"correctness": "correct", "numerical_values": {"n": {"teacher": 5, "student": 5.7, "type": "number"}}}, 1.0,
     None),
])
def test_numerical_replies_as_the_leaderboard_copy_scores_them(fwa_source, reply, expected, error):
    r = off.score("x", "y", "numerical_match", judge=fixed(numbers(reply)), source=fwa_source)
    assert r.value == pytest.approx(expected)
    assert (error is None and r.error is None) or (error in r.error and "raises" in r.error)


def test_a_missing_type_differs_between_the_offline_and_leaderboard_copies(fwa_source, offline_source):
    """The offline copy's ``value_type`` keeps the previous entry's type; the leaderboard copy raises."""
    reply = numbers({"correctness": "correct", "numerical_values": {
        "a": {"teacher": 4, "student": 4, "type": "number"}, "b": {"teacher": "3", "student": "3"}}})
    lead = off.score("x", "y", "numerical_match", judge=fixed(reply), source=fwa_source)
    assert lead.value == 0.0 and "'type'" in lead.error
    offline = off.score("x", "y", "numerical_match", judge=fixed(reply), source=offline_source)
    assert offline.value == 1.0 and offline.error is None            # both "number", 4 == 4 and 3 == 3
    first = numbers({"correctness": "correct", "numerical_values": {"b": {"teacher": "3", "student": "3"}}})
    assert off.score("x", "y", "numerical_match", judge=fixed(first), source=offline_source).value == 0.0


def test_official_scorer_without_judge_or_source_is_unscored(fwa_source):
    assert off.score("x", "y", "fuzzy_match").value is None
    assert off.score("x", "y", "fuzzy_match", judge=fixed("correct")).value is None


# ---------------------------------------------------------------- OpenEQA semantics
@pytest.mark.parametrize("reply, mark", [
    ("4", 4), ("Your mark: 4", 4), ("Your mark: 4\nYour mark: 2", 4),      # the FIRST tag
    ("I would say so. Your mark: 3 ", 3),                                  # inside a line
    ("Your mark: 5\nbecause it matches", 5), ("Your mark: -1", -1),
    (" 4", None), ("4.", None), ("Your mark: 4/5", None), ("your mark: 4", None), ("Mark: 4", None),
])
def test_openeqa_mark_parsing(reply, mark):
    assert lm.openeqa_mark(reply) == mark


def test_openeqa_scoring_with_its_own_prompt(tmp_path):
    o = src.check_folder("openeqa", write_standin(tmp_path / "o", "openeqa"))
    ask = fixed("ok. Your mark: 4")
    r = lm.score("What is on the wall?", "AC unit", "An AC unit. It looks white", judge=ask, source=o)
    assert r.value == 75.0                                            # 100 * (4 - 1) / 4
    assert ask.prompts == ["Stand-in mark request.\nQuestion: What is on the wall?\nAnswer: AC unit\n"
                           "Response: An AC unit.\nYour mark:"]        # cut after the last period
    ask = fixed("0")
    r = lm.score("q", "a", "b", ["x", "y's"], judge=ask, source=o)
    assert r.value == 0.0 and "Extra Answers: ['x', \"y's\"]" in ask.prompts[0]   # clipped; list as Python shows it
    lm.score("q", "a", "b", [], judge=ask, source=o)
    assert "Extra Answers: []" in ask.prompts[-1]                     # [] is not None: the extra prompt
    bad = lm.score("q", "a", "b.", judge=fixed("five"), source=o)
    assert bad.value is None and bad.details["judge_failed"] and bad.judge_raw == "five"
    assert lm.score("q", "a", None, judge=fixed("5"), source=o).value == 0.0     # prediction None -> 0


# ---------------------------------------------------------------- IndustryEQA semantics
@pytest.fixture
def ieqa(tmp_path):
    return src.check_folder("industryeqa", write_standin(tmp_path / "i", "industryeqa"))


@pytest.mark.parametrize("direct, reasoning, value", [
    ('```json\n{"direct_score": 3.5}\n```', '```json\n{"reasoning_score": 2}\n```', 62.5),   # (3.5-1)/4*100
    ('Sure: {"direct_score": 4, "why": "close"}', '{"reasoning_score": 1}', 75.0),              # unfenced object
    ('```json\n{"score": 5}\n```', '{"reasoning_score": 1}', -25.0),                            # .get(key, 0)
    ('```json\n{"direct_score": 6}\n```', '{"reasoning_score": 1}', 125.0),                     # no clip
])
def test_industryeqa_direct_scores(ieqa, direct, reasoning, value):
    r = lm.score_eqa_direct("q", "No", "No", reasoning_answer="r", generated_reasoning_answer="g",
                            judge=fixed(direct, reasoning), source=ieqa)
    assert r.value == pytest.approx(value)


@pytest.mark.parametrize("direct, reasoning", [
    ('```json\n{"direct_score": 4}\n```', "I cannot rate this."),                # reasoning reply fails
    ('```json\n{"direct_score": }\n```', '{"reasoning_score": 3}'),             # the template echoed: bad JSON
    ("", '{"reasoning_score": 3}'),
])
def test_industryeqa_drops_an_item_when_either_reply_fails(ieqa, direct, reasoning):
    for scorer in (lm.score_eqa_direct, lambda *a, **k: lm.score_eqa_reasoning(
            a[0], a[1], "r", a[2], "g", "1", judge=k["judge"], source=k["source"])):
        ask = fixed(direct, reasoning)
        r = scorer("q", "No", "No", judge=ask, source=ieqa)
        assert r.value is None and r.details["judge_failed"] and "drops the item" in r.explanation
        assert len(ask.prompts) == 2


def test_industryeqa_reasoning_subset_and_prompts(ieqa):
    ask = fixed('{"direct_score": 5}', '```json\n{"reasoning_score": 4.25}\n```')
    r = lm.score_eqa_reasoning("Why?", "No", "flush", "No", "no gap", "1", judge=ask, source=ieqa)
    assert r.value == pytest.approx(81.25)                              # (4.25 - 1) / 4 * 100
    assert ask.prompts[1] == ("Stand-in reasoning request.\nQuestion: Why?\nTruth: No\nGenerated: No\n"
                              "Truth reasoning: flush\nGenerated reasoning: no gap")
    skip = fixed("5")
    out = lm.score_eqa_reasoning("q", "No", "r", "No", "r", "0", judge=skip, source=ieqa)
    assert out.value is None and "reasoning subset" in out.explanation and skip.prompts == []


# ---------------------------------------------------------------- through the service, with a real HTTP judge
def _judge(fake_openai) -> ModelProfile:
    return ModelProfile(name="judge", base_url=fake_openai.base_url, model="local-judge", retries=0, seed=3,
                        temperature=0.9)


def test_fwa_official_end_to_end_with_the_official_settings(project, fake_openai, tmp_path):
    folder = write_standin(tmp_path / "fwa", "fieldworkarena")
    src.locate("fieldworkarena", folder)
    t_ok = add_task(project, "2.1.0001", "A box", eval_func="fuzzy_match", query="What is carried?")
    t_bad = add_task(project, "2.1.0002", "A crate", eval_func="fuzzy_match")
    add_run(project, "m", {t_ok: "a box", t_bad: "a crate"})
    fail_once = {"n": 0}

    def respond(request):
        if "A crate" in request.body["messages"][-1]["content"]:
            fail_once["n"] += 1
            if fail_once["n"] == 1:
                return Reply(status=500, error_message="overloaded")
        return Reply(text="correct")

    fake_openai.responder = respond
    with pytest.raises(ScoringError, match="needs a judge.*fs-match"):
        score_answers(project, "fwa-official")
    rep = score_answers(project, "fwa-official", judge_profile=_judge(fake_openai))
    first = next(r.body for r in fake_openai.chat_requests() if "A box" in r.body["messages"][-1]["content"])
    assert first["messages"][0] == {"role": "system", "content": "stand-in system"}
    assert first["messages"][1]["content"] == ("Stand-in grading request.\nQ) What is carried?\nR) A box\nS) a box\n"
                                               "Say right or wrong.")
    # the code's settings replace the profile's temperature 0.9 and seed 3
    assert (first["temperature"], first["top_p"], first["seed"], first["max_tokens"]) == (0, 1.0, 7, 99)
    assert first["model"] == "local-judge" and rep.official_model == "standin-judge-1"
    assert "test stand-in" in rep.prompt_source and "seed 7" in rep.judge_settings and rep.judge_failed == 1
    vals = current_scores(project, "fwa-official").set_index("task_id")
    assert vals.loc[t_ok, "value"] == 1.0 and vals.loc[t_bad, "value"] == 0.0       # failed call -> 0
    assert "judge failed" in vals.loc[t_bad, "explanation"]
    sha = known.fingerprint(folder / FILES["fieldworkarena"]["evaluator"][0])
    with project.read() as s:
        rows = {r.answer_id: r.judge for r in s.scalars(select(Score).where(Score.scorer == "fwa-official"))}
        assert all(j["prompt_source"]["files"][0]["sha256"] == sha for j in rows.values())
        assert all(j["prompt_source"]["settings"]["seed"] == 7 and j["seed"] == 7 and j["system"] == "stand-in system"
                   for j in rows.values())
        assert sum(bool(j.get("judge_failed")) for j in rows.values()) == 1
        assert s.query(ResponseCache).count() == 1                    # the failed call is not cached
    # the next scoring asks the failed one again (and only it) and now stores its verdict
    n = len(fake_openai.chat_requests())
    again = score_answers(project, "fwa-official", judge_profile=_judge(fake_openai))
    assert len(fake_openai.chat_requests()) == n + 1 and again.judge_failed == 0
    # the other answer's verdict stands (same answer, ground truth and scorer): not judged again, not even from
    # the cache
    assert (again.judge_cache_hits, again.current, again.stale) == (0, 1, 0)
    assert current_scores(project, "fwa-official").set_index("task_id").loc[t_bad, "value"] == 1.0


def test_official_scoring_refuses_an_unlocated_or_unknown_source(project, fake_openai, tmp_path):
    t = add_task(project, "q1", "AC", source="openeqa")
    add_run(project, "m", {t: "AC."})
    with pytest.raises(OfficialSourceError, match="not located"):
        score_answers(project, "llm-match", judge_profile=_judge(fake_openai))
    unknown = write_standin(tmp_path / "o", "openeqa", register=False)
    with pytest.raises(OfficialSourceError, match="unknown version"):
        score_answers(project, "llm-match", judge_profile=_judge(fake_openai), official_source=unknown)
    assert fake_openai.chat_requests() == []
    good = write_standin(tmp_path / "o2", "openeqa")
    fake_openai.responder = lambda request: Reply(text="Your mark: 5")
    rep = score_answers(project, "llm-match", judge_profile=_judge(fake_openai), official_source=good)
    body = fake_openai.chat_requests()[0].body
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0.5, 99, 8) and "top_p" not in body
    assert [m["role"] for m in body["messages"]] == ["user"] and rep.scored == 1
    with pytest.raises(ScoringError, match="does not read a benchmark's own judge files"):
        score_answers(project, "llm-match+fs-prompt", judge_profile=_judge(fake_openai), official_source=good)
