"""`fieldstudio ethogram ...`: the ethogram edited, events coded, budget, agreement and files, from the CLI."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import add_test_media

runner = CliRunner()


@pytest.fixture
def video_project_file(tmp_path):
    path = tmp_path / "site.fieldstudio"
    p = Project.create(path)
    add_test_media(p)
    p.close()
    return str(path)


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, ["ethogram", *args])
    assert result.exit_code == code, result.output
    return result.output


def test_ethogram_coded_budgeted_compared_and_exported(video_project_file, tmp_path, wide_console):
    p = video_project_file
    run("add-behaviour", p, "lift", "--key", "l", "--group", "posture", "--modifier", "heavy")
    run("add-behaviour", p, "walk", "--key", "w", "--group", "posture")
    run("add-behaviour", p, "enter zone", "--key", "z", "--point", "--colour", "#123456")
    run("add-subject", p, "A", "--key", "1")
    assert "key 'L' is already lift's" in run("add-subject", p, "B", "--key", "L", code=2)
    shown = json.loads(run("show", p, "--json"))
    assert [(b["name"], b["key"], b["type"], b["group"]) for b in shown["behaviours"]] == [
        ("lift", "l", "state", "posture"), ("walk", "w", "state", "posture"), ("enter zone", "z", "point", "")]
    assert run("code", p, "walk.mp4", "lift", "--frame", "3", "--subject", "A", "--coder", "ann",
               "--modifier", "heavy").strip() == "lift (A) starts on frame 3"
    assert run("code", p, "walk.mp4", "walk", "--frame", "9", "--subject", "A", "--coder", "ann").strip() == \
        "walk (A) starts on frame 9; lift stops (exclusive)"
    run("code", p, "walk.mp4", "walk", "--frame", "20", "--subject", "A", "--coder", "ann")
    run("code", p, "walk.mp4", "enter zone", "--frame", "5", "--subject", "A", "--coder", "ann")
    listed = json.loads(run("events", p, "walk.mp4", "--json"))
    assert [(e["behaviour"], e["frame_index"], e["end_frame_index"]) for e in listed] == [
        ("lift", 3, 9), ("enter zone", 5, 5), ("walk", 9, 20)]
    budget = run("budget", p, "walk.mp4", "--csv", "--to", "1.0").splitlines()
    # lift 12000..36000 ticks = 0.267 s of 1 s; walk 36000..78000 = 0.467 s
    assert budget == ["subject,behaviour,type,count,total_duration_s,mean_duration_s,percent_of_observed",
                      "A,lift,state,1,0.267,0.267,26.67", "A,walk,state,1,0.467,0.467,46.67",
                      "A,enter zone,point,1,,,"]
    run("export-events", p, "walk.mp4", str(tmp_path / "ann.csv"))
    assert list(pd.read_csv(tmp_path / "ann.csv")["Behavior type"]) == ["START", "POINT", "STOP", "START", "STOP"]
    run("export-events", p, "walk.mp4", str(tmp_path / "ann.xlsx"), "--format", "boris-xlsx")
    sheet = pd.read_excel(tmp_path / "ann.xlsx", dtype=str, keep_default_na=False)
    assert list(sheet.columns) == ["time", "subject", "code", "modifier", "comment"]
    assert sheet[["code", "modifier"]].values.tolist() == [["lift", "heavy"], ["enter zone", ""], ["lift", "heavy"],
                                                          ["walk", ""], ["walk", ""]]
    assert "3 event(s) imported" in run("import-events", p, "walk.mp4", str(tmp_path / "ann.csv"), "--coder", "bob")
    run("code", p, "walk.mp4", "enter zone", "--frame", "12", "--subject", "A", "--coder", "bob")
    agreement = json.loads(run("agreement", p, "walk.mp4", "--coder-a", "ann", "--coder-b", "bob", "--slice",
                               "0.1", "--tolerance", "0.05", "--json"))
    assert (agreement["matched"], agreement["only_a"], agreement["only_b"]) == (3, 0, 1)
    assert agreement["match_agreement"] == pytest.approx(6 / 7)
    assert 0 < agreement["needleman_wunsch_identity"] <= 100
    text = run("agreement", p, "walk.mp4", "--coder-a", "ann", "--coder-b", "bob", "--slice", "0.1")
    assert "Cohen's kappa (time slice 0.1 s): K = " in text and "only B: A enter zone" in text
    assert "no events coded by 'eve'" in run("agreement", p, "walk.mp4", "--coder-a", "ann", "--coder-b", "eve",
                                             code=2)
    run("export", p, str(tmp_path / "eth.json"))
    run("remove", p, "walk")
    assert "2 behaviour(s)" in run("show", p)
    assert "3 behaviour(s), 1 subject(s)" in run("import", p, str(tmp_path / "eth.json"))


def test_code_with_the_picture_shown_records_on_the_frame_it_shows(tmp_path, clips, wide_console):
    """``--picture``: a screenshot taken while playing goes on the frame whose pixels it shows near ``--frame``;
    a picture of no frame nearby stays on ``--frame``, marked clock (listed so)."""
    import cv2

    from tests.support.run_fixtures import add_media
    from tests.support.video_fixtures import ffmpeg_frame

    path = tmp_path / "play.fieldstudio"
    p = Project.create(path)
    add_media(p, clips["cfr_bframes"])
    p.close()
    clip = clips["cfr_bframes"].name
    shot, far = tmp_path / "shot.png", tmp_path / "far.png"
    # frames decoded by the ffmpeg CLI, scaled as a player would show them (PNG holds BGR for OpenCV)
    cv2.imwrite(str(shot), cv2.resize(ffmpeg_frame(clips["cfr_bframes"], 57), (600, 360))[..., ::-1])
    cv2.imwrite(str(far), cv2.resize(ffmpeg_frame(clips["cfr_bframes"], 200), (600, 360))[..., ::-1])
    run("add-behaviour", str(path), "look", "--key", "k", "--point")
    out = run("code", str(path), clip, "look", "--frame", "60", "--picture", str(shot), "--coder", "ann")
    assert out.startswith("look on frame 57 (found by the picture: frame 57 shows the picture")
    out = run("code", str(path), clip, "look", "--frame", "120", "--picture", str(far), "--coder", "ann")
    assert out.startswith("look on frame 120 (found by the clock: no frame within 12 of 120")
    listed = json.loads(run("events", str(path), clip, "--json"))
    assert [(e["frame_index"], e["frame_found"]) for e in listed] == [(57, "picture"), (120, "clock")]
    assert "frame 120 (4.000 s, clock)" in run("events", str(path), clip)


def test_the_key_clash_names_the_owner_and_coders_are_never_added_together(video_project_file, tmp_path,
                                                                           wide_console):
    """eyes32 items 3, 12, 14: alice and bob both code A lift; without --coder budget and export refuse and name
    them; --coder nobody is refused like agreement's; a coded state overlapping the record is refused (exit 2)."""
    p = video_project_file
    run("add-behaviour", p, "lift", "--key", "l", "--group", "posture")
    run("add-behaviour", p, "stand", "--key", "s", "--group", "posture")
    run("add-subject", p, "A", "--key", "1")
    assert "behaviour 'x': key '1' is already A's" in run("add-behaviour", p, "x", "--key", "1", code=2)
    assert "subject 'B': key 'L' is already lift's" in run("add-subject", p, "B", "--key", "L", code=2)
    for coder, stop in (("alice", "20"), ("bob", "22")):
        run("code", p, "walk.mp4", "lift", "--frame", "0", "--subject", "A", "--coder", coder)
        run("code", p, "walk.mp4", "lift", "--frame", stop, "--subject", "A", "--coder", coder)
    refusal = "walk.mp4: 2 coders recorded events (alice, bob); choose one coder"
    assert refusal in run("budget", p, "walk.mp4", code=2)
    assert refusal in run("export-events", p, "walk.mp4", str(tmp_path / "all.tsv"), code=2)
    assert not (tmp_path / "all.tsv").exists()
    assert "no events coded by 'nobody'; coders: alice, bob" in run("budget", p, "walk.mp4", "--coder", "nobody",
                                                                     code=2)
    # alice's alone: frame 20 is 78000 ticks of 1/90000 s = 0.867 s of the first 1 s (both coders: 1.8 s, 180 %)
    assert "A,lift,state,1,0.867,0.867,86.67" in run("budget", p, "walk.mp4", "--coder", "alice", "--csv", "--to", "1")
    # frame 3 is inside alice's lift 0-20, which is in stand's exclusive group: refused, nothing stored
    assert "A is already lift from frame 0 to 20 (coded by alice)" in run(
        "code", p, "walk.mp4", "stand", "--frame", "3", "--subject", "A", "--coder", "alice", code=2)
    assert len(json.loads(run("events", p, "walk.mp4", "--coder", "alice", "--json"))) == 1
