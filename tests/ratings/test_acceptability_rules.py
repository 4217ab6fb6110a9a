"""The programmatic acceptability scorer: terms, gray band, tuning on synthetic raters, held-out report by hand,
and the project service on real sample photos and their blurred copies."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from fieldstudio.media import library
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings.acceptability import rules as ar
from fieldstudio.ratings.acceptability import service as acceptability
from fieldstudio.store.models import Annotation
from tests.support.rating_media import SAMPLE

GOOD = {"sharpness_norm": 120.0, "box_in_frame": True, "box_area_share": 0.2, "occluded_fraction": 0.0,
        "highlights_clipped": 0.001, "shadows_clipped": 0.0}


def test_parse_term_forms_and_errors():
    t = ar.parse_term("highlights_clipped <= 0.02 ± 0.005")
    assert (t.measure, t.op, t.threshold, t.gray, t.name) == ("highlights_clipped", "<=", 0.02, 0.005,
                                                               "highlights_clipped <= 0.02")
    assert ar.parse_term("sharpness_norm >= 50 +- 10").gray == 10
    assert ar.parse_term("box_in_frame").op == "true" and ar.parse_term("not box_in_frame").op == "false"
    for bad, match in [("sharpnes >= 3", "unknown measure"), ("sharpness_norm => 3", "cannot read"),
                       ("not sharpness_norm >= 3", "yes/no"), ("sharpness_norm >= 3 ± -1", "cannot read")]:
        with pytest.raises(ar.RulesError, match=match):
            ar.parse_term(bad)


def test_verdict_lists_failing_terms_with_checklist_reasons():
    assert ar.evaluate(ar.DEFAULT_RULES, GOOD).verdict == "accept"
    v = ar.evaluate(ar.DEFAULT_RULES, {**GOOD, "sharpness_norm": 12.0, "box_in_frame": False, "box_area_share": 0.02})
    assert v.verdict == "reject"
    assert v.failing == ["sharpness_norm >= 50", "box_in_frame", "box_area_share >= 0.05"]
    assert v.reasons == ["blurry", "target out of frame", "too far"]
    assert "sharpness_norm >= 50: 12 fail" in v.explanation
    # inside a gray band -> unsure (undecided), unless another term fails outright
    gray = ar.evaluate(ar.DEFAULT_RULES, {**GOOD, "sharpness_norm": 55.0})
    assert (gray.verdict, gray.undecided, gray.failing) == ("unsure", ["sharpness_norm >= 50"], [])
    both = ar.evaluate(ar.DEFAULT_RULES, {**GOOD, "sharpness_norm": 55.0, "occluded_fraction": 0.6})
    assert (both.verdict, both.reasons) == ("reject", ["occluded"])
    # band edges: |v - t| <= g is gray; just outside decides
    assert ar.evaluate(ar.DEFAULT_RULES, {**GOOD, "sharpness_norm": 60.0}).verdict == "unsure"
    assert ar.evaluate(ar.DEFAULT_RULES, {**GOOD, "sharpness_norm": 60.01}).verdict == "accept"
    assert ar.evaluate(ar.DEFAULT_RULES, {**GOOD, "sharpness_norm": 39.99}).verdict == "reject"
    # an unknown measure leaves the item undecided
    partial = {k: v for k, v in GOOD.items() if k != "occluded_fraction"}
    assert ar.evaluate(ar.DEFAULT_RULES, partial).verdict == "unsure"


def test_split_is_seeded_and_sixty_forty():
    ids = [f"item{i:02d}" for i in range(50)]
    train, test = ar.split_items(ids, seed=4)
    assert (len(train), len(test)) == (30, 20) and set(train) | set(test) == set(ids)
    assert ar.split_items(list(reversed(ids)), seed=4) == (train, test)          # order of input is irrelevant
    assert ar.split_items(ids, seed=5) != (train, test)


def synthetic(n: int, rng: np.random.Generator, flip: float) -> tuple[dict, dict]:
    """Items whose true verdict is sharpness_norm >= 0.35 and highlights_clipped <= 0.02; 3 raters, each
    flipping the truth with probability ``flip``."""
    measures, table = {}, {}
    for i in range(n):
        s, h = float(rng.uniform(0, 1)), float(rng.uniform(0, 0.05))
        truth = s >= 0.35 and h <= 0.02
        measures[f"i{i:04d}"] = {**GOOD, "sharpness_norm": s, "highlights_clipped": h}
        table[f"i{i:04d}"] = {r: ("accept" if (truth != (rng.random() < flip)) else "reject") for r in "abc"}
    return measures, table


def test_tuning_recovers_known_thresholds_from_noisy_raters():
    measures, table = synthetic(600, np.random.default_rng(11), flip=0.1)
    start = ar.Rules((ar.parse_term("sharpness_norm >= 0.8"), ar.parse_term("highlights_clipped <= 0.045"),
                      ar.parse_term("box_in_frame")))
    report = ar.tune(start, measures, table, seed=2, n_resamples=300)
    s_term, h_term, _ = report.rules.terms
    assert s_term.threshold == pytest.approx(0.35, abs=0.03)
    assert h_term.threshold == pytest.approx(0.02, abs=0.002)
    assert (len(report.train_ids), len(report.test_ids)) == (360, 240)
    assert report.test["agreement"].estimate > 0.9
    assert report.rules.tuned["seed"] == 2 and report.rules.tuned["n_train"] == 360
    # deterministic with a seed
    again = ar.tune(start, measures, table, seed=2, n_resamples=300)
    assert again.rules.terms == report.rules.terms and again.test == report.test


def test_heldout_report_matches_a_hand_computation():
    rules = ar.Rules((ar.parse_term("sharpness_norm >= 50 ± 5"), ar.parse_term("box_in_frame")))
    # (sharpness, in frame, rater votes) -> rules verdict, majority
    rows = {
        "a": (80, True, "AAR"),    # accept, accept -> TP
        "b": (90, True, "AAA"),    # accept, accept -> TP
        "c": (70, True, "RRA"),    # accept, reject -> FP
        "d": (20, True, "RRR"),    # reject, reject -> TN
        "e": (30, True, "ARR"),    # reject, reject -> TN
        "f": (10, True, "AAR"),    # reject, accept -> FN
        "g": (52, True, "AAA"),    # gray -> unsure: left out
        "h": (99, False, "RRA"),   # reject (out of frame), reject -> TN
        "i": (99, True, "AR"),     # tie: left out
    }
    measures = {k: {"sharpness_norm": float(s), "box_in_frame": f} for k, (s, f, _) in rows.items()}
    table = {k: {f"r{j}": {"A": "accept", "R": "reject"}[c] for j, c in enumerate(v)} for k, (_, _, v) in rows.items()}
    metrics, unsure, raters = ar.heldout_report(rules, measures, table, sorted(rows), n_resamples=300)
    # TP 2, FP 1, FN 1, TN 3 over 7 decided items
    assert unsure == 1
    assert metrics["agreement"].estimate == pytest.approx(5 / 7) and metrics["agreement"].n == 7
    assert metrics["precision"].estimate == pytest.approx(2 / 3)
    assert metrics["recall"].estimate == pytest.approx(2 / 3)
    assert metrics["f1"].estimate == pytest.approx(2 / 3)
    assert metrics["false_accept_rate"].estimate == pytest.approx(1 / 4)
    assert metrics["miss_rate"].estimate == pytest.approx(1 / 3)
    # rater r2 against the majority of r0 and r1 (ties of the others left out):
    # a R vs A, b A vs A, c A vs R, d R vs R, e R vs tie(A,R), f R vs A, g A vs A, h A vs R -> 3 of 7
    assert (raters["r2"].n, raters["r2"].agree, raters["r2"].ties) == (7, 3, 1)


def test_rules_save_and_load(tmp_path):
    rules = ar.Rules(ar.DEFAULT_RULES.terms, {"seed": 3, "date": "2026-01-01T00:00:00+00:00"})
    path = tmp_path / "rules.json"
    ar.save_rules(rules, path)
    assert ar.load_rules(path) == rules
    path.write_text('{"terms": ["sharpness_norm >= 40", "not box_in_frame"]}')
    assert [t.name for t in ar.load_rules(path).terms] == ["sharpness_norm >= 40", "not box_in_frame"]
    path.write_text('{"terms": [{"measure": "blur", "op": ">="}]}')
    with pytest.raises(ar.RulesError, match="rules.json: unknown measure 'blur'"):
        ar.load_rules(path)
    with pytest.raises(ar.RulesError, match="cannot be read"):
        ar.load_rules(tmp_path / "missing.json")


# --------------------------------------------------------------------------- on a project, real photos

ELECTRICIANS = "ppe_electricians_hardhat_vest_wire_room_mta.jpg"
GROCERY = "retail_grocery_Bravo-Orange-Juice_024.jpg"


def blurred_copies(tmp_path: Path) -> list[Path]:
    """The real photos and Gaussian-blurred copies of them (sigma in source pixels)."""
    out = []
    for name, sigmas in ((ELECTRICIANS, (0, 8, 16)), (GROCERY, (0, 4))):
        src = SAMPLE / "images" / name
        if not src.exists():
            pytest.skip(f"sample photo {src} is missing")
        bgr = cv2.imread(str(src))
        for sigma in sigmas:
            path = tmp_path / f"{Path(name).stem}_blur{sigma}.png"
            cv2.imwrite(str(path), bgr if sigma == 0 else cv2.GaussianBlur(bgr, (0, 0), sigma))
            out.append(path)
    return out


def test_scoring_a_rating_set_of_real_photos(project, tmp_path):
    paths = blurred_copies(tmp_path)
    library.add_paths(project, paths)
    ids = [library.find_media(project, p.name).id for p in paths]
    ratings.create_rating_set(project, "sharp", "The label is sharp enough to read")
    ratings.add_items(project, "sharp", ids)
    items = ratings.list_items(project, "sharp")
    # the target box on the grocery photo is marked by an annotation; another box covers part of it
    grocery = library.find_media(project, f"{Path(GROCERY).stem}_blur0.png")
    with project.write() as s:
        s.add(Annotation(media_id=grocery.id, kind="box", geometry=[50.0, 60.0, 250.0, 300.0],
                         attributes={"target": True}))
        s.add(Annotation(media_id=grocery.id, kind="box", geometry=[200.0, 200.0, 348.0, 348.0]))
    measured = {m.item_id: m for m in acceptability.measure_rating_set(project, "sharp")}
    g = measured[items[3].id]
    assert g.target_source == "annotation marked target" and g.target_box == [50.0, 60.0, 250.0, 300.0]
    # by hand: 200 x 240 px of a 348 x 348 frame; the other box covers 50 x 100 px of it
    assert g.measures["box_area_share"] == pytest.approx(200 * 240 / 348 ** 2)
    assert g.measures["occluded_fraction"] == pytest.approx(50 * 100 / (200 * 240))
    assert measured[items[0].id].target_source == "whole frame"

    report = acceptability.score_rating_set(project, "sharp")
    verdicts = {i.label: report.verdicts[i.id] for i in items}
    # sharpness_norm measured: electricians 608 / sigma 8: 43 (gray band 40..60) / sigma 16: 5; grocery 188 / sigma 4: 3
    assert [verdicts[i.label].verdict for i in items] == ["accept", "unsure", "reject", "accept", "reject"]
    assert verdicts[items[2].label].reasons == ["blurry"]
    _, sources = ratings.verdict_tables(project, "sharp")
    assert sources[acceptability.SOURCE][items[2].id] == "reject"
    # the raters accept the sigma-16 copy (2 of 3) and reject the sharp grocery photo: both are listed
    for rater, votes in (("ana", "AARRR"), ("ben", "ARARR"), ("cy", "RUAAR")):
        for item, v in zip(items, votes):
            ratings.record_rating(project, item.id, rater, {"A": "accept", "R": "reject", "U": "unsure"}[v])
    found = acceptability.disagreements(project, "sharp")
    assert [(d.item.position, d.majority, d.verdict) for d in found] == [(2, "accept", "reject"),
                                                                       (3, "reject", "accept")]
    assert found[0].failing == ["sharpness_norm >= 50"] and found[0].target_box is None
    assert found[1].target_box == [50.0, 60.0, 250.0, 300.0] and found[1].measures["box_area_share"] > 0.39


def test_tuning_on_a_project_stores_the_rules(project, tmp_path):
    paths = blurred_copies(tmp_path)
    library.add_paths(project, paths)
    ratings.create_rating_set(project, "sharp", "sharp")
    ratings.add_items(project, "sharp", [library.find_media(project, p.name).id for p in paths])
    items = ratings.list_items(project, "sharp")
    votes = ["accept", "reject", "reject", "accept", "reject"]
    for rater in ("ana", "ben", "cy"):
        for item, verdict in zip(items, votes):
            ratings.record_rating(project, item.id, rater, verdict)
    report = acceptability.tune_rating_set(project, "sharp", seed=1, n_resamples=200)
    assert len(report.train_ids) == 3 and len(report.test_ids) == 2
    stored = acceptability.rules_of(project, "sharp")
    assert stored == report.rules and stored.tuned["seed"] == 1
    # the tuned sharpness threshold separates the training items the raters split
    assert report.train_agreement == 1.0


def test_measuring_reports_progress_and_stops_when_cancelled(project, tmp_path):
    paths = blurred_copies(tmp_path)
    library.add_paths(project, paths)
    ratings.create_rating_set(project, "sharp", "sharp")
    ratings.add_items(project, "sharp", [library.find_media(project, p.name).id for p in paths])
    seen: list[tuple[int, int]] = []
    measured = acceptability.measure_rating_set(project, "sharp", progress=lambda d, t: seen.append((d, t)),
                                                cancelled=lambda: len(seen) >= 2)
    assert len(measured) == 2 and seen == [(1, 5), (2, 5)]
    # a missing file stops only its own item
    paths[0].unlink()
    measured = acceptability.measure_rating_set(project, "sharp")
    assert measured[0].measures is None and "blur0.png" in measured[0].error
    assert all(m.measures is not None for m in measured[1:])
