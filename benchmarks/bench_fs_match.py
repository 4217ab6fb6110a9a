"""fs-match over FieldWorkArena's 886 references: its speed against a plain `str ==`, its decided shares and its false accepts.

Run with ``python benchmarks/bench_fs_match.py``. The answers are built from every reference in
``fieldworkarena/ground_truth`` of the shared data (``FIELDSTUDIO_SHARED_DATA``, else ``../shared/data``), or, in a
clone without it, from 886 generated FieldWorkArena-shaped references (``generated_tasks.py``, our own texts in
FieldWorkArena's shapes and mix, made once in ``benchmarks/_work/inputs``): a copy,
"The answer is X.", and every form of ``tests/support/wrong_answers.py`` (negations in several languages, jokes,
emoji, homoglyphs, hedges, second values, ranges, units of another kind, reversed yes/no with a reason; about
40,000 answers). Figures (issue 31 item 1):

- fs-match's time over all the answers against comparing each answer with its reference by ``str ==`` in the
  same run (target <= 400x: the grammar normalises and parses each answer; ``==`` does nothing but compare),
  the median of 5 passes, each with fs-match's per-reference cache emptied first. Both are timed in this process's
  CPU seconds (``time.process_time``), not wall seconds: the ``==`` pass lasts ~2 ms and mostly runs within one
  time slice, fs-match's ~0.3 s is shared with every other process, so on a loaded machine a wall-clock ratio
  grew with the load (168x quiet, 1159x beside three busy processes on two cores, same code);
- the share of copies decided and correct (target 1.0) and of "The answer is X." (target 1.0);
- the wrong answers fs-match scored correct (target 0, an absolute count).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import generated_tasks, targets, work_folders  # noqa: E402
from fieldstudio.scoring.scorers import fs_match  # noqa: E402
from tests.support.shared_data import SHARED_DATA  # noqa: E402
from tests.support.wrong_answers import WRONG_FORMS, fieldworkarena_references  # noqa: E402

PASSES = 5
N_REFERENCES = 886
"""FieldWorkArena's task count: the generated references stand in for its 886 when its files are not here."""


def references() -> tuple[list[tuple[str, str, str]], str]:
    """(task id, eval_func, reference) of FieldWorkArena's own ground truth when the shared data holds it, else of
    N_REFERENCES generated ones (made once); and what they are."""
    ground_truth = SHARED_DATA / "fieldworkarena" / "ground_truth"
    refs = fieldworkarena_references(ground_truth) if ground_truth.is_dir() else []
    if refs:
        return refs, f"FieldWorkArena's ground truth in {ground_truth}"

    def make(folder: Path) -> None:
        folder.mkdir()
        generated_tasks.fieldworkarena_tasks(folder / "generated.json", N_REFERENCES)

    generated = work_folders.made_once(f"fieldworkarena_ground_truth_{N_REFERENCES}", make)
    return fieldworkarena_references(generated), (f"{N_REFERENCES} generated FieldWorkArena-shaped references "
                                                  f"(no FieldWorkArena ground truth in {ground_truth})")


def main() -> None:
    refs, what = references()
    print(f"references: {what}")
    copies = [(g, g, ev) for _, ev, g in refs]
    framed = [(g, f"The answer is {g}.", ev) for _, ev, g in refs]
    wrong = [(g, make(g), ev) for make in WRONG_FORMS.values() for _, ev, g in refs]
    cases = copies + framed + wrong

    def by_fs_match() -> float:
        fs_match.reference_kind.cache_clear()
        t = time.process_time()
        for g, a, ev in cases:
            fs_match.score(g, a, ev)
        return time.process_time() - t

    def by_equality() -> float:
        t = time.process_time()
        for g, a, _ in cases:
            _ = a == g
        return time.process_time() - t

    pairs = [(by_equality(), by_fs_match()) for _ in range(PASSES)]
    ratio = statistics.median(m / e for e, m in pairs)
    per_answer_us = statistics.median(m for _, m in pairs) / len(cases) * 1e6
    decided = lambda rows: sum(1 for g, a, ev in rows if fs_match.score(g, a, ev).correct) / len(rows)  # noqa: E731
    results = [fs_match.score(g, a, ev) for g, a, ev in wrong]
    false_accepts = sum(1 for r in results if r.value is not None and (r.value > 0 or r.correct))
    decided_wrong = sum(1 for r in results if r.value is not None)
    print(f"{len(cases):,} answers over {len(refs)} references: fs-match {per_answer_us:.1f} µs (CPU) an answer, "
          f"{ratio:.0f}x a plain str == (median of {PASSES})")
    print(f"copies decided and correct {decided(copies):.4f}; 'The answer is X.' {decided(framed):.4f}; "
          f"{len(wrong):,} wrong answers in {len(WRONG_FORMS)} forms: {decided_wrong:,} decided (all 0), "
          f"{false_accepts} accepted")
    targets.declare(f"fs-match over {len(cases):,} answers (median of {PASSES})", ratio, 400, better=targets.LOWER,
                    reference="str == on the same answers", sizes_reduced=False)
    targets.declare(f"copies of the {len(refs)} references decided and correct", decided(copies), 1.0, better=targets.HIGHER,
                    reference="all copies", unit="", sizes_reduced=False)
    targets.declare("'The answer is X.' decided and correct", decided(framed), 1.0, better=targets.HIGHER,
                    reference="all framed copies", unit="", sizes_reduced=False)
    targets.declare(f"wrong answers accepted ({len(wrong):,} in {len(WRONG_FORMS)} forms)", false_accepts, 0,
                    better=targets.LOWER, reference="absolute count", unit="answers", sizes_reduced=False)
    targets.print_own_table()


if __name__ == "__main__":
    main()
