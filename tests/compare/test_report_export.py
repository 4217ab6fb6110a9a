"""Exports: CSV, XLSX and Parquet re-read with pandas; JSON figures; the HTML report self-contained, with its
tables and plots and without secrets; plots written atomically as PNG and SVG."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess

import cv2
import numpy as np
import openpyxl
import pandas as pd
import pytest

from fieldstudio.scoring.scorers import fs_match
from fieldstudio.compare import plots
from fieldstudio.compare import report_export as report
from fieldstudio.compare import report_html
from fieldstudio.compare.comparison import build_comparison
from fieldstudio.compare.report_export import ANSWER_COLUMNS, ReportError, export_report
from fieldstudio.scoring.service import score_answers
from tests.support.scoring_fixtures import add_run, add_task

SECRET = "sk-test-4f9a8b7c6d5e4f3a2b1c"


@pytest.fixture
def scored(project, monkeypatch):
    """Two sources over three FWA tasks, scored by fwa-official's matchers (values from benchmarks.md §1.5)."""
    monkeypatch.setenv("FIELDSTUDIO_TEST_API_KEY", SECRET)
    t_dist = add_task(project, "2.3.0001", "12 meters", eval_func="numerical_match")
    t_time = add_task(project, "1.1.0001", "00:01:00", eval_func="numerical_match")
    t_yes = add_task(project, "1.1.0002", "Yes", eval_func="fuzzy_match")
    add_run(project, "alpha", {
        t_dist: {"raw_text": "1200 cm", "cost_usd": 0.25, "prompt_tokens": 1000, "completion_tokens": 20},
        t_time: {"raw_text": "00:01:30", "cost_usd": 0.25, "prompt_tokens": 1000, "completion_tokens": 20},
        t_yes: {"raw_text": f'=HYPERLINK("http://x") No, my key is {SECRET}', "cost_usd": 0.5,
                "prompt_tokens": 1000, "completion_tokens": 20}})
    add_run(project, "beta", {t_dist: "9 meters", t_time: "00:01:00", t_yes: "yes"})
    score_answers(project, "fs-match")
    return project, {"dist": t_dist, "time": t_time, "yes": t_yes}


# expected per-answer scores, by fs-match 2's rule (the same value 1, another value 0, anything else unscored):
# alpha 1200 cm = 12 m -> 1, 00:01:30 vs 00:01:00 -> 0, a formula and a sentence -> unscored;
# beta 9 vs 12 m -> 0, the same time -> 1, "yes" -> 1
EXPECTED = {("alpha", "2.3.0001"): 1.0, ("alpha", "1.1.0001"): 0.0, ("alpha", "1.1.0002"): float("nan"),
            ("beta", "2.3.0001"): 0.0, ("beta", "1.1.0001"): 1.0, ("beta", "1.1.0002"): 1.0}
SCORED = {k: v for k, v in EXPECTED.items() if not np.isnan(v)}


def summary_official(summary: pd.DataFrame) -> dict[str, str]:
    """{source: its official figure as printed} from an exported summary table."""
    return {r.source: str(r.official_printed) for r in summary.itertuples()}


def _check_answers(df: pd.DataFrame) -> None:
    assert list(df.columns) == ANSWER_COLUMNS
    got = {(r.source, str(r.external_id)): r.value for r in df.itertuples()}
    assert got == pytest.approx(EXPECTED, nan_ok=True)
    correct = {(r.source, str(r.external_id)): bool(r.correct) for r in df.itertuples() if not pd.isna(r.value)}
    assert correct == {k: v > 0.5 for k, v in SCORED.items()}
    assert set(df["scorer"]) == {"fs-match"} and set(df["scorer_version"].astype(str)) == {fs_match.VERSION}
    assert set(zip(df["source"], df["source_scored"], df["source_tasks"])) == {("alpha", 2, 3), ("beta", 3, 3)}
    assert dict(zip(df["source"], df["source_official"].round(4))) == {"alpha": 0.3333, "beta": 0.6667}
    assert all(str(t).startswith("official FieldWorkArena correctRate") for t in df["source_official_figure"])


def test_csv_round_trip(scored, tmp_path):
    project, _ = scored
    out = export_report(project, tmp_path / "scores.csv")
    assert out.format == "csv" and out.rows == 6
    df = pd.read_csv(tmp_path / "scores.csv", dtype={"external_id": str})
    _check_answers(df)
    assert SECRET not in (tmp_path / "scores.csv").read_text()
    assert "[redacted]" in (tmp_path / "scores.csv").read_text()


def test_parquet_round_trip(scored, tmp_path):
    project, _ = scored
    export_report(project, tmp_path / "scores.parquet")
    df = pd.read_parquet(tmp_path / "scores.parquet")
    _check_answers(df)
    assert df["cost_usd"].dtype == np.float64
    assert df.loc[df["source"] == "alpha", "cost_usd"].sum() == pytest.approx(1.0)


_NO_PYARROW = """
import sys
from importlib.abc import MetaPathFinder

class NoPyarrow(MetaPathFinder):  # as in the desktop bundle, which leaves pyarrow out
    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoPyarrow())
from pathlib import Path
from fieldstudio.compare.report_export import ReportError, export_report
from fieldstudio.store.project import Project

project, out = Project.open(sys.argv[1]), Path(sys.argv[2])
try:
    export_report(project, out / "scores.parquet")
except ReportError as exc:
    print("refused:", exc)
print("csv rows:", export_report(project, out / "scores.csv").rows)
print("xlsx rows:", export_report(project, out / "scores.xlsx").rows)
print("pyarrow loaded:", "pyarrow" in sys.modules)
"""


def test_parquet_without_pyarrow_says_what_to_install(scored, tmp_path):
    # the desktop bundle leaves pyarrow out: a fresh interpreter that cannot import it (pandas then keeps its
    # strings in Python objects) refuses Parquet clearly, writes nothing, and still exports CSV and XLSX
    import sys

    project, _ = scored
    out = tmp_path / "out"
    out.mkdir()
    run = subprocess.run([sys.executable, "-c", _NO_PYARROW, str(project.path), str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(f"refused: {out / 'scores.parquet'}: Parquet export needs pyarrow")
    assert "pip install 'fieldstudio[parquet]'" in lines[0] and "CSV or XLSX" in lines[0]
    assert lines[1:] == ["csv rows: 6", "xlsx rows: 6", "pyarrow loaded: False"]
    assert sorted(p.name for p in out.iterdir()) == ["scores.csv", "scores.xlsx"]
    _check_answers(pd.read_csv(out / "scores.csv", dtype={"external_id": str}))


def test_xlsx_sheets_and_text_not_formulas(scored, tmp_path):
    project, _ = scored
    path = tmp_path / "scores.xlsx"
    export_report(project, path)
    sheets = pd.read_excel(path, sheet_name=None, dtype={"external_id": str})
    assert set(sheets) == {"summary", "categories", "pairs", "answers", "notes", "official", "evidence",
                           "cost_per_correct"}
    official = sheets["official"]
    assert official[(official["source"] == "alpha") & (official["line"] == "figure")]["value"].tolist() == ["0.3333"]
    assert summary_official(sheets["summary"]) == {"alpha": "0.3333", "beta": "0.6667"}
    assert sheets["notes"]["note"].iloc[0].startswith("headline: unscored, failed and missing answers count 0")
    _check_answers(sheets["answers"])
    summary = sheets["summary"].set_index("source")
    assert summary.loc["alpha", "mean"] == pytest.approx((1.0 + 0.0) / 2)     # the mean of the scored
    assert summary.loc["beta", "mean"] == pytest.approx((0.0 + 1.0 + 1.0) / 3)
    ws = openpyxl.load_workbook(path)["answers"]
    cells = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith("=HYPER")]
    assert cells and all(c.data_type == "s" for c in cells)        # a model's text never becomes a formula


def test_json_per_source_and_category(scored, tmp_path, any_n_intervals):
    project, _ = scored
    export_report(project, tmp_path / "summary.json")
    data = json.loads((tmp_path / "summary.json").read_text())
    alpha = data["sources"]["alpha"]
    assert alpha["all"]["n"] == 2 and alpha["all"]["mean"] == pytest.approx(0.5)
    assert alpha["all"]["accuracy"] == pytest.approx(1 / 2) and alpha["all"]["cost_usd"] == pytest.approx(1.0)
    assert alpha["categories"]["1.1"]["mean"] == pytest.approx(0.0)
    assert alpha["categories"]["2.3"]["ci_low"] == pytest.approx(1.0)
    assert data["sources"]["beta"]["all"]["cost_usd"] is None           # no cost known at all
    # FieldWorkArena's own aggregation over the answered tasks: alpha 1 of 3 correct (its unscored answer counts
    # 0, as a failed judge reply), beta 2 of 3; labelled as its aggregation of fs-match's scores
    off = data["sources"]["alpha"]["official"]
    assert (off["official_printed"], off["answered"], off["scorer_is_official"]) == ("0.3333", 3, False)
    assert off["official_value"] == pytest.approx(1 / 3) and off["figure"] == "correctRate"
    assert {"group": "FWA_evaluator.py", "name": "1.1", "totalTaskNum": 2, "correctNum": 0, "correctRate": "0.0000",
            "totalScore": 0.0} in off["lines"]
    assert data["sources"]["beta"]["official"]["official_printed"] == "0.6667"
    assert data["sources"]["beta"]["all"]["cost_status"] == "unknown"
    assert set(data["sources"]["beta"]["all"]) >= {"n", "mean", "ci_low", "ci_high", "accuracy", "cost_usd"}


def test_html_is_self_contained_with_tables_plots_and_no_secret(scored, tmp_path):
    project, _ = scored
    path = tmp_path / "report.html"
    export_report(project, path)
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text
    assert not re.search(r'(src|href)\s*=\s*"(?!data:)', text)                # nothing loaded from outside
    assert f"fs-match {fs_match.VERSION}" in text and "<table" in text
    assert "<th>alpha</th>" in text and "<th>beta</th>" in text
    assert "0.333" in text and "0.667" in text                                # alpha's headline 1/3, beta's 2/3
    assert "Official figures" in text and "official FieldWorkArena correctRate 0.3333 over 3 answered" in text
    assert "1200 cm" in text and "9 meters" in text                         # the grid shows the answers
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 4          # scores per source with means, by category, against cost; the cost frontier
    for b64 in images:
        png = base64.b64decode(b64)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert width > 200 and height > 50


def test_export_is_atomic_and_errors_name_the_file(scored, tmp_path):
    project, _ = scored
    path = tmp_path / "out.csv"
    path.write_text("old")
    export_report(project, path)
    assert path.read_text().startswith("external_id,")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []   # no temp file left
    with pytest.raises(ReportError, match=r"out\.txt"):
        export_report(project, tmp_path / "out.txt")
    with pytest.raises(ReportError, match="does not exist"):
        export_report(project, tmp_path / "missing" / "out.csv")
    export_report(project, tmp_path / "data.bin", "parquet")
    assert len(pd.read_parquet(tmp_path / "data.bin")) == 6


def test_plots_saved_as_png_and_svg(scored, tmp_path):
    project, _ = scored
    c = build_comparison(project, "fs-match")
    png = plots.save_figure(plots.score_distribution(c.answers, c.summary, scorer_label=c.scorer_label),
                            tmp_path / "s.png")
    svg = plots.save_figure(plots.cost_vs_score(c.summary), tmp_path / "c.svg")
    plots.save_figure(plots.category_heatmap(c.category_table()), tmp_path / "h.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in svg.read_text()[:2000]
    assert "beta" in svg.read_text()                      # the cost plot names the sources it leaves out
    with pytest.raises(ValueError, match="gif"):
        plots.figure_bytes(plots.score_distribution(c.answers), "gif")


def test_redact_replaces_keys_and_secret_values():
    assert report.redact("key sk-abcdefgh12345678 end", []) == "key [redacted] end"
    assert report.redact("token hunter2hunter2", ["hunter2hunter2"]) == "token [redacted]"
    assert report.redact(3.5, []) == 3.5


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed (apt install chromium)")
def test_html_report_renders_with_its_plots_in_headless_chromium(scored, tmp_path):
    project, _ = scored
    page = tmp_path / "report.html"
    export_report(project, page)
    shot = tmp_path / "report.png"  # kept by pytest in its tmp folder for a person to look at
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1280,4000",
                    f"--screenshot={shot}", page.as_uri()], check=True, capture_output=True, timeout=120)
    rgb = cv2.cvtColor(cv2.imread(str(shot)), cv2.COLOR_BGR2RGB).astype(int)
    # matplotlib's first two default colours (tab:blue #1f77b4, tab:orange #ff7f0e) fill the bars and
    # markers of the plots: the browser must have drawn the embedded PNGs, not just the tables
    for colour in ((31, 119, 180), (255, 127, 14)):
        near = (np.abs(rgb - np.array(colour)).sum(axis=2) < 40).sum()
        assert near > 2000, (colour, near)


def test_redaction_check_over_all_texts_finds_what_redact_finds():
    assert not report_html._needs_redaction(["key sk-", "abcdefgh12345678"], [])   # never across two texts
    assert report_html._needs_redaction(["ok", "key sk-abcdefgh12345678 end"], [])
    assert report_html._needs_redaction(["token hunter2hunter2"], ["hunter2hunter2"])
    assert not report_html._needs_redaction(["hunter2", "hunter2"], ["hunter2hunter2"])
    assert not report_html._needs_redaction([], [])


def test_plot_shapes_carry_the_table_values(scored, any_n_intervals):
    project, _ = scored
    c = build_comparison(project, "fs-match")
    fig = plots.category_bars(c.by_category)
    from matplotlib.collections import LineCollection, PolyCollection

    bars = next(col for col in fig.axes[0].collections if isinstance(col, PolyCollection))
    lengths = sorted(round(float(p.vertices[:, 0].max()), 6) for p in bars.get_paths())
    # category means of the scored, by hand from EXPECTED: alpha 1.1 0 (one scored), 2.3 1; beta 1.1 1, 2.3 0
    assert lengths == [0.0, 0.0, 1.0, 1.0]
    fig = plots.score_distribution(c.answers)
    ax = fig.axes[0]
    boxes = next(col for col in ax.collections if isinstance(col, PolyCollection))
    medians = [col for col in ax.collections if isinstance(col, LineCollection)][1]
    for k, name in enumerate(["alpha", "beta"]):
        values = [v for (src, _), v in SCORED.items() if src == name]
        q1, med, q3 = np.percentile(values, [25, 50, 75])
        xs = boxes.get_paths()[k].vertices[:, 0]
        assert (xs.min(), xs.max()) == (pytest.approx(q1), pytest.approx(q3))
        assert medians.get_segments()[k][0][0] == pytest.approx(med)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["alpha", "beta"]
    # with the summary: each source's mean as a diamond, its interval as the error bar, n in the label
    ax = plots.score_distribution(c.answers, c.summary).axes[0]
    diamonds, _, (bars,) = ax.containers[0].lines             # errorbar's marker line, caps, bar lines
    assert diamonds.get_marker() == "D"
    assert list(diamonds.get_xdata()) == pytest.approx([np.mean([v for (s, _), v in SCORED.items() if s == name])
                                                        for name in ("alpha", "beta")])
    spans = [(seg[0][0], seg[1][0]) for seg in bars.get_segments()]
    assert spans == [(pytest.approx(c.summary.loc[n, "ci_low"]), pytest.approx(c.summary.loc[n, "ci_high"]))
                     for n in ("alpha", "beta")]
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"{n}\n({int(c.summary.loc[n, 'n'])}/3 scored)"
                                                            for n in ("alpha", "beta")]


def test_table_cells_show_large_numbers_in_full():
    from fieldstudio.compare.report_html import _fmt

    assert _fmt(900000.0) == "900,000" and _fmt(45000) == "45,000" and _fmt(1234.6) == "1,235"
    assert _fmt(1.0) == "1" and _fmt(0.010123) == "0.0101" and _fmt(999.4) == "999" and _fmt(-0.25) == "-0.25"
    assert _fmt(float("nan")) == "—" and _fmt(None) == "—" and _fmt(True) == "yes" and _fmt(12) == "12"


def test_long_source_names_are_shortened_in_plots(scored):
    long = "openrouter/anthropic/claude-3.5-sonnet-20241022 (vision, 4 frames)"
    short = plots.short_name(long)
    assert len(short) == plots.NAME_CHARS and short == long[:16] + "…" + long[-15:]
    assert plots.short_name("model-000") == "model-000"
    project, _ = scored
    c = build_comparison(project, "fs-match")
    answers = c.answers.assign(source=c.answers["source"].replace({"alpha": long}))
    summary = c.summary.rename(index={"alpha": long})
    labels = [t.get_text() for t in plots.score_distribution(answers, summary).axes[0].get_yticklabels()]
    # the distribution's labels have the coverage on a second line, and room for a longer name there
    wider = plots.short_name(long, plots.DISTRIBUTION_NAME_CHARS)
    assert len(wider) == plots.DISTRIBUTION_NAME_CHARS
    assert labels[0] == "beta\n(3/3 scored)" and labels[1].startswith(wider + "\n(2/")
    by_category = c.by_category.rename(index={"alpha": long}, level=0)
    legend = plots.category_bars(by_category).axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["beta\n(3/3 scored)", short + "\n(2/3 scored)"]


def test_cost_per_correct_in_json_csv_and_html(scored, tmp_path):
    """alpha paid $0.25 + $0.25 + $0.50 = $1.00 for one correct answer (1200 cm = 12 m): $1.00 per correct; beta's
    answers carry no cost: unknown, never $0."""
    project, _ = scored
    export_report(project, tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["cost_per_correct"]["alpha"]["all"]["cost_per_correct_usd"] == pytest.approx(1.0)
    assert data["cost_per_correct"]["beta"]["all"]["cost_per_correct"] == "unknown (0 of 3 answers priced)"
    export_report(project, tmp_path / "r.csv")
    df = pd.read_csv(tmp_path / "r.csv")
    assert set(zip(df["source"], df["source_cost_per_correct"])) == {
        ("alpha", "$1.0000 [n too small]"), ("beta", "unknown (0 of 3 answers priced)")}
    export_report(project, tmp_path / "r.html")
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<h2>Cost per correct answer</h2>" in text and "unknown (0 of 3 answers priced)" in text
