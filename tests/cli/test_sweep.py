"""`fieldstudio sweep` and `fieldstudio sweeps` on the ffmpeg clip with known events (tests/support/event_clip.py):
the printed table, the JSON figures (hand-computed in tests/compare/test_sweeps.py), the plot file, the listing."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.inference import profiles
from fieldstudio.store.project import Project
from tests.support.event_clip import add_event_tasks, make_event_clip, seeing_model
from tests.support.run_fixtures import fake_profile


@pytest.fixture
def sweep_app() -> typer.Typer:
    from fieldstudio.cli import sweep

    app = typer.Typer()
    sweep.register(app)
    return app


def test_sweep_prints_the_table_writes_the_plot_and_lists_the_sweep(sweep_app, tmp_path, fake_openai, wide_console):
    path = tmp_path / "clip.fieldstudio"
    p = Project.create(path)
    add_event_tasks(p, make_event_clip(tmp_path))
    p.close()
    profiles.add_profile(fake_profile(fake_openai))
    fake_openai.responder = seeing_model
    runner = CliRunner()
    plot = tmp_path / "sweep.png"
    result = runner.invoke(sweep_app, ["sweep", str(path), "-m", "fake", "--arm", "uniform:8", "--arm", "fps:1:30",
                                       "--scorer", "fs-tiou", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    assert "differences are arm minus uniform:8 on the 2 task(s) every arm scored" in result.output
    assert "saw 1 of 2 (50%)" in result.output and "+0.741 [n too small] (2 paired of 2)" in result.output
    assert plot.read_bytes()[:4] == b"\x89PNG"
    listed = runner.invoke(sweep_app, ["sweeps", str(path)])
    assert listed.exit_code == 0 and "fake  uniform:8, fps:1:30" in listed.output
    shown = runner.invoke(sweep_app, ["sweeps", str(path), "latest", "--json"])
    figures = json.loads(shown.output)
    assert [a["arm"] for a in figures["arms"]] == ["uniform:8", "fps:1:30"]
    fps = figures["arms"][1]
    assert (fps["frames_sent"], fps["saw"], fps["never_saw"]) == (30.0, 2, 0)
    assert fps["score"] == pytest.approx((8 / 9.8 + 2 / 3) / 2)
    assert fps["difference"]["value"] == pytest.approx((8 / 9.8 + 2 / 3) / 2) and fps["difference"]["paired"] == 2
    assert len(fake_openai.chat_requests()) == 4
    again = runner.invoke(sweep_app, ["sweep", str(path), "-m", "fake", "--arm", "uniform:8", "--arm", "fps:1:30",
                                      "--scorer", "fs-tiou"])
    assert again.exit_code == 0 and len(fake_openai.chat_requests()) == 4      # answered from the cache


def test_a_bad_arm_is_one_line_and_exit_2(sweep_app, tmp_path, fake_openai):
    path = tmp_path / "p.fieldstudio"
    Project.create(path).close()
    profiles.add_profile(fake_profile(fake_openai))
    result = CliRunner().invoke(sweep_app, ["sweep", str(path), "-m", "fake", "--arm", "fps:2:30"])
    assert result.exit_code == 2
    assert "seconds_per_frame=0.5 must be a number in [1, 60]" in result.output


def test_a_plot_that_cannot_be_written_is_refused_before_any_request(sweep_app, tmp_path, fake_openai):
    path = tmp_path / "p.fieldstudio"
    Project.create(path).close()
    profiles.add_profile(fake_profile(fake_openai))
    result = CliRunner().invoke(sweep_app, ["sweep", str(path), "-m", "fake", "--arm", "uniform:8",
                                            "--plot", str(tmp_path / "sweep.jpg")])
    assert result.exit_code == 2 and "format 'jpg' is not one of png, svg" in result.output
    assert fake_openai.requests == []
    result = CliRunner().invoke(sweep_app, ["sweeps", str(path), "latest", "--plot", str(tmp_path / "no" / "s.png")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = CliRunner().invoke(sweep_app, ["sweeps", str(path), "latest", "--scorer", "nosuch"])
    assert result.exit_code == 2 and "--scorer: unknown scorer 'nosuch'; known:" in result.output
