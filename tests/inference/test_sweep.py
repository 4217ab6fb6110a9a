"""Sampling sweep arms and runs (fieldstudio.inference.runs.sweep): the arm syntax against the strategies' declared
parameters, one run per arm sharing a sweep id, listing, and continuing an unfinished sweep."""

from __future__ import annotations

import dataclasses

import pytest

from fieldstudio.inference.runs import sweep as sweep_runs
from fieldstudio.inference.runs.run_records import run_summary
from fieldstudio.inference.runs.sweep import Arm, SweepError, parse_arm
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_task, fake_profile


def test_arms_name_a_strategy_and_its_parameters():
    assert parse_arm("uniform:8") == Arm("uniform:8", "fieldworkarena", {"sampling": "uniform", "max_frames": 8})
    assert parse_arm("fps:0.5:20") == Arm("fps:0.5:20", "fieldworkarena",
                                          {"sampling": "pts", "seconds_per_frame": 2.0, "max_frames": 20})
    assert parse_arm("chunked:30") == Arm("chunked:30", "chunked", {"chunk_s": 30.0})
    assert parse_arm("industryeqa:frames=16") == Arm("industryeqa:frames=16", "industryeqa", {"frames": 16})
    assert parse_arm(" chunked:chunk_s=60 ").params == {"chunk_s": 60.0}


@pytest.mark.parametrize("text, message", [
    ("uniform", "write uniform:N"),
    ("uniform:eight", "N 'eight' is not a number"),
    ("uniform:8.5", "must be a whole number"),
    ("uniform:0", "must be a number in [1, 500]"),
    ("fps:2:30", "seconds_per_frame=0.5 must be a number in [1, 60]"),      # 2 frames/s: below the 1 s declared
    ("fps:0:30", "R, frames per second, must be above 0"),
    ("fps:1", "write fps:R:CAP"),
    ("chunked:2", "chunk_s=2.0 must be a number in [5, 600]"),
    ("industryeqa:fps=3", "strategy industryeqa has no parameter 'fps'"),
    ("fieldworkarena:sampling=random", "is not one of pts, fwa-metadata, uniform"),
    ("industryeqa:16", "'16' is not name=value"),
    ("every:8", "arm 'every:8' is not known"),
])
def test_an_arm_that_cannot_be_read_says_why(text, message):
    with pytest.raises(SweepError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        parse_arm(text)


def test_one_run_per_arm_listed_as_one_sweep_and_continued_after_a_cancel(project, fake_openai):
    ids = [add_task(project, f"question {i}") for i in range(2)]
    fake_openai.responder = lambda request: Reply(text="an answer")
    profile = fake_profile(fake_openai)
    arms = [parse_arm("blind"), parse_arm("blind-text")]
    with pytest.raises(SweepError, match="given twice"):
        sweep_runs.create_sweep(project, profile, ids, [arms[0], arms[0]])
    made = sweep_runs.create_sweep(project, profile, ids, arms)
    assert [label for label, _ in made.arms] == ["blind", "blind-text"]
    assert sweep_runs.list_sweeps(project) == [made] and sweep_runs.sweep_runs(project, "latest") == made
    assert sweep_runs.sweep_runs(project, made.sweep_id[:6]) == made
    done = sweep_runs.execute_sweep(project, made, profile, cancelled=lambda: True)
    assert done.cancelled
    assert sweep_runs.find_resumable_sweep(project, profile, arms, ids) == made
    assert sweep_runs.find_resumable_sweep(project, profile, arms[::-1], ids) is None
    assert sweep_runs.find_resumable_sweep(project, profile, arms, ids[:1]) is None
    other_model = dataclasses.replace(profile, model="another-model")     # same name, another model: a new sweep
    assert sweep_runs.find_resumable_sweep(project, other_model, arms, ids) is None
    sweep_runs.execute_sweep(project, made, profile)
    assert [run_summary(project, r).pending for r in made.run_ids] == [0, 0]   # blind's JSON parse fails: finished
    assert sweep_runs.find_resumable_sweep(project, profile, arms, ids) is None
    with pytest.raises(SweepError, match="no sweep 'abcdef'"):
        sweep_runs.sweep_runs(project, "abcdef")


def test_a_parameter_given_twice_in_one_arm_is_refused_not_overwritten():
    with pytest.raises(SweepError, match="parameter 'max_frames' is given twice"):
        parse_arm("fieldworkarena:max_frames=8:max_frames=16")


@pytest.mark.parametrize("second", ["uniform:8.0", "uniform:08", "fieldworkarena:sampling=uniform:max_frames=8"])
def test_two_spellings_of_one_arm_are_refused_before_any_run_is_made(project, fake_openai, second):
    ids = [add_task(project, "question")]
    profile = fake_profile(fake_openai)
    with pytest.raises(SweepError, match=r"arm '.*' sends the same as arm 'uniform:8'"):
        sweep_runs.create_sweep(project, profile, ids, [parse_arm("uniform:8"), parse_arm(second)])
    assert sweep_runs.list_sweeps(project) == []
    # an arm differing only by a default-valued parameter is a different arm only when the value differs
    sweep_runs.create_sweep(project, profile, ids, [parse_arm("uniform:8"), parse_arm("uniform:9")])
