"""FieldWorkArena import on the published files (benchmarks.md §1.2, §1.3, §1.7, §5).

Expected values are computed independently from the raw JSON with the json module and compared with the
table published in benchmarks.md §1.2, so a wrong table or a wrong importer both fail.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from tests.support.shared_data import SHARED_DATA

import pytest
from sqlalchemy import func, select

from fieldstudio.store.models import Answer, Media, Run, Task, TaskInput
from fieldstudio.store.project import Project
from fieldstudio.tasks.formats import fieldworkarena as fwa
from fieldstudio.tasks.formats.parsed_records import guess_answer_type
from fieldstudio.tasks.formats import detect_format
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.tasks.importing import import_tasks, unsafe_name_reason

DATA = (SHARED_DATA / "fieldworkarena")
GT_DIR = DATA / "ground_truth"
V2_DIR = DATA / "tasks_v2"
pytestmark = pytest.mark.skipif(not GT_DIR.is_dir(), reason="FieldWorkArena files not available")

# benchmarks.md §1.2 "Task counts", summed per id prefix (the bold rows put V2_1.2 in 1.1, V2_2.2 in 2.1,
# V2_3.2 in 3.1 and V2_4.1 in 4.1 + 4.2).
PUBLISHED_PER_CATEGORY = {
    "1.1": 43 + 104 + 94, "2.1": 80 + 125 + 37, "2.2": 124, "2.3": 98, "3.1": 16 + 16 + 45,
    "3.2": 16, "3.3": 8, "3.4": 8, "4.1": 17 + 18, "4.2": 30 + 7,
}
PUBLISHED_EVAL_FUNCS = {"fuzzy_match": 623, "numerical_match": 192, "json_match": 71}
PUBLISHED_DOMAINS = {"factory": 176, "warehouse": 264, "retail": 446}


def gt_files() -> list[Path]:
    return sorted(GT_DIR.glob("Tasks_*.json"))


def raw_records(files: list[Path]) -> list[dict]:
    return [r for f in files for r in json.loads(f.read_text(encoding="utf-8"))]


@pytest.fixture
def gt_project(project):
    report = import_tasks(project, gt_files())
    return project, report


def count(project, stmt):
    with project.read() as s:
        return s.execute(stmt).all()


# ---------------------------------------------------------------- ground-truth variant
def test_all_886_tasks_import_with_published_category_counts(gt_project):
    project, report = gt_project
    raw = Counter(r["id"][:-5] for r in raw_records(gt_files()))  # computed independently
    assert raw == PUBLISHED_PER_CATEGORY
    assert sum(raw.values()) == 886
    stored = dict(count(project, select(Task.category, func.count()).group_by(Task.category)))
    assert stored == raw
    assert dict(report.tasks_per_category) == raw
    assert report.created == 886 and report.updated == 0
    assert not report.errors


def test_eval_func_counts(gt_project):
    project, _ = gt_project
    raw = Counter(r["eval_func"] for r in raw_records(gt_files()))
    assert raw == PUBLISHED_EVAL_FUNCS
    stored = dict(count(project, select(Task.eval_func, func.count()).group_by(Task.eval_func)))
    assert stored == raw


def test_every_ground_truth_is_the_gpt_turn(gt_project):
    project, _ = gt_project
    expected = {r["id"]: (r["conversations"][0]["value"], r["conversations"][1]["value"])
                for r in raw_records(gt_files())}
    stored = {e: (q, g) for e, q, g in count(project, select(Task.external_id, Task.query, Task.ground_truth))}
    assert stored == expected


def test_output_format_counts_differ_between_variants():
    """Finding: the GreenAgent copies mark 3.2 and 4.1 json_match tasks output_format "json" (71 in all);
    only the public V2 files have 38 (3.4 and 4.2), the figure benchmarks.md §1.2 gives."""
    gt = Counter(r["output_format"] for r in raw_records(gt_files()))
    public = Counter(r["output_format"] for r in raw_records(sorted(V2_DIR.glob("Tasks_*.json"))))
    assert gt["json"] == 71 and public["json"] == 38
    parsed = [t for f in gt_files() for t in fwa.parse_task_file(f).tasks]
    assert Counter(t.output_format for t in parsed) == gt
    assert sum(t.answer_type == "json_report" for t in parsed) == 71


def test_category_comes_from_id_not_file_name():
    cases = {"Tasks_V2_2.2.json": "2.1", "Tasks_V2_1.2.json": "1.1", "Tasks_V2_3.2.json": "3.1"}
    for name, category in cases.items():
        tasks = fwa.parse_task_file(GT_DIR / name).tasks
        assert tasks and {t.category for t in tasks} == {category}
    v24 = {t.external_id: t.category for t in fwa.parse_task_file(GT_DIR / "Tasks_V2_4.1.json").tasks}
    assert v24["4.2.2003"] == "4.2" and v24["4.1.2001"] == "4.1"
    assert Counter(v24.values()) == {"4.1": 18, "4.2": 7}
    assert fwa.category_of("2.1.2126") == "2.1" and fwa.category_of("fieldworkarena.3.1.2017") == "3.1"


def test_domains_from_id_lists(gt_project):
    project, _ = gt_project
    stored = dict(count(project, select(Task.scenario, func.count()).group_by(Task.scenario)))
    assert stored == PUBLISHED_DOMAINS
    raw = {d: len((V2_DIR / f"all_task_ids_{d}.txt").read_text().split()) for d in PUBLISHED_DOMAINS}
    assert raw == PUBLISHED_DOMAINS


def test_domains_from_greenagent_toml_agree_with_txt_lists():
    from_toml = fwa.load_domain_lists([GT_DIR / "all_task_ids_over_size.toml"])
    from_txt = fwa.load_domain_lists(sorted(V2_DIR.glob("all_task_ids_*.txt")))
    assert from_toml == from_txt and len(from_toml) == 886
    with pytest.raises(ValueError, match="size-limited"):
        fwa.load_domain_lists([GT_DIR / "all_task_ids.toml"])


def test_4_1_0051_reported_unmapped_and_kept(gt_project):
    project, report = gt_project
    assert report.unmapped == ["4.1.0051"]
    assert any(p.record == "4.1.0051" and "category CSVs" in p.message for p in report.warnings)
    rows = dict(count(project, select(Task.external_id, Task.sub_category).where(Task.scenario == "warehouse")))
    assert rows["4.1.0051"] == "unmapped"
    assert len(rows) == 264  # bucket counts add up to the domain list (pitfall 13)
    assert sum(v != "unmapped" for v in rows.values()) == 263


def test_sub_category_buckets_follow_calc_category_table():
    taxonomy = fwa.load_subcategory_csvs(sorted((DATA / "categories").glob("category_*.csv")))
    assert len(taxonomy) == 176 + 446 + 263
    tasks = {t.external_id: t for f in gt_files() for t in fwa.parse_task_file(f).tasks}
    assert taxonomy["1.1.0001"] == "2.2.3" and tasks["1.1.0001"].sub_category == "01_temporal_videos"
    assert tasks["1.1.0001"].extra["taxonomy_id"] == "2.2.3"
    assert all(t.sub_category == fwa.bucket_of(taxonomy.get(i)) for i, t in tasks.items())


def test_input_data_string_and_list_forms():
    assert fwa.split_input_data("Cam001-Coffee1.mp4  Coffee_Maker_Cleaning_Manual.txt") == (
        ["Cam001-Coffee1.mp4", "Coffee_Maker_Cleaning_Manual.txt"], None)
    assert fwa.split_input_data(["a.jpg", " ", "b.jpg"]) == (["a.jpg", "b.jpg"], None)
    assert fwa.split_input_data("image North1_C3_187_3_09.30.10_09_05.jpg") == (
        ["North1_C3_187_3_09.30.10_09_05.jpg"], "image")
    task = next(t for t in fwa.parse_task_file(GT_DIR / "Tasks_V2_1.1.json").tasks if t.external_id == "1.1.2001")
    assert [i.name for i in task.inputs] == ["Cam001-Coffee1.mp4", "Coffee_Maker_Cleaning_Manual.txt"]
    assert task.answer_type == "time_range"


def test_oldest_format(tmp_path, project):
    f = tmp_path / "group2_tasks.json"
    f.write_text(json.dumps([{"id": "fieldworkarena.demo.1", "input_data": "image North1_C3_187_3_09.30.10_09_05.jpg",
                              "conversations": [{"from": "human", "value": "Is anyone without a helmet?"}]}]))
    assert detect_format(f) == "fieldworkarena"
    (task,) = fwa.parse_task_file(f, domains={}, taxonomy={}).tasks
    assert task.external_id == "demo.1" and task.category == "demo"
    assert task.extra["variant"] == "oldest" and task.extra["data_type"] == "image"
    assert [i.name for i in task.inputs] == ["North1_C3_187_3_09.30.10_09_05.jpg"]
    report = import_tasks(project, [f])
    assert report.created == 1 and report.missing_media == {"demo.1": ["North1_C3_187_3_09.30.10_09_05.jpg"]}


def test_data_quality_flags_keep_original_strings():
    tasks = {t.external_id: t for f in gt_files() for t in fwa.parse_task_file(f).tasks}
    t = tasks["1.1.0001"]
    assert "00: 00:03:53" in t.ground_truth  # never rewritten (pitfall 11)
    assert any("malformed" in q for q in t.extra["data_quality"])
    assert any(".mp5" in q for q in tasks["1.1.2023"].extra["data_quality"])


def test_answer_type_guesses():
    tasks = {t.external_id: t for f in gt_files() for t in fwa.parse_task_file(f).tasks}
    assert tasks["2.1.0001"].answer_type == "distance"
    assert tasks["3.3.0003"].answer_type == "count"  # "how many ... distance ... less than 1 meter"
    assert tasks["3.2.0001"].answer_type == "json_report"
    assert tasks["1.1.2064"].answer_type == "time"
    assert tasks["2.2.0052"].answer_type == "free_text"
    assert guess_answer_type("What is the start time and the end time of the work?") == "time_range"


# ---------------------------------------------------------------- public variant
def test_public_variant_imports_without_ground_truth(project):
    files = sorted(V2_DIR.glob("Tasks_*.json")) + [V2_DIR / "tasks_demo.json"]
    report = import_tasks(project, files)
    assert report.created == 886 + 4 and not report.errors
    rows = count(project, select(Task.ground_truth, Task.eval_func, Task.category))
    assert all(gt is None and ef is None for gt, ef, _ in rows)
    assert Counter(c for _, _, c in rows) == {**PUBLISHED_PER_CATEGORY, "demo": 4}
    # three public records have an empty input list: imported, flagged, no inputs
    with project.read() as s:
        t = s.scalars(select(Task).where(Task.external_id == "2.1.0058")).one()
        assert t.extra["variant"] == "public" and "names no input file" in t.extra["data_quality"]
        assert s.scalar(select(func.count()).select_from(TaskInput).where(TaskInput.task_id == t.id)) == 0


def test_public_after_ground_truth_keeps_ground_truth_query(gt_project):
    project, _ = gt_project
    v2 = {r["id"]: r["conversations"][0]["value"] for r in raw_records(sorted(V2_DIR.glob("Tasks_*.json")))}
    gt = {r["id"]: r["conversations"][0]["value"] for r in raw_records(gt_files())}
    assert sum(v2[i] != gt[i] for i in gt) == 640  # benchmarks.md §1.2
    report = import_tasks(project, sorted(V2_DIR.glob("Tasks_*.json")))
    assert report.updated == 886 and report.created == 0
    with project.read() as s:
        for t in s.scalars(select(Task)):
            assert t.query == gt[t.external_id] and t.ground_truth is not None
            assert t.extra["public_query"] == v2[t.external_id]


def test_ground_truth_after_public_replaces_query(project):
    import_tasks(project, [V2_DIR / "Tasks_1.1.json"])
    import_tasks(project, [GT_DIR / "Tasks_1.1.json"])
    with project.read() as s:
        t = s.scalars(select(Task).where(Task.external_id == "1.1.0001")).one()
    assert t.ground_truth and t.eval_func and t.extra["variant"] == "ground_truth"
    assert t.query != t.extra["public_query"]


# ---------------------------------------------------------------- media, paths, idempotence
def test_media_matched_and_missing_listed(tmp_path, project):
    media_dir = tmp_path / "media"
    shutil.copytree(DATA / "demo_images", media_dir)
    with project.write() as s:
        for f in sorted(media_dir.glob("*.jpg"))[:3]:  # worksite_d.jpg is left out
            s.add(Media(kind="image", path=f"media/{f.name}", file_name=f.name))
    report = import_tasks(project, [V2_DIR / "tasks_demo.json"])
    assert report.missing_media == {"demo.4": ["worksite_d.jpg"]}
    with project.read() as s:
        flags = dict(s.execute(select(Task.external_id, Task.missing_media)).all())
        linked = s.scalar(select(func.count()).select_from(TaskInput).where(TaskInput.media_id.is_not(None)))
    assert flags == {"demo.1": False, "demo.2": False, "demo.3": False, "demo.4": True} and linked == 3


def test_path_escapes_rejected_and_never_stored(tmp_path, project):
    bad = ["../secret.jpg", "/etc/passwd", "C:\\Windows\\win.ini", "C:x.jpg", "\\\\server\\share\\a.jpg",
           "media/../../up.jpg", "..\\up.jpg"]
    for name in bad:
        assert unsafe_name_reason(name), name
    assert unsafe_name_reason("media/ok.jpg") is None and unsafe_name_reason("a..b.jpg") is None
    f = tmp_path / "Tasks_x.json"
    f.write_text(json.dumps([{"id": "2.1.9001", "input_data": bad + ["ok.jpg"], "output_format": "text",
                              "conversations": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "a"}],
                              "eval_func": "fuzzy_match"}]))
    report = import_tasks(project, [f])
    assert report.created == 1
    rejected = [p for p in report.errors if "rejected" in p.message]
    assert len(rejected) == len(bad) and all(p.file == f.name and p.record == "2.1.9001" for p in rejected)
    with project.read() as s:
        names = s.scalars(select(TaskInput.name)).all()
        assert s.scalars(select(Task.missing_media)).one() is True
    assert names == ["ok.jpg"]


def test_reimport_is_idempotent(gt_project):
    project, _ = gt_project
    with project.read() as s:
        before = (s.scalar(select(func.count()).select_from(Task)), s.scalar(select(func.count()).select_from(TaskInput)))
        ids_before = dict(s.execute(select(Task.external_id, Task.id)).all())
    report = import_tasks(project, gt_files())
    assert (report.created, report.updated, report.unchanged) == (0, 0, 886)
    with project.read() as s:
        after = (s.scalar(select(func.count()).select_from(Task)), s.scalar(select(func.count()).select_from(TaskInput)))
        ids_after = dict(s.execute(select(Task.external_id, Task.id)).all())
    assert before == after and before[0] == 886 and ids_before == ids_after


def test_round_trip_export_then_reimport_gives_identical_records(tmp_path):
    domains = fwa.load_domain_lists(sorted(V2_DIR.glob("all_task_ids_*.txt")))
    taxonomy = fwa.load_subcategory_csvs(sorted((DATA / "categories").glob("category_*.csv")))
    original = [t for f in gt_files() for t in fwa.parse_task_file(f, domains=domains, taxonomy=taxonomy).tasks]
    out = tmp_path / "Tasks_all.json"
    assert fwa.export_greenagent(original, out) == 886
    again = fwa.parse_task_file(out, domains=domains, taxonomy=taxonomy).tasks
    assert again == original
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported[0].keys() == {"id", "input_data", "conversations", "output_format", "eval_func"}


# ---------------------------------------------------------------- bad input, cancel
@pytest.mark.parametrize("content, reason", [
    (b"", "is empty"), (b"[{\"id\": ", "not valid JSON"), (b"{\"a\": 1}", "not a FieldWorkArena"),
    (b"\xff\xfe\x00garbage", "not UTF-8"), (b"[]", "empty JSON array"),
])
def test_bad_files_reported_and_nothing_lost(gt_project, tmp_path, content, reason):
    project, _ = gt_project
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    report = import_tasks(project, [bad, tmp_path / "missing.json"])
    assert report.tasks_imported == 0
    messages = {p.file: p.message for p in report.errors}
    assert reason in messages[str(bad)] and "does not exist" in messages[str(tmp_path / "missing.json")]
    with project.read() as s:
        assert s.scalar(select(func.count()).select_from(Task)) == 886


def test_bad_records_skipped_with_reason(tmp_path, project):
    f = tmp_path / "Tasks_mixed.json"
    f.write_text(json.dumps([
        {"id": "2.2.9001", "input_data": ["a.jpg"], "conversations": [{"from": "human", "value": "q"}]},
        {"id": "2.2.9002", "input_data": 5, "conversations": [{"from": "human", "value": "q"}]},
        {"input_data": [], "conversations": []},
        "not a task",
        {"id": "2.2.9001", "input_data": [], "conversations": [{"from": "human", "value": "dup"}]},
    ]))
    report = import_tasks(project, [f])
    assert report.created == 1
    assert len(report.errors) == 4


def test_cancel_keeps_committed_batches(project, monkeypatch, tmp_path):
    from fieldstudio.tasks import importing as task_import
    monkeypatch.setattr(task_import, "BATCH", 250)  # several batches in 886 tasks
    calls = {"n": 0}

    def cancel_after_first_batch() -> bool:
        calls["n"] += 1
        return calls["n"] > 1

    seen = []
    report = import_tasks(project, gt_files(), cancelled=cancel_after_first_batch,
                          progress=lambda d, t: seen.append((d, t)))
    assert report.cancelled and report.created == task_import.BATCH
    assert seen == [(0, 886), (task_import.BATCH, 886)]
    with project.read() as s:
        assert s.scalar(select(func.count()).select_from(Task)) == task_import.BATCH
        saved = set(s.scalars(select(Task.external_id)))
    # the files' warnings (unusual extensions) are reported for the saved tasks only, all of theirs kept
    other = Project.create(tmp_path / "whole.fieldstudio")
    full = import_tasks(other, gt_files())
    other.close()
    expected = [p for p in full.problems if p.record is None or p.record in saved]
    assert 0 < len(report.problems) == len(expected) < len(full.problems)
    assert {p.record for p in report.problems} <= saved | {None}


# ---------------------------------------------------------------- run logs
def write_log(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def test_log_first_pair_and_official_newline_rule(tmp_path):
    log = write_log(tmp_path / "exp1" / "experiment.log",
                    "INFO start\n\n<id>fieldworkarena.2.1.0001</id>\n<answer>3\nmeters <b>about</b></answer>\n"
                    "INFO later\n<id>fieldworkarena.2.1.0002</id>\n<answer>5 meters</answer>\n")
    result = fwa.parse_run_log(log)
    (answer,) = result.answers
    assert answer.external_id == "2.1.0001"
    assert answer.raw_text == "3\nmeters <b>about</b>"
    assert answer.extra["official_text"] == "3meters about"  # tags removed, newline deleted without a space
    assert any("only the first" in p.message for p in result.problems)


def test_log_encodings_and_icpr_layout(tmp_path):
    sjis = write_log(tmp_path / "a.log", "<id>fieldworkarena.1.1.0001</id><answer>作業は00:00:10に開始</answer>",
                     "shift-jis")
    (answer,) = fwa.parse_run_log(sjis).answers
    assert answer.raw_text == "作業は00:00:10に開始" and answer.extra["encoding"] == "shift-jis"
    none = write_log(tmp_path / "b.log", "INFO no answer here\n<id>fieldworkarena.1.1.0002</id>\n")
    result = fwa.parse_run_log(none)
    assert not result.answers and "no <answer>" in result.problems[0].message


def test_import_answers_from_logs(gt_project, tmp_path):
    project, _ = gt_project
    root = tmp_path / "results"
    write_log(root / "t1" / "experiment.log", "\n<id>fieldworkarena.2.1.0001</id>\n<answer>12 meters</answer>")
    write_log(root / "t2" / "experiment.log", "\n<id>fieldworkarena.4.2.2003</id>\n<answer>Report:\nok</answer>")
    write_log(root / "t3" / "experiment.log", "\n<id>fieldworkarena.9.9.9999</id>\n<answer>x</answer>")
    assert detect_format(root) == "fieldworkarena-log"
    report = import_answers(project, root, "gpt-4o logs")
    assert report.answers_imported == 2 and report.unknown_ids == ["9.9.9999"]
    with project.read() as s:
        run = s.get(Run, report.run_id)
        assert run.kind == "import" and run.name == "gpt-4o logs" and run.status == "done"
        rows = dict(s.execute(select(Task.external_id, Answer.raw_text).join(Answer, Answer.task_id == Task.id)).all())
        parsed = s.scalars(select(Answer.parsed).join(Task, Answer.task_id == Task.id)
                           .where(Task.external_id == "4.2.2003")).one()
    assert rows == {"2.1.0001": "12 meters", "4.2.2003": "Report:\nok"}
    assert parsed["official_text"] == "Report:ok"
    again = import_answers(project, root, "gpt-4o logs")
    assert again.run_id == report.run_id
    with project.read() as s:
        assert s.scalar(select(func.count()).select_from(Answer)) == 2


def test_task_file_given_as_answers_is_refused(gt_project):
    project, _ = gt_project
    report = import_answers(project, GT_DIR / "Tasks_3.3.json", "oops")
    assert report.run_id is None and "holds tasks" in report.errors[0].message


def test_public_and_ground_truth_in_one_import_are_merged_and_said(project):
    """Both folders in one import (FieldWorkArena's top folder): one task per id, and the report says how many
    ids were in both (a fresh-eyes reader could not tell what happened to the duplicates)."""
    report = import_tasks(project, [V2_DIR, GT_DIR])
    gt_ids = {r["id"] for r in raw_records(gt_files())}
    assert report.merged_public == len(gt_ids) == 886
    assert report.created == 886 + 4            # the 4 demo tasks are public only
    assert report.merged_public_text.startswith("886 task(s) were in both FieldWorkArena's public task files")
