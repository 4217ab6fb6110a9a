"""The command line and the Score dialog propose the same scorer (issue 35 item 2: the dialog used to fall
back to fs-match whatever the tasks, so a user got different numbers from the two fronts).

Driven as a user would: ``fieldstudio score P`` (with ``--judge`` when a judge profile exists) prints the
scorer it uses on its first line; the dialog opened from Compare with nothing scored yet shows its scorer
in the combo box. Both must name the same one, for each kind of task; without a judge profile, a
scorer that needs one is shown disabled with the reason, as the command line stops with "needs a judge".
"""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.cli.score_report import register
from fieldstudio.gui.panels.comparison_score import ScoreDialog
from fieldstudio.inference import profiles
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.store.project import Project
from tests.support.scoring_fixtures import add_run, add_task


def _cli_scorer(path, judge: str | None) -> str:
    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, ["score", str(path), *(["--judge", judge] if judge else [])])
    found = re.search(r"^scoring with (\S+) ", result.output, re.MULTILINE)
    assert found, result.output
    return found.group(1)


@pytest.mark.parametrize("with_judge", [False, True], ids=["no judge", "one judge profile"])
@pytest.mark.parametrize("source, expected", [
    ("fieldworkarena", ("fs-match", "fwa-official")), ("industryeqa", ("eqa-direct", "eqa-direct")),
    ("openeqa", ("llm-match", "llm-match")), ("csv", ("fs-match", "fs-match")), ("manual", ("fs-match", "fs-match")),
])
def test_cli_and_score_dialog_propose_the_same_scorer(qtbot, tmp_path, fake_openai, source, expected, with_judge):
    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as p:
        task = add_task(p, "2.1.0001", "Yes", eval_func="fuzzy_match", source=source)
        add_run(p, "m", {task: "yes"})
    if with_judge:
        profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0))
    cli = _cli_scorer(path, "judge" if with_judge else None)
    with Project.open(path) as p:
        dialog = ScoreDialog(p, None)
        qtbot.addWidget(dialog)
        shown = dialog.scorer()
        qtbot.waitUntil(lambda: not dialog._estimating, timeout=20000)
        dialog.close()
    assert cli == expected[with_judge]
    assert shown == cli
