"""The demo project's answer sources: two hand-written samples and the recorded real model run, scored on build."""

from __future__ import annotations

import csv
import json

import pytest
from sqlalchemy import select

from fieldstudio.core.errors import ProjectError
from fieldstudio.demo.answers import (DEMO_SCORER, SAMPLE_SOURCES, add_recorded_run, demo_answers_dir,
                                      export_recorded_run, recorded_runs_dir)
from fieldstudio.store.models import Answer, Run, Score, Task
from fieldstudio.store.project import Project


def _rows(demo, name):
    with demo.read() as s:
        run = s.scalars(select(Run).where(Run.name == name)).one()
        return run, s.execute(select(Answer, Task.external_id).join(Task).where(Answer.run_id == run.id)).all()


def test_at_least_three_sources_each_scored(demo_project):
    with demo_project.read() as s:
        runs = s.scalars(select(Run)).all()
        scored = {r.name: s.scalar(select(Score.id).join(Answer).where(Answer.run_id == r.id,
                                                                      Score.scorer == DEMO_SCORER).limit(1))
                  for r in runs}
    assert len(runs) >= 3
    assert all(scored.values()), scored
    names = {r.name for r in runs}
    assert set(SAMPLE_SOURCES.values()) <= names
    assert all(n.startswith("sample: ") for n in SAMPLE_SOURCES.values())      # illustrative, and they say so


def test_hand_written_answers_are_the_files(demo_project):
    for file_name, source in SAMPLE_SOURCES.items():
        with open(demo_answers_dir() / file_name, newline="", encoding="utf-8") as f:
            expected = {r["task_id"]: r["answer"] for r in csv.DictReader(f)}
        _, rows = _rows(demo_project, source)
        assert {ext: a.raw_text for a, ext in rows} == expected


def test_unsure_answers_stay_unscored(demo_project):
    _, rows = _rows(demo_project, SAMPLE_SOURCES["sample_careful.csv"])
    unsure = [a.id for a, _ in rows if "not sure" in (a.raw_text or "")]
    assert len(unsure) == 3                                   # ret-04, dist-04, cnt-06 in the file
    with demo_project.read() as s:
        values = s.scalars(select(Score.value).where(Score.answer_id.in_(unsure), Score.scorer == DEMO_SCORER)).all()
    assert all(v is None for v in values)


def test_recorded_run_keeps_its_provenance_and_measurements(demo_project):
    files = sorted(recorded_runs_dir().glob("*.json"))
    assert files, "sample_data/demo/recorded_runs/ holds no recorded run"
    doc = json.loads(files[0].read_text(encoding="utf-8"))
    run, rows = _rows(demo_project, doc["name"])
    assert run.kind == "model" and run.strategy == doc["strategy"] == "blind-text"
    recorded = run.params["recorded"]
    for key in ("model", "model_sha256", "server", "date"):
        assert recorded[key]
    by_task = {ext: a for a, ext in rows}
    assert len(by_task) == len(doc["answers"])
    for entry in doc["answers"]:
        a = by_task[entry["task_id"]]
        assert (a.raw_text, a.prompt_tokens, a.completion_tokens, a.latency_s) == (
            entry["raw_text"], entry["prompt_tokens"], entry["completion_tokens"], entry["latency_s"])


def test_export_and_add_round_trip(demo_project, tmp_path):
    run, rows = _rows(demo_project, SAMPLE_SOURCES["sample_guesser.csv"])
    out = tmp_path / "run.json"
    assert export_recorded_run(demo_project, run.id, out, {"note": "test"}) == len(rows)
    with Project.create(tmp_path / "copy.fieldstudio") as copy:
        with copy.write() as s:
            for _, ext in rows[:5]:
                s.add(Task(external_id=ext, source="csv", query="q"))
        new_id = add_recorded_run(copy, out)
        _, copied = _rows(copy, run.name)
        assert new_id and len(copied) == 5                        # answers naming no task are skipped
        assert {ext: a.raw_text for a, ext in copied} == {ext: a.raw_text for a, ext in rows[:5]}


def test_not_a_recorded_run(tmp_path, project):
    bad = tmp_path / "x.json"
    bad.write_text('{"format": "something-else"}', encoding="utf-8")
    with pytest.raises(ProjectError, match="x.json: not a fieldstudio-recorded-run file"):
        add_recorded_run(project, bad)
    bad.write_text('{"format": "fieldstudio-recorded-run", "version": 9}', encoding="utf-8")
    with pytest.raises(ProjectError, match="version 9"):
        add_recorded_run(project, bad)



SMOL = "SmolLM2-135M blind (recorded llama.cpp run)"


def _cost_shown(project, qtbot, tmp_path, name: str) -> tuple[str, str]:
    """Run ``name``'s cost as the Runs tab's run list shows it, and as the HTML report's summary does."""
    import html
    import re

    from PySide6.QtCore import Qt

    from fieldstudio.compare.report_export import export_report
    from fieldstudio.gui.panels.run_history import RunHistory

    history = RunHistory()
    qtbot.addWidget(history)
    history.set_project(project)
    model = history.runs_model
    cost_col = next(i for i, c in enumerate(model.columns) if c.header == "Cost")
    row = next(i for i, r in enumerate(model.rows) if r.name == name)
    in_runs_tab = model.index(row, cost_col).data(Qt.ItemDataRole.DisplayRole)

    out = tmp_path / "report.html"
    export_report(project, out, scorer=DEMO_SCORER)
    page = out.read_text(encoding="utf-8")
    summary = page[page.index("<h2>Summary by source</h2>"):page.index("<h2>Scored / total tasks by category")]
    table = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[hd][^>]*>.*?</t[hd]>", tr, re.S)]
             for tr in re.findall(r"<tr>.*?</tr>", summary, re.S)]
    (source,) = [r for r in table[1:] if r[0] == name]
    return in_runs_tab, source[table[0].index("cost USD")]


def test_the_local_model_runs_cost_reads_the_same_in_the_runs_tab_and_the_report(demo_project, qtbot, tmp_path):
    """SmolLM2 ran on a local llama.cpp server with no price set: its cost is unknown for every answer, and
    the Runs tab's run list and the HTML report's summary say so in the same words, with what they cover."""
    run, rows = _rows(demo_project, SMOL)
    assert run.params["prices"]["input_per_mtok"] is None and run.params["prices"]["output_per_mtok"] is None
    assert len(rows) == 42 and all(a.cost_usd is None for a, _ in rows)      # not $0: nothing is priced
    assert _cost_shown(demo_project, qtbot, tmp_path, SMOL) == ("unknown (0 of 42 answers priced)",) * 2


def test_a_partly_priced_run_reads_the_same_in_the_runs_tab_and_the_report(demo_project, qtbot, tmp_path):
    """Known costs of $0 beside unknown ones (what the demo stored before: 39 answers at $0, 3 failed ones
    without a cost) were "unknown" in the Runs tab and "0 (partial)" in the report; one rule now says both."""
    import shutil

    copy = tmp_path / "partly.fieldstudio"
    shutil.copyfile(demo_project.path, copy)
    with Project.open(copy) as p:
        with p.write() as s:
            run = s.scalars(select(Run).where(Run.name == SMOL)).one()
            for a in s.scalars(select(Answer).where(Answer.run_id == run.id)):
                a.cost_usd = None if a.error else 0.0
        failed = sum(1 for a, _ in _rows(p, SMOL)[1] if a.error)
        assert failed == 3
        assert _cost_shown(p, qtbot, tmp_path, SMOL) == ("≥ $0.0000 (39 of 42 answers priced)",) * 2
