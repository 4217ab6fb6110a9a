"""CSV cells a spreadsheet would run as a formula are written as text; numbers are left alone; the apostrophe
comes off again on import; `report --raw-cells` writes them as stored."""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from fieldstudio.core.spreadsheet_cells import protect_cell, protect_frame, unprotect_cell
from fieldstudio.tasks.formats.csv_table import export_task_csv, parse_task_csv
from fieldstudio.tasks.formats.parsed_records import ParsedTask


@pytest.mark.parametrize("value, written", [
    ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"), ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
    ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "'\t=1"), ("\r=1", "'\r=1"),
    ("-3.5", "-3.5"), ("+2", "+2"), ("1e-3", "1e-3"), ("a = b", "a = b"), (-4, -4), (None, None),
])
def test_formula_starts_get_an_apostrophe_and_numbers_do_not(value, written):
    assert protect_cell(value) == written
    if isinstance(value, str):
        assert unprotect_cell(written) == value


def test_protect_frame_touches_text_columns_only():
    df = pd.DataFrame({"answer": ["=1+1", "fine", None], "score": [-1.0, 0.5, 1.0]})
    out = protect_frame(df)
    assert out["answer"].tolist()[:2] == ["'=1+1", "fine"] and pd.isna(out["answer"].iloc[2])
    assert out["score"].tolist() == [-1.0, 0.5, 1.0] and df["answer"].iloc[0] == "=1+1"


def test_a_task_csv_round_trip_keeps_the_text(tmp_path):
    task = ParsedTask(external_id="q1", source="csv", query="=IMPORTXML(A1)", answer_type="free_text",
                      ground_truth="-1+2")
    export_task_csv([task], tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="") as fh:
        row = list(csv.reader(fh))[1]
    assert row[1] == "'=IMPORTXML(A1)" and row[3] == "'-1+2"          # what a spreadsheet sees: text
    back = parse_task_csv(tmp_path / "t.csv").tasks[0]
    assert (back.query, back.ground_truth) == ("=IMPORTXML(A1)", "-1+2")


def test_every_csv_export_protects_cells_and_raw_cells_writes_them_as_stored(demo_path, tmp_path):
    """Task, annotation, rating and agreement CSVs from the command line: a cell starting with = gets the apostrophe;
    with --raw-cells it is written as stored (issue 36 item 4)."""
    from typer.testing import CliRunner

    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.annotations import labels as lab
    from fieldstudio.cli.app import app
    from fieldstudio.media import library
    from fieldstudio.ratings import rating_records
    from fieldstudio.store.project import Project
    from fieldstudio.tasks import task_records

    sneaky = '=HYPERLINK("http://x";"y")'
    item = "ppe_electricians_hardhat_vest_wire_room_mta.jpg"
    p = Project.open(demo_path)
    try:
        task_records.create_task(p, query=sneaky, ground_truth="-1+2")
        ann.add_box(p, library.find_media(p, item).id, (1, 1, 10, 10), lab.create_label(p, sneaky))
        rating_set = rating_records.list_rating_sets(p)[0].name
    finally:
        p.close()
    ratings_csv = tmp_path / "r_in.csv"
    ratings_csv.write_text(f'rating_set,item,rater,verdict\n"{rating_set}",{item},"{sneaky.replace(chr(34), chr(34) * 2)}",accept\n')
    runner = CliRunner()
    assert runner.invoke(app, ["ratings", "import", str(demo_path), str(ratings_csv)]).exit_code == 0
    commands = {
        "tasks": ["tasks", "export", str(demo_path), "--format", "csv", "--out"],
        "annotations": ["export", str(demo_path), "--format", "csv", "--out"],
        "ratings": ["ratings", "export", str(demo_path), "--set", rating_set],
        "agreement": ["ratings", "agreement", str(demo_path), "--set", rating_set, "--csv"],
    }
    wanted = dict.fromkeys(commands, sneaky)
    for name, args in commands.items():
        for raw in (False, True):
            out = tmp_path / f"{name}_{raw}.csv"
            result = runner.invoke(app, [*args, str(out), *(["--raw-cells"] if raw else [])])
            assert result.exit_code == 0, (name, result.output)
            with open(out, newline="", encoding="utf-8") as fh:
                cells = [c for row in csv.reader(fh) for c in row]
            expected = wanted[name] if raw else "'" + wanted[name]
            assert expected in cells, (name, raw)
            assert raw or wanted[name] not in cells, name
