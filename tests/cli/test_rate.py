"""`fieldstudio ratings ...` and `fieldstudio acceptability ...` through typer's CliRunner on a fresh app."""

from __future__ import annotations

import csv
import json

import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.cli.rate import register
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.project import Project
from tests.support.rating_media import PHOTOS, VIDEO, add_media

pytestmark = pytest.mark.usefixtures("wide_console")  # every test here: a 250-column console
runner = CliRunner()


def make_app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """fieldstudio (test app)"""

    register(app)
    return app


APP = make_app()


def run(*args: str):
    return runner.invoke(APP, [str(a) for a in args])


@pytest.fixture
def rating_project_file(tmp_path):
    """A project file holding the sample photos and video of tests/support/rating_media.py."""
    path = tmp_path / "p.fieldstudio"
    p = Project.create(path)
    add_media(p)
    p.close()
    return path


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["rating_set", "item", "rater", "verdict", "reasons", "tape", "requirement"])
        w.writerows(rows)


ROWS = [
    # item 1: a accept, b accept, c reject;  item 2: all reject;  item 3 (video frame): a accept, b reject, c unsure
    ["panels", PHOTOS[0], "a", "accept", "", "3 5/8", "The label is readable"],
    ["panels", PHOTOS[0], "b", "accept", "", "3.5", ""],
    ["panels", PHOTOS[0], "c", "reject", "blurry", "", ""],
    ["panels", PHOTOS[1], "a", "reject", "too far;occluded", "", ""],
    ["panels", PHOTOS[1], "b", "reject", "", "", ""],
    ["panels", PHOTOS[1], "c", "reject", "", "", ""],
    ["panels", f"{VIDEO}#7", "a", "accept", "", "", ""],
    ["panels", f"{VIDEO}#7", "b", "reject", "", "", ""],
    ["panels", f"{VIDEO}#7", "c", "unsure", "", "", ""],
]


def test_import_csv_then_agreement_json(rating_project_file, tmp_path):
    file = tmp_path / "r.csv"
    write_csv(file, ROWS + [["panels", "no_such.jpg", "a", "accept", "", "", ""],
                            ["panels", PHOTOS[2], "a", "maybe", "", "", ""]])
    result = run("ratings", "import", rating_project_file, file)
    assert result.exit_code == 0, result.output
    assert "9 of 11 rating(s) imported; 3 item(s) added" in result.output
    assert "line 11: no media named 'no_such.jpg'" in result.output
    assert "line 12: verdict 'maybe'" in result.output
    p = Project.open(rating_project_file)
    try:
        info = ratings.get_rating_set(p, "panels")
        assert info.requirement == "The label is readable"
        assert {f["name"]: f["type"] for f in info.fields} == {"tape": "text"}   # "3 5/8" is not a plain number
        assert [i.label for i in ratings.list_items(p, "panels")] == [PHOTOS[0], PHOTOS[1], f"{VIDEO}#7"]
    finally:
        p.close()

    result = run("ratings", "agreement", rating_project_file, "--set", "panels", "--json", "--resamples", "200")
    assert result.exit_code == 0, result.output
    d = json.loads(result.output)
    assert (d["n_items"], d["n_raters"], d["n_ratings"], d["n_unsure"]) == (3, 3, 9, 1)
    # nominal alpha by hand: unit 1 (A,A,R), unit 2 (R,R,R), unit 3 (A,R) [c unsure left out].
    # coincidences: unit 1 (m=3): o_AA = 2/2 = 1, o_AR = o_RA = 2/2 = 1; unit 2: o_RR = 6/2 = 3;
    # unit 3 (m=2): o_AR = o_RA = 1. n_A = 1 + 2 = 3, n_R = 2 + 3 = 5, n = 8.
    # alpha = 1 - (n-1) * (o_AR + o_RA) / (2 n_A n_R) = 1 - 7 * 4 / 30 = 1/15
    assert d["alpha"] == pytest.approx(1 / 15)
    pairs = {(x["rater_a"], x["rater_b"]): x for x in d["pairwise"]}
    assert pairs[("a", "b")]["n"] == 3 and pairs[("a", "b")]["rate"] == pytest.approx(2 / 3)
    # rater c vs majority of a and b: item 1 (A,A) -> A vs R; item 2 R vs R; item 3 c unsure (a,b tie)
    c = d["raters_vs_majority"]["c"]
    assert (c["n"], c["agree"], c["ties"]) == (2, 1, 1)

    out_csv = tmp_path / "agreement.csv"
    result = run("ratings", "agreement", rating_project_file, "--set", "panels", "--csv", out_csv, "--resamples", "100")
    assert result.exit_code == 0, result.output
    assert "Krippendorff's alpha (nominal): 0.067" in result.output
    rows = list(csv.DictReader(open(out_csv, encoding="utf-8")))
    alpha_row = next(r for r in rows if r["statistic"] == "krippendorff_alpha")
    assert float(alpha_row["estimate"]) == pytest.approx(1 / 15, abs=1e-6) and alpha_row["rating_set"] == "panels"


def test_new_set_list_and_packages_between_projects(rating_project_file, tmp_path):
    result = run("ratings", "new", rating_project_file, "gauges", "-r", "The gauge needle is readable",
                 "--field", "angle:number:deg:0.2", "--item", PHOTOS[0], "--item", f"{VIDEO}#3")
    assert result.exit_code == 0, result.output
    assert "created rating set 'gauges' with 2 item(s)" in result.output
    listing = run("ratings", "list", rating_project_file, "--json")
    assert json.loads(listing.output)[0]["items"] == 2

    pkg = tmp_path / "gauges.zip"
    assert run("ratings", "export-package", rating_project_file, "--set", "gauges", pkg).exit_code == 0
    other = tmp_path / "rater" / "r.fieldstudio"
    other.parent.mkdir()
    Project.create(other).close()
    result = run("ratings", "import-package", other, pkg)
    assert result.exit_code == 0, result.output
    assert "'gauges' (created): items 2 added" in result.output and "media 2 added" in result.output
    r = Project.open(other)
    try:
        for item in ratings.list_items(r, "gauges"):
            ratings.record_rating(r, item.id, "rita", "accept", fields={"angle": "12.4°"})
    finally:
        r.close()
    back = tmp_path / "back.json"
    assert run("ratings", "export-package", other, "--set", "gauges", back, "--rater", "rita",
               "--no-media").exit_code == 0
    first = run("ratings", "import-package", rating_project_file, back)
    second = run("ratings", "import-package", rating_project_file, back)
    assert "ratings 2 added, 0 updated, 0 unchanged" in first.output
    assert "ratings 0 added, 0 updated, 2 unchanged" in second.output
    exported = tmp_path / "gauges.csv"
    assert run("ratings", "export", rating_project_file, "--set", "gauges", exported).exit_code == 0
    lines = list(csv.DictReader(open(exported, encoding="utf-8")))
    assert {ln["angle"] for ln in lines} == {"12.4"} and {ln["rater"] for ln in lines} == {"rita"}


def test_acceptability_measure_tune_score(rating_project_file, tmp_path):
    file = tmp_path / "r.csv"
    write_csv(file, ROWS)
    assert run("ratings", "import", rating_project_file, file).exit_code == 0
    result = run("acceptability", "measure", rating_project_file, "--set", "panels", "--json")
    assert result.exit_code == 0, result.output
    measured = json.loads(result.output)
    assert [m["item"] for m in measured] == [PHOTOS[0], PHOTOS[1], f"{VIDEO}#7"]
    assert all(m["error"] is None and m["measures"]["box_area_share"] == 1.0 for m in measured)

    result = run("acceptability", "tune", rating_project_file, "--set", "panels", "--seed", "3", "--json", "--resamples", "100",
                 "--save", tmp_path / "rules.json")
    assert result.exit_code == 0, result.output
    d = json.loads(result.output)
    # items with a majority: 1 (accept) and 2 (reject); item 3 is a tie (a accept, b reject, c unsure)
    assert (d["n_train"], d["n_test"], d["ties"]) == (1, 1, 1)
    assert d["rules"]["tuned"]["seed"] == 3 and (tmp_path / "rules.json").exists()

    result = run("acceptability", "score", rating_project_file, "--set", "panels", "--rules", tmp_path / "rules.json")
    assert result.exit_code == 0, result.output
    assert "stored 3 verdict(s) as scorer:acceptability-rules" in result.output
    summary = json.loads(run("ratings", "agreement", rating_project_file, "--set", "panels", "--json", "--resamples", "50").output)
    scorer = summary["sources_vs_majority"]["scorer:acceptability-rules"]
    assert scorer["ties"] == 1 and scorer["n"] + scorer["unsure"] == 2
    assert summary["n_raters"] == 3                           # the scorer is not counted as a rater


def test_errors_name_the_problem(rating_project_file, tmp_path):
    result = run("ratings", "agreement", rating_project_file, "--set", "nope")
    assert result.exit_code == 2 and "no rating set named 'nope'" in result.output
    bad = tmp_path / "bad.csv"
    bad.write_text("set,item\nx,y\n")
    result = run("ratings", "import", rating_project_file, bad)
    assert result.exit_code == 2 and "missing column(s) rating_set, rater, verdict" in result.output
    result = run("ratings", "import", tmp_path / "missing.fieldstudio", bad)
    assert result.exit_code == 2 and "no such project file" in result.output
