"""Task exports (issue 5 §4): FieldWorkArena, IndustryEQA and OpenEQA JSON, CSV and XLSX, from a project.

Round trips start from the real files in ../shared/data: import -> export -> compare the exported file field
by field with the source file parsed independently with ``json`` -> import the export -> same tasks.
No IndustryEQA file may be vendored (no licence), so its records are written from benchmarks.md §2.1
(tests/support/industryeqa_records.py).
"""

from __future__ import annotations

import json
from collections import Counter

import openpyxl
import pytest
import typer
from sqlalchemy import select
from typer.testing import CliRunner

from fieldstudio.cli import tasks as cli_tasks
from fieldstudio.store.models import Task, TaskInput
from fieldstudio.store.project import Project
from fieldstudio.tasks import task_records as task_service
from fieldstudio.tasks.exporting import TaskExportError, export_tasks
from fieldstudio.tasks.importing import import_tasks
from tests.support.industryeqa_records import IEQA_RECORDS
from tests.support.shared_data import SHARED_DATA

FWA = SHARED_DATA / "fieldworkarena"
GT_FILES = sorted((FWA / "ground_truth").glob("Tasks_*.json"))
DOMAIN_FILES = sorted((FWA / "tasks_v2").glob("all_task_ids_*.txt"))
CATEGORY_FILES = sorted((FWA / "categories").glob("category_*.csv"))
OPENEQA = SHARED_DATA / "openeqa" / "open-eqa-v0.json"
needs_fwa = pytest.mark.skipif(not GT_FILES, reason="FieldWorkArena files not available")
needs_openeqa = pytest.mark.skipif(not OPENEQA.is_file(), reason="OpenEQA file not available")


def task_fields(project: Project) -> dict[str, tuple]:
    """{external id: every stored field of the task and its inputs}, minus ids and the import's file name."""
    with project.read() as s:
        tasks = list(s.scalars(select(Task)))
        inputs: dict[str, list] = {}
        for i in s.scalars(select(TaskInput).order_by(TaskInput.position)):
            inputs.setdefault(i.task_id, []).append((i.name, i.media_id, i.start_s, i.end_s))
    out = {}
    for t in tasks:
        extra = {k: v for k, v in (t.extra or {}).items() if k != "imported_from"}
        out[t.external_id] = (t.source, t.query, t.answer_type, t.ground_truth, t.ground_truth_extra, t.eval_func,
                              t.output_format, t.category, t.sub_category, t.scenario, t.missing_media, extra,
                              tuple(inputs.get(t.id, [])))
    return out


@pytest.fixture(scope="module")
def fwa_ground_truth_project(tmp_path_factory):
    """A project with the 886 tasks of FieldWorkArena's ground truth files and no media, built once per module."""
    p = Project.create(tmp_path_factory.mktemp("fwa") / "fwa.fieldstudio")
    report = import_tasks(p, GT_FILES)
    assert report.created == 886
    yield p
    p.close()


# ---------------------------------------------------------------- FieldWorkArena
@needs_fwa
def test_fieldworkarena_round_trip_field_identical(fwa_ground_truth_project, tmp_path):
    out = tmp_path / "Tasks_all.json"
    report = export_tasks(fwa_ground_truth_project, "fieldworkarena", out)
    assert report.written == 886 and report.skipped == []
    exported = {r["id"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    source = {r["id"]: r for f in GT_FILES for r in json.loads(f.read_text(encoding="utf-8"))}
    assert exported.keys() == source.keys() and len(source) == 886
    for tid, src in source.items():
        got = exported[tid]
        names = src["input_data"].split() if isinstance(src["input_data"], str) else src["input_data"]
        assert got["input_data"] == names, tid
        assert got["conversations"] == [{"from": c["from"], "value": c["value"]} for c in src["conversations"]], tid
        assert got["eval_func"] == src["eval_func"] and got["output_format"] == src["output_format"], tid
    assert Counter(r["eval_func"] for r in exported.values()) == {"fuzzy_match": 623, "numerical_match": 192,
                                                                  "json_match": 71}
    again = Project.create(tmp_path / "again.fieldstudio")
    report = import_tasks(again, [out], fwa_domain_files=DOMAIN_FILES, fwa_category_files=CATEGORY_FILES)
    assert report.created == 886
    assert task_fields(again) == task_fields(fwa_ground_truth_project)
    again.close()


@needs_fwa
def test_fieldworkarena_source_filter_and_folder_target(fwa_ground_truth_project, tmp_path):
    with pytest.raises(TaskExportError, match="no task of source 'openeqa'"):
        export_tasks(fwa_ground_truth_project, "fieldworkarena", tmp_path, source="openeqa")
    report = export_tasks(fwa_ground_truth_project, "fieldworkarena", tmp_path, source="fieldworkarena")
    assert report.path == tmp_path / "tasks.json" and report.written == 886


# ---------------------------------------------------------------- OpenEQA
@needs_openeqa
def test_openeqa_round_trip_byte_identical(tmp_path):
    p = Project.create(tmp_path / "o.fieldstudio")
    assert import_tasks(p, [OPENEQA]).created == 1636
    out = tmp_path / "open-eqa-export.json"
    report = export_tasks(p, "openeqa", out)
    assert report.written == 1636
    assert out.read_bytes() == OPENEQA.read_bytes()
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert sum("extra_answers" in r for r in exported) == 263
    assert Counter(r["category"] for r in exported)["object localization"] == 263
    again = Project.create(tmp_path / "again.fieldstudio")
    import_tasks(again, [out])
    assert task_fields(again) == task_fields(p)
    p.close()
    again.close()


@needs_openeqa
def test_openeqa_skips_tasks_without_ground_truth(tmp_path, project):
    task_service.create_task(project, query="Is the aisle clear?", answer_type="yes_no", ground_truth="yes",
                             category="spatial understanding")
    task_service.create_task(project, query="What is on the pallet?")
    report = export_tasks(project, "openeqa", tmp_path / "o.json")
    assert report.written == 1
    assert [r for _, r in report.skipped] == ["has no ground truth (OpenEQA answer)"]
    (record,) = json.loads((tmp_path / "o.json").read_text())
    assert record == {"question": "Is the aisle clear?", "answer": "yes", "category": "spatial understanding",
                      "question_id": "T0001"}


# ---------------------------------------------------------------- IndustryEQA
def test_industryeqa_round_trip(tmp_path):
    src = tmp_path / "industryeqa.json"
    src.write_text(json.dumps(IEQA_RECORDS, indent=4), encoding="utf-8")
    p = Project.create(tmp_path / "i.fieldstudio")
    assert import_tasks(p, [src]).created == 4
    out = tmp_path / "export.json"
    assert export_tasks(p, "industryeqa", out).written == 4
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported == IEQA_RECORDS                     # same objects (key order aside), same order
    assert isinstance(exported[0]["question_id"], int) and exported[0]["reasoning_status"] == "1"
    again = Project.create(tmp_path / "again.fieldstudio")
    import_tasks(again, [out])
    assert task_fields(again) == task_fields(p)
    p.close()
    again.close()


def test_industryeqa_skips_what_the_format_cannot_hold(tmp_path, project):
    task_service.create_task(project, external_id="7", query="How many forklifts pass?", answer_type="count",
                             ground_truth="2", category="Object Counting",
                             inputs=[{"name": "data/small/human_1/x.mp4"}])
    task_service.create_task(project, external_id="site-3", query="Is anyone there?", ground_truth="no",
                             inputs=[{"name": "a.mp4"}])
    task_service.create_task(project, external_id="8", query="No video here", ground_truth="yes")
    report = export_tasks(project, "industryeqa", tmp_path / "i.json")
    assert report.written == 1
    assert dict(report.skipped) == {
        "site-3": "has an id that is not a whole number (IndustryEQA question_id)",
        "8": "has no input (IndustryEQA path of the video)"}
    assert json.loads((tmp_path / "i.json").read_text()) == [
        {"question_id": 7, "type": "Object Counting", "question": "How many forklifts pass?", "direct_answer": "2",
         "path": "data/small/human_1/x.mp4"}]


# ---------------------------------------------------------------- CSV and XLSX
def test_csv_and_xlsx_keep_every_column(tmp_path, project):
    task_service.create_task(project, query="=HYPERLINK(\"x\")  starts like a formula", answer_type="time_range",
                             ground_truth="from 00:00:10 to 00:02:36", category="1.1", scenario="factory",
                             inputs=[{"name": "Cam001.mp4", "start_s": 10.0, "end_s": 156.5},
                                     {"name": "manual.txt"}])
    out_csv = tmp_path / "t.csv"
    assert export_tasks(project, "csv", out_csv).written == 1
    again = Project.create(tmp_path / "again.fieldstudio")
    assert import_tasks(again, [out_csv]).created == 1
    (t,) = task_service.list_tasks(again)
    rec = task_service.get_task(again, t.id)
    assert (rec.external_id, rec.query, rec.answer_type, rec.ground_truth, rec.category, rec.scenario) == (
        "T0001", "=HYPERLINK(\"x\")  starts like a formula", "time_range", "from 00:00:10 to 00:02:36", "1.1",
        "factory")
    assert [(i["name"], i["start_s"], i["end_s"]) for i in rec.inputs] == [("Cam001.mp4", 10.0, 156.5),
                                                                         ("manual.txt", None, None)]
    again.close()
    out_xlsx = tmp_path / "t.xlsx"
    assert export_tasks(project, "xlsx", out_xlsx).written == 1
    ws = openpyxl.load_workbook(out_xlsx)["tasks"]
    rows = [[c.value for c in r] for r in ws.iter_rows()]
    assert rows[0][:4] == ["task_id", "query", "answer_type", "ground_truth"]
    assert rows[1][1] == "=HYPERLINK(\"x\")  starts like a formula" and ws.cell(2, 2).data_type == "s"
    assert rows[1][7] == "Cam001.mp4#t=10,156.5;manual.txt"


def test_errors_name_the_reason(tmp_path, project):
    with pytest.raises(TaskExportError, match="unknown task format 'coco'"):
        export_tasks(project, "coco", tmp_path / "x.json")
    with pytest.raises(TaskExportError, match="the project has no tasks"):
        export_tasks(project, "csv", tmp_path / "x.csv")
    task_service.create_task(project, query="q", ground_truth="a")
    with pytest.raises(TaskExportError, match="cannot be written"):
        export_tasks(project, "csv", tmp_path / "missing-folder" / "x.csv")
    assert not (tmp_path / "missing-folder").exists()


def test_cancel_writes_nothing(tmp_path, project):
    task_service.create_task(project, query="q", ground_truth="a")
    report = export_tasks(project, "csv", tmp_path / "x.csv", cancelled=lambda: True)
    assert report.cancelled and report.written == 0 and not (tmp_path / "x.csv").exists()


# ---------------------------------------------------------------- CLI
def test_cli_export_tasks(tmp_path):
    app = typer.Typer()
    cli_tasks.register(app)
    path = tmp_path / "c.fieldstudio"
    with Project.create(path) as p:
        task_service.create_task(p, external_id="3", query="How many?", answer_type="count", ground_truth="3",
                                 inputs=[{"name": "v.mp4"}])
        task_service.create_task(p, query="Free text without a video", ground_truth="ok")
    runner = CliRunner()
    result = runner.invoke(app, ["export-tasks", str(path), "--format", "industryeqa", "--out",
                                 str(tmp_path / "i.json")])
    assert result.exit_code == 0, result.output
    assert "industryeqa: 1 task(s) written" in result.output and "T0002: has an id that is not" in result.output
    assert json.loads((tmp_path / "i.json").read_text())[0]["question_id"] == 3
    result = runner.invoke(app, ["export-tasks", str(path), "--format", "nope", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "unknown task format 'nope'" in result.output
