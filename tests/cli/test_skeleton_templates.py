"""`fieldstudio annotations skeleton P LABEL`: show a label's skeleton template, set its own (--points, --limbs),
refuse a bad one in one line (exit 2), reset it to the COCO person; then a COCO export and import carry it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels as lab
from fieldstudio.cli.app import app
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media

runner = CliRunner()


@pytest.fixture
def skeleton_project(tmp_path):
    path = tmp_path / "site.fieldstudio"
    p = Project.create(path)
    add_test_media(p)
    lab.create_label(p, "hand")
    p.close()
    return str(path)


def run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, ["annotations", *args])
    assert result.exit_code == code, result.output
    return result.output


def test_show_set_refuse_reset(skeleton_project, wide_console):
    p = skeleton_project
    shown = run("skeleton", p, "hand")
    assert "hand: the built-in COCO person, 17 points" in shown and "  16  right_ankle" in shown
    out = run("skeleton", p, "hand", "--points", "wrist,thumb,index,middle,little", "--limbs", "0-1,0-2,0-3,0-4")
    assert "hand: its own, 5 points" in out and "limbs: 0-1, 0-2, 0-3, 0-4" in out
    row = json.loads(run("skeleton", p, "hand", "--json"))
    assert row["own"] and row["points"] == ["wrist", "thumb", "index", "middle", "little"]
    assert row["limbs"] == [[0, 1], [0, 2], [0, 3], [0, 4]] and row["marks"] == 0
    err = run("skeleton", p, "hand", "--points", "a,b", "--limbs", "1-1", code=2)
    assert "limb 1-1 joins point b to itself" in err and len(err.strip().splitlines()) == 1
    assert "two point numbers" in run("skeleton", p, "hand", "--points", "a,b", "--limbs", "0:1", code=2)
    assert "--points or --reset" in run("skeleton", p, "hand", "--points", "a", "--reset", code=2)
    assert "no label" in run("skeleton", p, "nobody", code=2)
    with Project.open(p) as proj:
        ann.add_skeleton(proj, VIDEO_ID, [[1, 1]] * 5, frame_index=3, label_id=lab.find_label(proj, "hand").id)
    assert "1 skeleton mark(s) of hand use its 5 points" in run("skeleton", p, "hand", "--reset", code=2)
    assert json.loads(run("skeleton", p, "hand", "--json"))["marks"] == 1
    renamed = run("skeleton", p, "hand", "--points", "carpus,thumb,index,middle,little")
    assert "  0  carpus" in renamed and "limbs: none" in renamed
