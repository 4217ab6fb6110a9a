"""fieldstudio's CSV task and answer files (format documented in fieldstudio/datasets/csv_tasks.py)."""

from __future__ import annotations

import csv
from pathlib import Path

from sqlalchemy import select

from fieldstudio.store.models import Answer, Media, Task, TaskInput
from fieldstudio.tasks.formats import csv_table as csv_tasks
from fieldstudio.tasks.formats.parsed_records import ParsedInput
from fieldstudio.tasks.formats import detect_format
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.tasks.importing import import_tasks

HEADER = "task_id,query,answer_type,ground_truth,category,scenario,inputs,eval_func,camera\r\n"


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8-sig"))
    return path


def sample_csv(tmp_path: Path) -> Path:
    return write(tmp_path / "tasks.csv", HEADER + (
        'site-1,"How far is the forklift from the worker, in metres?",distance,2.5 m,2.1,warehouse,aisle.jpg,,CAM-3\r\n'
        'site-2,"When does the cleaning start and end?",,"from 00:00:10 to 00:02:36",1.1,factory,'
        '"clip.mp4#t=5,200; manual.pdf",numerical_match,\r\n'
        'site-3,"Describe the ""incident"",\nif any",free_text,,,other,,,\r\n'
    ))


def test_task_csv_fields(tmp_path):
    f = sample_csv(tmp_path)
    assert detect_format(f) == "csv-tasks"
    result = csv_tasks.parse_task_csv(f)
    assert not result.problems
    t1, t2, t3 = result.tasks
    assert (t1.external_id, t1.answer_type, t1.ground_truth, t1.scenario) == ("site-1", "distance", "2.5 m", "warehouse")
    assert t1.extra == {"camera": "CAM-3"} and t1.source == "csv"
    assert t2.answer_type == "time_range"  # guessed: the cell was empty
    assert t2.inputs == [ParsedInput("clip.mp4", 5.0, 200.0), ParsedInput("manual.pdf")]
    assert t3.query == 'Describe the "incident",\nif any' and t3.ground_truth is None and t3.inputs == []


def test_task_csv_problems(tmp_path):
    f = write(tmp_path / "t.csv", HEADER + (
        "a,,free_text,,,,,,\r\n"               # no query
        "b,q,speed,,,,,,\r\n"                   # unknown answer type -> warning, guessed
        "b,q again,,,,,,,\r\n"                  # duplicate id
        'c,q,,,,,"x.mp4#t=9,3",,\r\n'           # range ends before it starts
    ))
    result = csv_tasks.parse_task_csv(f)
    assert [t.external_id for t in result.tasks] == ["b"] and result.tasks[0].answer_type == "free_text"
    assert sorted((p.record, p.severity) for p in result.problems) == [
        ("a", "error"), ("b", "error"), ("b", "warning"), ("c", "error")]


def test_csv_without_required_columns_is_refused(project, tmp_path):
    f = write(tmp_path / "x.csv", "id,question\r\n1,q\r\n")
    report = import_tasks(project, [f])
    assert report.tasks_imported == 0 and "task_id+query" in report.errors[0].message
    empty = write(tmp_path / "e.csv", "")
    report = import_tasks(project, [empty])
    assert report.errors[0].file == str(empty) and "empty" in report.errors[0].message


def test_csv_export_round_trip(tmp_path):
    original = csv_tasks.parse_task_csv(sample_csv(tmp_path)).tasks
    out = tmp_path / "out.csv"
    assert csv_tasks.export_task_csv(original, out) == 3
    assert csv_tasks.parse_task_csv(out).tasks == original
    with open(out, encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == list(csv_tasks.TASK_COLUMNS)


def test_csv_import_media_paths_and_reimport(project, tmp_path):
    with project.write() as s:
        s.add(Media(kind="image", path="photos/aisle.jpg", file_name="aisle.jpg"))
    f = write(tmp_path / "tasks.csv", HEADER + (
        "s1,How far is it?,distance,3 m,,,aisle.jpg,,\r\n"
        "s2,What is shown?,,,,,../../etc/passwd;C:\\secret.jpg;missing.jpg,,\r\n"
    ))
    report = import_tasks(project, [f])
    assert report.created == 2
    assert report.missing_media == {"s2": ["../../etc/passwd", "C:\\secret.jpg", "missing.jpg"]}
    assert sum("rejected" in p.message for p in report.errors) == 2
    with project.read() as s:
        inputs = s.execute(select(Task.external_id, TaskInput.name, TaskInput.media_id).join(TaskInput)).all()
    assert [(e, n) for e, n, _ in inputs] == [("s1", "aisle.jpg"), ("s2", "missing.jpg")]
    assert inputs[0][2] is not None and inputs[1][2] is None
    again = import_tasks(project, [f])
    assert (again.created, again.updated, again.unchanged) == (0, 0, 2)


def test_csv_answers(project, tmp_path):
    import_tasks(project, [sample_csv(tmp_path)])
    answers = write(tmp_path / "answers.csv", "task_id,answer,latency_s\r\nsite-1,\"about 2 m\",1.5\r\n"
                                              "site-9,x,\r\nsite-3,\"line one\nline two\",\r\n")
    assert detect_format(answers) == "csv-answers"
    report = import_answers(project, answers, "manual answers")
    assert report.answers_imported == 2 and report.unknown_ids == ["site-9"]
    with project.read() as s:
        rows = dict(s.execute(select(Task.external_id, Answer.raw_text).join(Answer, Answer.task_id == Task.id)).all())
        parsed = s.scalars(select(Answer.parsed).join(Task, Answer.task_id == Task.id)
                           .where(Task.external_id == "site-1")).one()
    assert rows == {"site-1": "about 2 m", "site-3": "line one\nline two"}
    assert parsed == {"latency_s": "1.5"}


def test_a_changed_answer_makes_the_scores_of_its_earlier_text_stale(project, tmp_path):
    """Importing again under the same source name: an answer whose text changed keeps its score, stale (it judged
    the earlier text), and the report says so; an unchanged one keeps its score current (a fresh-eyes finding:
    the grid showed the old verdict beside the new text). Scoring again re-scores exactly the stale one."""
    from fieldstudio.scoring.service import current_scores, score_answers

    import_tasks(project, [sample_csv(tmp_path)])
    first = write(tmp_path / "a1.csv", "task_id,answer\r\nsite-1,2.5 m\r\nsite-2,from 00:00:10 to 00:02:36\r\n")
    import_answers(project, first, "vlm")
    assert score_answers(project, "fs-match").scored == 2
    second = write(tmp_path / "a2.csv", "task_id,answer\r\nsite-1,9 m\r\nsite-2,from 00:00:10 to 00:02:36\r\n")
    report = import_answers(project, second, "vlm")
    assert (report.answers_imported, report.answers_replaced, report.scores_stale) == (2, 1, 1)
    assert report.replaced_text("x").startswith("1 answer(s) differ from the ones this source had")
    assert "1 score(s) are stale" in report.replaced_text("x")
    with project.read() as s:
        ids = dict(s.execute(select(Task.external_id, Answer.id).join(Answer, Answer.task_id == Task.id)).all())
    scores = current_scores(project, "fs-match").set_index("answer_id")
    assert scores.loc[ids["site-1"], "stale_reason"] == "the answer changed"
    assert scores.loc[ids["site-2"], "value"] == 1.0 and scores.loc[ids["site-2"], "stale_reason"] is None
    again = import_answers(project, second, "vlm")               # the same file again: nothing changes
    assert (again.answers_replaced, again.scores_stale) == (0, 0)
    rescored = score_answers(project, "fs-match")
    assert (rescored.stale, rescored.current, rescored.written) == (1, 1, 1)
    scores = current_scores(project, "fs-match").set_index("answer_id")
    assert scores.loc[ids["site-1"], "stale_reason"] is None and scores.loc[ids["site-1"], "value"] < 1.0


def test_answers_without_any_known_task_create_no_run(project, tmp_path):
    answers = write(tmp_path / "answers.csv", "task_id,answer\r\nnope,x\r\n")
    report = import_answers(project, answers, "x")
    assert report.run_id is None and report.unknown_ids == ["nope"]


def test_the_readme_example_imports_as_documented(project, tmp_path):
    # README.md's "Task CSV" block, as a user would copy it
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    block = readme.split("```csv\n", 1)[1].split("```", 1)[0]
    report = import_tasks(project, [write(tmp_path / "readme.csv", block)])
    assert (report.created, report.problems) == (2, [])
    assert report.missing_media == {"t1": ["worker_zone.mp4"], "t2": ["dock_a.jpg", "dock_b.jpg"]}
    with project.read() as s:
        t1 = s.scalars(select(Task).where(Task.external_id == "t1")).one()
        (clip,) = s.scalars(select(TaskInput).where(TaskInput.task_id == t1.id)).all()
    assert (t1.ground_truth, t1.category, clip.start_s, clip.end_s) == ("2", "counting", 0.0, 4.5)


def test_a_csv_with_only_its_header_says_so(project, tmp_path):
    report = import_tasks(project, [write(tmp_path / "empty.csv", HEADER)])
    assert report.created == 0 and [(p.severity, p.message) for p in report.problems] == [
        ("warning", "has a header but no rows")]


def test_reading_a_large_csv_holds_no_four_byte_copy_of_it(tmp_path):
    """Found by robtest: a 200 MB answer CSV took 1.33 GB to refuse, `io.StringIO` holding the text again at
    4 bytes a character (once to sniff the header, once to read the rows); now 513 MB."""
    import tracemalloc

    from fieldstudio.tasks.formats.csv_table import parse_answer_csv
    from fieldstudio.tasks.formats.file_format import csv_first_row

    path = tmp_path / "answers.csv"
    path.write_text("task_id,answer\n" + "".join(f"t{i},{'y' * 1000}\n" for i in range(5000)))
    size = path.stat().st_size
    for read in (csv_first_row, parse_answer_csv):
        tracemalloc.start()
        try:
            read(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 3.2 * size, (read.__name__, peak / size)


def test_line_endings_read_as_from_a_file(tmp_path):
    from fieldstudio.tasks.formats.csv_table import parse_answer_csv

    path = tmp_path / "a.csv"
    path.write_bytes(b'task_id,answer\r"t1","a\rb\r\nc"\rt2,d\r\nt3,e\nt4,f')
    assert [(a.external_id, a.raw_text) for a in parse_answer_csv(path).answers] == [
        ("t1", "a\rb\r\nc"), ("t2", "d"), ("t3", "e"), ("t4", "f")]
