"""`tasks import P DIR` takes every task file of a folder; `answers import --format` refuses another format;
a CSV may name its id column `id`. Counts are read from the published files themselves."""

from __future__ import annotations

import csv
import json
from collections import Counter

from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.tasks.importing import import_tasks
from tests.support.shared_data import SHARED_DATA

GROUND_TRUTH = SHARED_DATA / "fieldworkarena" / "ground_truth"
OPENEQA_DIR = SHARED_DATA / "openeqa"
OPENEQA = OPENEQA_DIR / "open-eqa-v0.json"


def _fwa_ids() -> list[str]:
    return [r["id"] for f in sorted(GROUND_TRUTH.glob("Tasks_*.json")) for r in json.loads(f.read_text("utf-8"))]


def _new(tmp_path):
    runner = CliRunner()
    assert runner.invoke(app, ["new", str(tmp_path / "p")]).exit_code == 0
    return runner, tmp_path / "p.fieldstudio"


def test_ground_truth_folder_imports_every_task_per_category(tmp_path):
    ids = _fwa_ids()
    runner, project = _new(tmp_path)
    done = runner.invoke(app, ["tasks", "import", str(project), str(GROUND_TRUTH)])
    assert done.exit_code == 0, done.output
    assert f"tasks: {len(set(ids))} created, 0 updated" in done.output
    # the same folder again through the service: every task already stored as the files say, so nothing is
    # rewritten (0 updated, all unchanged), per category as the ids say
    from fieldstudio.store.project import Project
    with Project.open(project) as p:
        report = import_tasks(p, [GROUND_TRUTH])
    assert (report.created, report.updated, report.unchanged) == (0, 0, len(set(ids)))
    assert report.tasks_per_category == Counter(i.rsplit(".", 1)[0] for i in set(ids))
    assert set(report.formats.values()) == {"fieldworkarena"}
    assert len(report.formats) == len(list(GROUND_TRUTH.glob("Tasks_*.json")))


def test_folder_with_another_format_is_refused_and_with_its_own_imported(tmp_path):
    runner, project = _new(tmp_path)
    wrong = runner.invoke(app, ["tasks", "import", str(project), str(GROUND_TRUTH), "--format", "openeqa"])
    first = min(GROUND_TRUTH.glob("Tasks_*.json"))
    assert wrong.exit_code == 2 and f"{first}: is not openeqa: it looks like fieldworkarena" in wrong.output
    # the 184-question id list in the OpenEQA folder holds no tasks: skipped, not refused
    ok = runner.invoke(app, ["tasks", "import", str(project), str(OPENEQA_DIR), "--format", "openeqa"])
    assert ok.exit_code == 0 and "skipped: is a JSON list of ids" in ok.output


def test_folder_skips_files_without_tasks_with_a_warning(project):
    report = import_tasks(project, [OPENEQA_DIR])
    expected = sum(len(json.loads((OPENEQA_DIR / n).read_text("utf-8")))
                   for n in ("open-eqa-v0.json", "open-eqa-demo-data.json"))
    assert report.created == expected
    (skipped,) = report.problems
    assert skipped.severity == "warning" and skipped.file.endswith("open-eqa-v0-184-questions.json")
    assert "skipped" in skipped.message


def test_answers_import_format_is_checked(tmp_path):
    runner, project = _new(tmp_path)
    assert runner.invoke(app, ["tasks", "import", str(project), str(OPENEQA)]).exit_code == 0
    questions = json.loads(OPENEQA.read_text("utf-8"))[:7]
    answers = tmp_path / "answers.csv"
    with answers.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "answer"])  # `id` beside `task_id`
        w.writerows([q["question_id"], "a chair"] for q in questions)
    tasks_file = runner.invoke(app, ["answers", "import", str(project), str(OPENEQA), "--model", "m",
                                     "--format", "openeqa"])
    assert tasks_file.exit_code == 2 and "is not openeqa answers: it looks like openeqa" in tasks_file.output
    other = runner.invoke(app, ["answers", "import", str(project), str(answers), "--model", "m",
                                "--format", "fieldworkarena"])
    assert other.exit_code == 2 and "is not fieldworkarena answers: it looks like csv-answers" in other.output
    bad = runner.invoke(app, ["answers", "import", str(project), str(answers), "--model", "m", "--format", "x"])
    assert bad.exit_code == 2 and "choose one of auto, fieldworkarena" in bad.output
    ok = runner.invoke(app, ["answers", "import", str(project), str(answers), "--model", "m", "--format", "csv"])
    assert ok.exit_code == 0 and f"answers: {len(questions)} imported" in ok.output


def test_task_csv_with_an_id_column(project, tmp_path):
    questions = json.loads(OPENEQA.read_text("utf-8"))[:4]
    path = tmp_path / "tasks.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ID", "query", "ground_truth"])
        w.writerows([q["question_id"], q["question"], q["answer"]] for q in questions)
    report = import_tasks(project, [path])
    assert report.formats == {str(path): "csv-tasks"} and report.created == len(questions)
    assert not report.problems
    answers = tmp_path / "a.csv"
    answers.write_text("id,answer\n" + "".join(f"{q['question_id']},x\n" for q in questions), encoding="utf-8")
    assert import_answers(project, answers, "src").answers_imported == len(questions)
