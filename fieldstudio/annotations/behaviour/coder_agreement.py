"""Two coders' records of one video compared: Cohen's kappa per time slice, and events matched within a tolerance.

**Kappa (time-unit), with BORIS's definitions** (its ``irr.cohen_kappa``; read, not copied): the slices start at
the first event's start (either coder, the chosen subjects) and step by ``slice_s`` while the time is <= the last
event's stop. At each slice time ``t`` and for each subject, a coder's code is the set of behaviours (with their
modifiers when asked) of the state events with start <= t <= stop and the point events with |start - t| <=
slice_s / 2 (an empty set is a code too: "nothing"). The codes of the two coders fill a contingency table;
kappa = (agreements - expected) / (n - expected), expected = sum over codes of row total x column total / n, and
1 when n equals expected (one code throughout). One difference: BORIS's code is a list in its database's order,
here it is sorted, so two coders who coded the same overlapping states in a different order agree.
Times are handled as decimals to the microsecond, as BORIS steps in ``Decimal``, so a slice falling exactly on a
start or a stop is counted the same way every time. A state event still running counts to the last stop.

**Needleman-Wunsch identity** (BORIS's second figure): the per-slice codes of all subjects form one sequence per
coder; the two are aligned globally (match +1, mismatch -1, gap -1) and the identity is the share of aligned
positions that hold the same codes, in %.

**Event matching** (BORIS's identity aligns per-slice codes, not events; this is fieldstudio's own, documented
rule): an event of coder A matches an event of coder B when both have the same subject and
behaviour and their starts differ by at most ``tolerance_s``; pairs are taken closest first, each event used once.
``agreement`` = 2 x matched / (events of A + events of B).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import numpy as np

from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.core.errors import FieldstudioError

Code = tuple[str, ...]


@dataclass(frozen=True)
class KappaResult:
    """Cohen's kappa over ``slices`` time slices x subjects (``n`` = cells counted); ``agreements`` cells
    where both coders gave the same code, ``expected`` by chance; ``codes`` the distinct codes (sorted) and
    ``table[i][j]`` the cells where coder A gave ``codes[i]`` and coder B ``codes[j]``."""

    kappa: float
    slice_s: float
    slices: int
    n: int
    agreements: int
    expected: float
    codes: tuple[Code, ...]
    table: tuple[tuple[int, ...], ...]
    first_s: float
    last_s: float

    @property
    def observed_agreement(self) -> float:
        return self.agreements / self.n if self.n else 0.0


@dataclass(frozen=True)
class MatchResult:
    """Events matched within ``tolerance_s``: ``pairs`` (A's event, B's event, start difference s), and the events
    of each coder left without a match."""

    tolerance_s: float
    pairs: tuple[tuple[BehaviourEvent, BehaviourEvent, float], ...]
    only_a: tuple[BehaviourEvent, ...]
    only_b: tuple[BehaviourEvent, ...]

    @property
    def agreement(self) -> float:
        """2 x matched / (events of A + events of B); 1.0 when neither coded anything."""
        total = 2 * len(self.pairs) + len(self.only_a) + len(self.only_b)
        return 1.0 if total == 0 else 2 * len(self.pairs) / total


#: The shortest time slice (s) and the most slices of one comparison (each slice holds a code per subject and coder).
MIN_SLICE_S = 0.001
MAX_SLICES = 1_000_000


def _dec(seconds: float) -> Decimal:
    return Decimal(f"{seconds:.6f}")


def _slices(a: Sequence[BehaviourEvent], b: Sequence[BehaviourEvent], slice_s: float,
            subjects: Sequence[str] | None, with_modifiers: bool):  # noqa: ANN202 - see the return line
    """The slice times of the module's rule and, per slice, each coder's codes of every subject:
    ``(first, last, [(codes of A per subject, codes of B per subject), ...], subjects)``."""
    if not slice_s >= MIN_SLICE_S:
        raise FieldstudioError(f"the time slice must be {MIN_SLICE_S * 1000:g} ms or more, not {slice_s:g} s "
                               "(times are kept to the microsecond, and a frame lasts several milliseconds)")
    if subjects is None:
        subjects = sorted({e.subject for e in (*a, *b)})
    a = [e for e in a if e.subject in subjects]
    b = [e for e in b if e.subject in subjects]
    for name, evs in (("A", a), ("B", b)):
        if not evs:
            raise FieldstudioError(f"coder {name} has no events for the chosen subjects; nothing to compare")
    both = [*a, *b]
    first = min(_dec(e.start_s) for e in both)
    last = max(_dec(e.start_s if e.stop_s is None else e.stop_s) for e in both)
    step = _dec(slice_s)
    n = _slice_index(last - first, step, ROUND_FLOOR) + 1
    if n > MAX_SLICES:
        # every slice holds a code per subject and coder: millions of them take minutes and gigabytes
        raise FieldstudioError(f"a {slice_s:g} s slice makes {n:,} slices from {first} s to {last} s, over "
                               f"{MAX_SLICES:,}: choose a slice of {float(last - first) / MAX_SLICES:.4g} s or more")
    where = {subject: k for k, subject in enumerate(subjects)}
    out = []
    for events in (a, b):
        # each event put on the slices it covers (not each slice asked about every event): a long observation
        # with thousands of events stays linear in events + slices
        codes: list[list[list[str]]] = [[[] for _ in subjects] for _ in range(n)]
        for e in events:
            start = _dec(e.start_s)
            if e.type == "point":
                lo, hi = start - step / 2 - first, start + step / 2 - first
            else:
                lo, hi = start - first, (last if e.stop_s is None else _dec(e.stop_s)) - first
            name = e.behaviour + (f" [{'|'.join(e.modifiers)}]" if with_modifiers and e.modifiers else "")
            for i in range(max(_slice_index(lo, step, ROUND_CEILING), 0), min(_slice_index(hi, step, ROUND_FLOOR),
                                                                             n - 1) + 1):
                codes[i][where[e.subject]].append(name)
        out.append([tuple(tuple(sorted(c)) for c in per_subject) for per_subject in codes])
    return first, last, list(zip(out[0], out[1])), subjects


def _slice_index(offset: Decimal, step: Decimal, rounding: str) -> int:
    """``offset / step`` rounded (ROUND_FLOOR or ROUND_CEILING) to a slice number, in exact decimals."""
    return int((offset / step).to_integral_value(rounding=rounding))


def cohen_kappa(a: Sequence[BehaviourEvent], b: Sequence[BehaviourEvent], slice_s: float, *,
                subjects: Sequence[str] | None = None, with_modifiers: bool = False) -> KappaResult:
    """Cohen's kappa of coder A's events ``a`` against coder B's ``b`` per ``slice_s`` seconds (the module's
    rule); ``subjects``: the subjects counted (default: every subject either coded). Raises FieldstudioError for a
    slice <= 0 or when a coder has no events."""
    first, last, slices, _subjects = _slices(a, b, slice_s, subjects, with_modifiers)
    pairs: list[tuple[Code, Code]] = [pair for codes_a, codes_b in slices for pair in zip(codes_a, codes_b)]
    codes = tuple(sorted({c for pair in pairs for c in pair}))
    where = {c: i for i, c in enumerate(codes)}
    table = [[0] * len(codes) for _ in codes]
    for ca, cb in pairs:
        table[where[ca]][where[cb]] += 1
    n = len(pairs)
    agreements = sum(table[i][i] for i in range(len(codes)))
    rows = [sum(r) for r in table]
    cols = [sum(table[i][j] for i in range(len(codes))) for j in range(len(codes))]
    expected = sum(rows[i] * cols[i] / n for i in range(len(codes)))
    kappa = 1.0 if n - expected == 0 else (agreements - expected) / (n - expected)
    return KappaResult(kappa=kappa, slice_s=slice_s, slices=len(slices), n=n, agreements=agreements,
                       expected=expected, codes=codes, table=tuple(tuple(r) for r in table), first_s=float(first),
                       last_s=float(last))


#: The longest sequences aligned (slices): the alignment takes time and memory as the square of their length.
MAX_ALIGNED_SLICES = 1000


def align_identity(seq_a: Sequence, seq_b: Sequence) -> float:
    """Needleman-Wunsch global alignment of two sequences (match +1, mismatch -1, gap -1, the scores of BORIS's
    ``needleman_wunsch_identity``), traced back preferring a match or mismatch, then a gap in B, then a gap in A;
    the identity is the aligned positions holding the same element / the alignment's length x 100."""
    number: dict = {}
    codes_a = np.array([number.setdefault(x, len(number)) for x in seq_a], dtype=np.int64)
    codes_b = np.array([number.setdefault(x, len(number)) for x in seq_b], dtype=np.int64)
    m, n = len(codes_a), len(codes_b)
    equal = codes_a[:, None] == codes_b[None, :]                      # (m, n): position i-1 of A is j-1 of B
    step = np.where(equal, 1, -1)
    score = np.empty((m + 1, n + 1), dtype=np.int64)
    score[0] = -np.arange(n + 1)
    column = np.arange(n + 1)
    for i in range(1, m + 1):
        # row[j] = max(above[j-1] + step, above[j] - 1, row[j-1] - 1); the last term, a run of gaps in A, is a
        # running maximum of (best of the first two + j) less j: one numpy pass a row instead of a Python loop
        above = score[i - 1]
        best = np.empty(n + 1, dtype=np.int64)
        best[0] = -i
        np.maximum(above[:-1] + step[i - 1], above[1:] - 1, out=best[1:])
        score[i] = np.maximum.accumulate(best + column) - column
    same = length = 0
    i, j = m, n
    while i > 0 or j > 0:
        length += 1
        if i > 0 and j > 0 and score[i, j] == score[i - 1, j - 1] + step[i - 1, j - 1]:
            same += bool(equal[i - 1, j - 1])
            i, j = i - 1, j - 1
        elif i > 0 and score[i, j] == score[i - 1, j] - 1:
            i -= 1
        else:
            j -= 1
    return 100.0 * same / length if length else 100.0


def needleman_wunsch_identity(a: Sequence[BehaviourEvent], b: Sequence[BehaviourEvent], slice_s: float, *,
                              subjects: Sequence[str] | None = None, with_modifiers: bool = False) -> float | None:
    """BORIS's Needleman-Wunsch identity (%) of two coders: the sequences of each slice's codes (all subjects at
    once; slices as for the kappa) aligned by :func:`align_identity`. None when there are more than
    :data:`MAX_ALIGNED_SLICES` slices (choose a longer slice)."""
    _first, _last, slices, _subjects = _slices(a, b, slice_s, subjects, with_modifiers)
    if len(slices) > MAX_ALIGNED_SLICES:
        return None
    return align_identity([codes_a for codes_a, _ in slices], [codes_b for _, codes_b in slices])


def match_events(a: Sequence[BehaviourEvent], b: Sequence[BehaviourEvent], tolerance_s: float) -> MatchResult:
    """Coder A's events matched to coder B's: same subject and behaviour, starts within ``tolerance_s`` seconds,
    closest pairs first. Raises FieldstudioError for a negative tolerance."""
    if tolerance_s < 0:
        raise FieldstudioError(f"the tolerance must be 0 s or more, not {tolerance_s}")
    candidates = sorted(
        ((abs(x.start_s - y.start_s), i, j) for i, x in enumerate(a) for j, y in enumerate(b)
         if x.subject == y.subject and x.behaviour == y.behaviour and abs(x.start_s - y.start_s) <= tolerance_s + 1e-9),
        key=lambda c: (c[0], c[1], c[2]))
    used_a: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    for diff, i, j in candidates:
        if i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        pairs.append((a[i], b[j], b[j].start_s - a[i].start_s))
    pairs.sort(key=lambda p: p[0].start_s)
    return MatchResult(tolerance_s, tuple(pairs), tuple(e for i, e in enumerate(a) if i not in used_a),
                       tuple(e for j, e in enumerate(b) if j not in used_b))
