"""Two coders compared: Cohen's kappa per time slice with BORIS's definitions (values worked out by hand below),
and events matched within a tolerance."""

from __future__ import annotations

import pytest

from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.annotations.behaviour.coder_agreement import cohen_kappa, match_events
from fieldstudio.core.errors import FieldstudioError


def ev(behaviour: str, start: float, stop: float | None, subject: str = "A", type_: str = "state",
       modifiers: tuple[str, ...] = ()) -> BehaviourEvent:
    return BehaviourEvent(id=f"{behaviour}{start}{subject}", media_id="m", behaviour=behaviour, subject=subject,
                          modifiers=modifiers, type=type_, frame_index=0, start_s=start,
                          end_frame_index=None if stop is None else 1, stop_s=stop, coder="")


def test_kappa_of_two_state_records_by_hand():
    a = [ev("walk", 0, 4), ev("lift", 5, 9)]
    b = [ev("walk", 0, 3), ev("lift", 4, 9)]
    r = cohen_kappa(a, b, 1.0)
    # slices t = 0..9 (start <= t <= stop): A walk 0-4, lift 5-9; B walk 0-3, lift 4-9
    # table: (walk, walk) 4, (walk, lift) 1, (lift, lift) 5; n 10, agreements 9
    # expected = 5 x 4 / 10 + 5 x 6 / 10 = 5; K = (9 - 5) / (10 - 5) = 0.8
    assert (r.slices, r.n, r.agreements) == (10, 10, 9)
    assert r.codes == (("lift",), ("walk",))
    assert r.table == ((5, 0), (1, 4))
    assert r.expected == pytest.approx(5.0) and r.kappa == pytest.approx(0.8)


def test_a_point_event_counts_within_half_a_slice():
    a = [ev("walk", 0, 4), ev("lift", 5, 9), ev("look", 2.2, 2.2, type_="point")]
    b = [ev("walk", 0, 3), ev("lift", 4, 9)]
    r = cohen_kappa(a, b, 1.0)
    # at t = 2 A codes (look, walk): |2.2 - 2| <= 0.5; B codes walk
    # agreements 8; A rows: walk 4, lift 5, look+walk 1; B columns: walk 4, lift 6, look+walk 0
    # expected = 4 x 4 / 10 + 5 x 6 / 10 = 4.6; K = (8 - 4.6) / (10 - 4.6)
    assert r.agreements == 8 and r.expected == pytest.approx(4.6)
    assert r.kappa == pytest.approx(3.4 / 5.4)


def test_subjects_each_count_modifiers_when_asked_and_full_agreement_is_one():
    a = [ev("walk", 0, 2, "A", modifiers=("fast",)), ev("walk", 0, 2, "B")]
    b = [ev("walk", 0, 2, "A", modifiers=("slow",)), ev("walk", 0, 2, "B")]
    plain = cohen_kappa(a, b, 1.0)
    assert (plain.slices, plain.n, plain.kappa) == (3, 6, 1.0)    # one code throughout: n == expected, K = 1
    modif = cohen_kappa(a, b, 1.0, with_modifiers=True)
    # codes walk [fast] / walk [slow] / walk; A: fast 3, walk 3; B: slow 3, walk 3; agreements 3
    # expected = 3 x 3 / 6 (walk) = 1.5; K = (3 - 1.5) / (6 - 1.5) = 1/3
    assert modif.kappa == pytest.approx(1 / 3)
    with pytest.raises(FieldstudioError, match="no events"):
        cohen_kappa(a, [], 1.0)
    with pytest.raises(FieldstudioError, match="1 ms or more"):
        cohen_kappa(a, b, 0)


def test_events_matched_within_the_tolerance_closest_first():
    a = [ev("lift", 1.0, 2), ev("lift", 5.0, 6), ev("walk", 3.0, 4)]
    b = [ev("lift", 1.4, 2), ev("lift", 5.9, 6), ev("walk", 3.0, 4, subject="B")]
    m = match_events(a, b, 0.5)
    assert [(x.start_s, y.start_s) for x, y, _ in m.pairs] == [(1.0, 1.4)]
    assert m.pairs[0][2] == pytest.approx(0.4)
    assert len(m.only_a) == 2 and len(m.only_b) == 2 and m.agreement == pytest.approx(2 / 6)
    near = match_events([ev("lift", 1.0, 2), ev("lift", 1.3, 2)], [ev("lift", 1.2, 2)], 0.5)
    assert [(x.start_s, y.start_s) for x, y, _ in near.pairs] == [(1.3, 1.2)] and near.only_a[0].start_s == 1.0


def test_needleman_wunsch_identity_by_hand():
    from fieldstudio.annotations.behaviour.coder_agreement import align_identity, needleman_wunsch_identity

    # X X Y / X Y Y: the diagonal scores 1 (two matches, one mismatch), any gap less: identity 2/3
    assert align_identity("XXY", "XYY") == pytest.approx(200 / 3)
    # A B C D / B C D E: shifted by one (A B C D - / - B C D E) scores 1 against -4 on the diagonal: 3 of 5
    assert align_identity("ABCD", "BCDE") == pytest.approx(60.0)
    assert align_identity("", "") == 100.0
    # the first kappa example's slices: A walk walk walk walk walk lift ... / B walk walk walk walk lift lift ...
    # W W W W W L L L L L / W W W W L L L L L L: the diagonal (9 of 10, score 8) beats every shift
    a = [ev("walk", 0, 4), ev("lift", 5, 9)]
    b = [ev("walk", 0, 3), ev("lift", 4, 9)]
    assert needleman_wunsch_identity(a, b, 1.0) == pytest.approx(90.0)


def _identity_by_recursion(a: str, b: str) -> float:
    """Needleman-Wunsch as its definition reads (memoised recursion over suffix scores, then the same tie rule:
    match or mismatch, then a gap in B, then a gap in A): an independent check of the vectorised rows."""
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def best(i: int, j: int) -> int:        # best score of a[:i] against b[:j]
        if i == 0 or j == 0:
            return -(i + j)
        return max(best(i - 1, j - 1) + (1 if a[i - 1] == b[j - 1] else -1), best(i - 1, j) - 1, best(i, j - 1) - 1)

    same = length = 0
    i, j = len(a), len(b)
    while i or j:
        length += 1
        if i and j and best(i, j) == best(i - 1, j - 1) + (1 if a[i - 1] == b[j - 1] else -1):
            same += a[i - 1] == b[j - 1]
            i, j = i - 1, j - 1
        elif i and best(i, j) == best(i - 1, j) - 1:
            i -= 1
        else:
            j -= 1
    return 100.0 * same / length if length else 100.0


def test_needleman_wunsch_identity_matches_the_recursive_definition():
    """600 random pairs of 0-14 codes from alphabets of 1-4 letters, empty ones included: the same identity."""
    import random

    from fieldstudio.annotations.behaviour.coder_agreement import align_identity

    rng = random.Random(32)
    for _ in range(600):
        letters = "WLPX"[:rng.randint(1, 4)]
        a = "".join(rng.choice(letters) for _ in range(rng.randint(0, 14)))
        b = "".join(rng.choice(letters) for _ in range(rng.randint(0, 14)))
        assert align_identity(a, b) == pytest.approx(_identity_by_recursion(a, b)), (a, b)


def test_a_slice_below_a_millisecond_or_making_over_a_million_slices_is_refused():
    """The tester's 1e-7 s slice divided by zero (times are kept to the microsecond); 1e-6 s on 4.7 s made 4.7 M
    slices. 0 to 1000 s at 1 ms is 1,000,001 slices: refused; at 1 s, 1,001: counted."""
    a, b = [ev("walk", 0, 1000)], [ev("walk", 0, 1000)]
    for tiny in (0.0000001, 0.0009, 0.0, -1.0):
        with pytest.raises(FieldstudioError, match="1 ms or more"):
            cohen_kappa(a, b, tiny)
    with pytest.raises(FieldstudioError, match=r"makes 1,000,001 slices .* over 1,000,000: choose a slice of "
                                               r"0\.001 s or more"):
        cohen_kappa(a, b, 0.001)
    assert cohen_kappa(a, b, 1.0).slices == 1001
