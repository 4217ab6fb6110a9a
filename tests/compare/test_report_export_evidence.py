"""Each source's accuracy split by evidence coverage in the comparison and every report format (values by hand in
tests/support/evidence_answers.py)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from fieldstudio.compare import evidence
from fieldstudio.compare.comparison import build_comparison
from fieldstudio.compare.report_export import export_report
from tests.support.evidence_answers import SCORER, SPLIT, add_evidence_runs


@pytest.fixture
def evidence_project(media_project):
    return media_project, add_evidence_runs(media_project)


def _as_split(records) -> dict:  # noqa: ANN001 - rows with source, evidence, answers, scored, mean, accuracy
    def num(v):  # noqa: ANN001, ANN202
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

    return {(r["source"], r["evidence"]): (int(r["answers"]), int(r["scored"]), num(r["mean"]), num(r["accuracy"]))
            for r in records}


def test_the_comparison_splits_accuracy_by_evidence(evidence_project):
    p, _ = evidence_project
    c = build_comparison(p, SCORER, n_resamples=200)
    assert _as_split(c.evidence_split.to_dict("records")) == SPLIT
    assert evidence.split_lines(c.evidence_split)[1] == (
        "sees — saw the evidence: mean 0.500, accuracy 0.500 (2/2 scored); never saw it: mean 0.000, accuracy "
        "0.000 (1/1 scored); no evidence: mean 1.000, accuracy 1.000 (1/1 scored)")


def test_every_format_carries_the_split(evidence_project, tmp_path):
    p, ids = evidence_project
    data = json.loads(export_report(p, tmp_path / "r.json", n_resamples=200, scorer=SCORER).path.read_text())
    assert _as_split(data["evidence_split"]) == SPLIT
    export_report(p, tmp_path / "r.xlsx", n_resamples=200, scorer=SCORER)
    sheet = pd.read_excel(tmp_path / "r.xlsx", sheet_name="evidence")
    assert _as_split(sheet.to_dict("records")) == SPLIT
    export_report(p, tmp_path / "r.csv", n_resamples=200, scorer=SCORER)
    rows = pd.read_csv(tmp_path / "r.csv", dtype={"external_id": str})
    got = {(r.source, r.external_id): r.evidence for r in rows.itertuples()}
    assert got == {("sees", "seg-1"): "saw", ("sees", "seg-2"): "saw", ("sees", "seg-3"): "never saw",
                   ("sees", "free"): "no evidence", ("misses", "seg-1"): "never saw",
                   ("misses", "seg-2"): "never saw", ("misses", "seg-3"): "unknown", ("misses", "free"): "no evidence"}
    html = export_report(p, tmp_path / "r.html", n_resamples=200, scorer=SCORER).path.read_text()
    assert "<h2>Accuracy by evidence coverage</h2>" in html and "saw the evidence" in html
