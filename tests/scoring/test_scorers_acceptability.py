"""Acceptability metrics on a hand-computed confusion matrix, and documentation fields (benchmarks.md §4.1-4.2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fieldstudio.scoring.scorers import acceptability as acc, documentation as doc


def _pairs():
    # (model, reference): TP x6, FP x2, FN x3, TN x4, gray x2, no verdict x1
    return ([("accept", "accept")] * 6 + [("accept", "reject")] * 2 + [("reject", "acceptable")] * 3
            + [("reject", "reject")] * 4 + [("accept", "gray"), ("reject", "unsure")] + [(None, "accept")])


def test_confusion_matrix_by_hand():
    m = acc.acceptability_metrics(_pairs())
    assert (m.tp, m.fp, m.fn, m.tn, m.gray_excluded, m.no_verdict) == (6, 2, 3, 4, 2, 1)
    assert m.precision == pytest.approx(6 / 8)
    assert m.recall == pytest.approx(6 / 9)
    assert m.f1 == pytest.approx(2 * 0.75 * (2 / 3) / (0.75 + 2 / 3))     # = 12/17
    assert m.f1 == pytest.approx(12 / 17)
    assert m.false_accept_rate == pytest.approx(2 / 6)
    assert m.miss_rate == pytest.approx(3 / 9) and m.miss_rate == pytest.approx(1 - m.recall)
    assert m.accuracy == pytest.approx(10 / 15)


def test_zero_denominators_are_undefined():
    m = acc.acceptability_metrics([("reject", "reject"), ("reject", "reject")])
    assert m.precision is None and m.recall is None and m.f1 is None and m.miss_rate is None
    assert m.false_accept_rate == 0.0


def test_per_item_score():
    assert acc.score("accept", "reject").details["outcome"] == "FP"
    assert acc.score("reject", "accept").value == 0.0
    assert acc.score("accept", "accept").value == 1.0
    assert acc.score("accept", "gray").value is None
    assert acc.score("unsure", "accept").value is None


@pytest.mark.parametrize("text, inches", [
    ('3 5/8"', Fraction(29, 8)), ("3-5/8 in", Fraction(29, 8)), ("3.625 in", Fraction(29, 8)),
    ("5/8", Fraction(5, 8)), ("1 ft 2 in", Fraction(14)), ("25.4 mm", Fraction(1)),
])
def test_parse_inches(text, inches):
    assert doc.parse_inches(text) == inches


@pytest.mark.parametrize("kind, pred, ref, ok", [
    ("tape", '3 1/2"', '3 5/8"', True),      # off by exactly 1/8 in: inclusive
    ("tape", '3 3/8"', '3 5/8"', False),     # 1/4 in
    ("gap", '1/4"', '1/2"', True),
    ("gap", '1/8"', '1/2"', False),
    ("gauge", "12.2", "12.4°", True),        # exactly 0.2 degrees
    ("gauge", "12.1 deg", "12.4", False),
    ("label", "  PANEL  A ", "panel a.", True),
    ("label", "panel b", "panel a", False),
])
def test_fields(kind, pred, ref, ok):
    assert doc.match_field(kind, pred, ref).matched is ok


def test_float_boundary_would_fail_without_fractions():
    assert abs(12.2 - 12.4) > 0.2                    # floats put this just outside the tolerance
    assert doc.match_field("gauge", "12.2", "12.4").matched is True


def test_breaker_table_any_order_extra_rows_free():
    ref = [{"circuit": "1", "label": "Lights"}, {"circuit": "2", "label": "Kitchen"}, {"circuit": "3", "label": "Dryer"}]
    pred = [{"circuit": "3", "label": "dryer"}, {"circuit": "9", "label": "Spare"}, {"circuit": "1", "label": "lights"}]
    value, pairs = doc.match_table(pred, ref)
    assert value == pytest.approx(2 / 3)
    assert pairs == [(0, 2), (2, 0)]
    assert doc.match_table(pred + [{"circuit": "2", "label": "Kitchen"}], ref)[0] == 1.0
    # one predicted row can match only one reference row
    dup = [{"circuit": "1", "label": "x"}, {"circuit": "1", "label": "x"}]
    assert doc.match_table([{"circuit": "1", "label": "x"}], dup)[0] == 0.5


def test_documentation_score():
    r = doc.score({"tape": ("tape", '3 1/2"', '3 5/8"'), "gauge": ("gauge", "13", "12.4"),
                   "breakers": ("table", [{"c": "1"}], [{"c": "1"}, {"c": "2"}])})
    assert r.value == pytest.approx((1 + 0 + 0.5) / 3)
