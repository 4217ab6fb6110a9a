"""The real benchmark files, when a checkout is at hand: known hash, settings as the issue states them.

Skipped unless FIELDSTUDIO_TEST_FWA_DIR, FIELDSTUDIO_TEST_FWA_LEADERBOARD_DIR, FIELDSTUDIO_TEST_OPENEQA_DIR or
FIELDSTUDIO_TEST_INDUSTRYEQA_DIR names a checkout at the known commit (the files are not in this repository).
The expected settings are the numbers of issue 18 and benchmarks.md §1.4, §2.4 and §3.1; the prompts'
text is not compared (it stays out of the repository), only their fields and that they fill.
"""

from __future__ import annotations

import os

import pytest

from fieldstudio.scoring.official import source as src


def _folder(var: str):
    path = os.environ.get(var)
    if not path:
        pytest.skip(f"{var} is not set")
    return path


@pytest.mark.parametrize("var, version, model, seed", [
    ("FIELDSTUDIO_TEST_FWA_DIR", "FujitsuResearch/FieldWorkArena@8ebe8dae", "gpt-4o-2024-08-06", 42),
    ("FIELDSTUDIO_TEST_FWA_LEADERBOARD_DIR", "ast-fri/FieldWorkArena-GreenAgent@1cc12de", "gpt-4o", None),
])
def test_fieldworkarena_evaluator(var, version, model, seed):
    s = src.check_folder("fieldworkarena", _folder(var))
    assert s.files["evaluator"].version.startswith(version)
    st = s.settings
    assert (st.model, st.temperature, st.top_p, st.seed, st.max_tokens) == (model, 0, 1.0, seed, 768)
    assert st.system and len(st.system.split()) == 5                   # one short "assistant" sentence
    for ev in ("fuzzy_match", "json_match", "numerical_match"):
        text = s.render(ev, question="QQQ", reference="RRR", pred="PPP")
        assert text.index("QQQ") < text.index("RRR") < text.index("PPP")


def test_openeqa_llm_match():
    s = src.check_folder("openeqa", _folder("FIELDSTUDIO_TEST_OPENEQA_DIR"))
    st = s.settings
    assert (st.model, st.temperature, st.seed, st.max_tokens, st.system) == ("gpt-4-1106-preview", 0.2, 1234, 32, None)
    assert s.mark_tag == "Your mark:"
    text = s.render("mmbench-extra", question="QQQ", answer="AAA", prediction="PPP", extra_answers=["EEE"])
    assert text.index("QQQ") < text.index("AAA") < text.index("['EEE']") < text.index("PPP")


def test_industryeqa_direct_match():
    s = src.check_folder("industryeqa", _folder("FIELDSTUDIO_TEST_INDUSTRYEQA_DIR"))
    st = s.settings
    assert (st.model, st.temperature, st.top_p, st.seed, st.max_tokens) == ("gpt-4o", None, None, None, 1000)
    assert st.system
    text = s.render("reasoning", question="Q", ground_direct_answer="G", generated_direct_answer="D",
                    ground_reasoning_answer="GR", generated_reasoning_answer="DR")
    assert '"reasoning_score"' in text
