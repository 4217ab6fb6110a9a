"""Issue 33's "done when" for sampling sweeps: on a real clip made by ffmpeg with known events
(tests/support/event_clip.py: 300 frames at 5 frames/s, red square in frames 100-149, blue in 180-195), a sweep of
four arms through the fake OpenAI-compatible server gives evidence coverage, tIoU, frames sent and paired
differences equal to values computed by hand below.

The frames each arm sends (all by hand from the sampling rules, frame i at i / 5 s):

* ``uniform:8``: i * 299 // 7 = 0, 42, 85, 128, 170, 213, 256, 299. Red: 128 (25.6 s, label 00:00:25) lies in
  100-149, so it saw it and answers 00:00:25-00:00:25 (an instant: tIoU 0). Blue: 170 (34.0 s) and 213 (42.6 s)
  are on either side of 180-195: never saw, nearest 36.0 - 34.0 = 2.0 s away; answers 0-1 s, tIoU 0.
* ``uniform:16``: i * 299 // 15 = 0, 19, 39, 59, 79, 99, 119, 139, 159, 179, 199, ... Red: 119 (23.8 s) and 139
  (27.8 s) in; answers 00:00:23-00:00:27, tIoU = 4 / 9.8. Blue: 179 (35.8 s) and 199 (39.8 s) outside: never saw,
  min(36.0 - 35.8, 39.8 - 39.0) = 0.2 s; tIoU 0.
* ``fps:1:30``: 60 s > 30 s, so one frame every max(1, 60 / 30) = 2 s: frames 0, 10, ..., 290. Red: 100-140 in,
  answers 20-28 s, tIoU 8 / 9.8. Blue: 180 and 190 in, answers 36-38 s, tIoU 2 / 3.
* ``chunked:30``: chunks 0-30 s and 30-60 s at 1 frame/s (frames 0, 5, ..., 295: 60 frames per answer). Red seen
  at 20..29 s, tIoU 9 / 9.8; blue at 36..39 s, tIoU 3 / 3 = 1.
"""

from __future__ import annotations

import pytest

from fieldstudio.compare import plots, sweeps
from fieldstudio.inference.runs import sweep as sweep_runs
from tests.support.event_clip import add_event_tasks, make_event_clip, seeing_model
from tests.support.run_fixtures import fake_profile

ARMS = ("uniform:8", "uniform:16", "fps:1:30", "chunked:30")
RED_LEN, BLUE_LEN = 29.8 - 20.0, 39.0 - 36.0
TIOU = {"uniform:8": (0.0, 0.0), "uniform:16": (4 / RED_LEN, 0.0), "fps:1:30": (8 / RED_LEN, 2 / BLUE_LEN),
        "chunked:30": (9 / RED_LEN, 1.0)}
"""(red, blue) temporal IoU per arm, from the module docstring."""
FRAMES = {"uniform:8": 8, "uniform:16": 16, "fps:1:30": 30, "chunked:30": 60}
EVIDENCE = {"uniform:8": ("saw", "never saw"), "uniform:16": ("saw", "never saw"), "fps:1:30": ("saw", "saw"),
            "chunked:30": ("saw", "saw")}
BLUE_DISTANCE = {"uniform:8": 2.0, "uniform:16": 0.2}


@pytest.fixture(scope="module")
def event_clip(tmp_path_factory):
    return make_event_clip(tmp_path_factory.mktemp("event_clip"))


@pytest.fixture
def swept(project, event_clip, fake_openai):
    """The four-arm sweep over the clip's two tasks, answered by the seeing model and scored with fs-tiou."""
    ids = add_event_tasks(project, event_clip)
    fake_openai.responder = seeing_model
    profile = fake_profile(fake_openai)
    made = sweep_runs.create_sweep(project, profile, [ids["red"], ids["blue"]],
                                   [sweep_runs.parse_arm(a) for a in ARMS])
    done = sweep_runs.execute_sweep(project, made, profile)
    assert not done.cancelled and [s.answered for s in done.summaries] == [2, 2, 2, 2]
    assert sweeps.score_sweep(project, made, "fs-tiou") == "fs-tiou"
    return project, made, ids


def test_evidence_coverage_and_tiou_per_arm_equal_the_hand_computed_values(swept):
    from fieldstudio.compare import answer_table, evidence

    project, made, ids = swept
    answers = answer_table.load_answers(project, "fs-tiou", made.run_ids)
    coverage = evidence.answer_coverage(project, answers["answer_id"].tolist()).set_index("answer_id")
    for label, run_id in made.arms:
        rows = answers[answers["run_id"] == run_id].set_index("task_id")
        red, blue = rows.loc[ids["red"]], rows.loc[ids["blue"]]
        assert (red["value"], blue["value"]) == pytest.approx(TIOU[label], abs=1e-9), label
        statuses = (coverage.loc[red["answer_id"], "evidence"], coverage.loc[blue["answer_id"], "evidence"])
        assert statuses == EVIDENCE[label], label
        if label in BLUE_DISTANCE:
            assert coverage.loc[blue["answer_id"], "evidence_distance_s"] == pytest.approx(BLUE_DISTANCE[label])
            assert coverage.loc[blue["answer_id"], "frames_sent"] == FRAMES[label]


def test_the_sweep_table_gives_frames_cost_means_and_paired_differences(swept):
    project, made, _ids = swept
    result = sweeps.sweep_result(project, made, n_resamples=500)
    assert (result.scorer, result.n_tasks, result.n_paired) == ("fs-tiou", 2, 2)
    by_arm = {a.label: a for a in result.arms}
    assert [a.label for a in result.arms] == list(ARMS)
    for label, arm in by_arm.items():
        red, blue = TIOU[label]
        assert arm.frames_sent == FRAMES[label]
        assert arm.score.estimate == pytest.approx((red + blue) / 2)
        assert arm.correct == pytest.approx(sum(v >= 0.5 for v in TIOU[label]) / 2)
        assert (arm.saw, arm.never_saw) == (EVIDENCE[label].count("saw"), EVIDENCE[label].count("never saw"))
        # the fake server reports 5 prompt and 1 completion tokens a request: 5 * 2 / 1e6 + 1 * 8 / 1e6 = $0.000018;
        # chunked makes 3 requests an answer (two chunks described, then the answer)
        requests = 3 if label == "chunked:30" else 1
        assert arm.cost_known == pytest.approx(2 * requests * 0.000018)
    assert by_arm["uniform:8"].difference is None
    for label in ARMS[1:]:
        d = by_arm[label].difference
        expected = sum(TIOU[label]) / 2 - sum(TIOU["uniform:8"]) / 2
        assert d.difference == pytest.approx(expected) and d.n_shared == 2
        assert d.ci_low <= d.difference <= d.ci_high
    table = sweeps.sweep_frame(result).set_index("arm")
    assert table.loc["uniform:16", "evidence"] == "saw 1 of 2 (50%)"
    assert table.loc["fps:1:30", "difference"].endswith("(2 paired of 2)")
    assert table.loc["uniform:8", "difference"] == "reference"
    assert table.loc["chunked:30", "frames sent"] == "60.0"


def test_the_sweep_plot_is_written(swept, tmp_path):
    project, made, _ids = swept
    path = plots.save_figure(plots.sweep_plot(sweeps.sweep_result(project, made, n_resamples=200)),
                             tmp_path / "sweep.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_a_provider_limit_cuts_an_arm_and_the_table_says_so(project, event_clip, fake_openai):
    """A profile that takes 16 images per request: uniform:32 (frames i * 299 // 31) is thinned to positions
    j * 31 // 15 = 0, 2, ..., 28, 31, i.e. frames 0, 19, 38, 57, 77, 96, 115, 135, 154, 173, 192, 212, 231, 250, 270,
    299: red (100-149) is seen at 115 and 135, blue (180-195) at 192, so both saw their evidence."""
    from fieldstudio.compare import answer_table

    ids = add_event_tasks(project, event_clip)
    fake_openai.responder = seeing_model
    profile = fake_profile(fake_openai, max_images_per_request=16)
    made = sweep_runs.create_sweep(project, profile, [ids["red"], ids["blue"]], [sweep_runs.parse_arm("uniform:32")])
    sweep_runs.execute_sweep(project, made, profile)
    sweeps.score_sweep(project, made, "fs-tiou")
    result = sweeps.sweep_result(project, made, n_resamples=200)
    arm = result.arms[0]
    assert (arm.frames_sent, arm.frames_asked, arm.saw, arm.never_saw) == (16, 32, 2, 0)
    assert sweeps.sweep_frame(result).loc[0, "frames sent"] == (
        "16.0 (32.0 asked: the server accepts 16 images per request (the profile's limit) (2 request(s)))")
    answers = answer_table.load_answers(project, "fs-tiou", made.run_ids).set_index("task_id")
    # red seen at 115 (23.0 s) and 135 (27.0 s): 00:00:23-00:00:27, tIoU 4 / 9.8; blue at 192 (38.4 s) only
    assert answers.loc[ids["red"], "value"] == pytest.approx(4 / RED_LEN)
    assert answers.loc[ids["blue"], "answer"] == "from 00:00:38 to 00:00:38"


def test_the_cut_is_stated_in_compare_detail(project, event_clip, fake_openai):
    """fps 1 frame/s capped at 30 builds 30 frames of the 60 s clip; a profile limit of 10 sends 10."""
    from fieldstudio.compare import answer_table, views
    from fieldstudio.inference.runs import queue as run_queue

    ids = add_event_tasks(project, event_clip)
    fake_openai.responder = seeing_model
    profile = fake_profile(fake_openai, max_images_per_request=10)
    run_id = run_queue.create_run(project, profile, [ids["red"]], "fieldworkarena")
    run_queue.execute_run(project, run_id, profile=profile)
    answer_id = answer_table.load_answers(project, None, [run_id])["answer_id"].iloc[0]
    detail = views.answer_detail(project, answer_id, None)
    assert detail.cuts == ("30 asked, 10 sent: the server accepts 10 images per request (the profile's limit)",)
    assert len(detail.frames) == 10
