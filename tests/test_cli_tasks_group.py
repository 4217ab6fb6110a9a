"""`fieldstudio tasks import|export`: the issue's command names, with a format check on import."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from fieldstudio.cli import app

OPENEQA = Path(__file__).resolve().parents[2] / "shared" / "data" / "openeqa" / "open-eqa-v0.json"


def test_tasks_import_checks_the_format_then_export_round_trips(tmp_path):
    runner = CliRunner()
    project = tmp_path / "p.fieldstudio"
    assert runner.invoke(app, ["new", str(tmp_path / "p")]).exit_code == 0
    wrong = runner.invoke(app, ["tasks", "import", str(project), str(OPENEQA), "--format", "fieldworkarena"])
    assert wrong.exit_code == 2 and "is not fieldworkarena: it looks like openeqa" in wrong.output
    ok = runner.invoke(app, ["tasks", "import", str(project), str(OPENEQA), "--format", "openeqa"])
    questions = json.loads(OPENEQA.read_text(encoding="utf-8"))
    assert ok.exit_code == 0 and f"tasks: {len(questions)} created" in ok.output
    out = tmp_path / "tasks.csv"
    done = runner.invoke(app, ["tasks", "export", str(project), "--format", "csv", "--out", str(out)])
    assert done.exit_code == 0
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(questions)
    assert {r["query"] for r in rows} == {q["question"] for q in questions}
