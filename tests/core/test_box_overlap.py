"""Intersection over union, non-maximum suppression and one-to-one matching of boxes (core/box_overlap.py), against
values worked out by hand."""

from __future__ import annotations

import pytest

from fieldstudio.core.box_overlap import box_iou, match_boxes, suppress


def test_iou_by_hand():
    # two 10 x 10 squares overlapping on 5 x 10 = 50: union 150
    assert box_iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)
    assert box_iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert box_iou((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0          # touching edges
    assert box_iou((0, 0, 10, 10), (2, 2, 4, 4)) == pytest.approx(4 / 100)


def test_suppress_keeps_the_best_of_each_overlapping_group():
    items = [((0, 0, 10, 10), 0.5), ((1, 0, 11, 10), 0.9), ((50, 50, 60, 60), 0.1)]
    # (1,0,11,10) vs (0,0,10,10): overlap 9 x 10 = 90, union 110: 0.82 > 0.45
    kept = suppress(items, 0.45, lambda i: i[0], lambda i: i[1])
    assert kept == [items[1], items[2]]
    assert suppress(items, 0.9, lambda i: i[0], lambda i: i[1]) == [items[1], items[0], items[2]]


def test_match_is_one_to_one_highest_iou_first():
    marked = [(0, 0, 10, 10), (20, 0, 30, 10)]
    found = [(1, 0, 11, 10), (0, 0, 10, 10), (100, 100, 110, 110)]
    # found[1] is marked[0] exactly (IoU 1) and wins it; found[0] overlaps only marked[0]: unmatched
    assert match_boxes(found, marked) == [(1, 0)]
    assert match_boxes([(0, 0, 10, 10)], [(5, 0, 15, 10)], min_iou=0.3) == [(0, 0)]
    assert match_boxes([(0, 0, 10, 10)], [(5, 0, 15, 10)], min_iou=0.5) == []
