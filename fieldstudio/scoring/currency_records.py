"""A scoring that finds every score current keeps that finding, and the next scoring of the same selection
returns it without visiting an answer while nothing has changed (issue 37 item 4).

The finding is one ``ScoreCurrency`` row per selection (what ``currency.Selection`` names, plus fieldstudio's
version): the counts the scoring reported and the project's ``TableState`` (write generation and row counts of
answers, tasks and scores, ``store.write_generation``) when it counted. It is made only from a count taken in
a write transaction that holds other writers off (``hold_writers``), so the counts and the state are one
moment; it stands while the state is the same, which the database's own triggers and the row counts make
exact for every writer. A scoring with anything to do (a stale or unscored answer, a person's override, an
undecided judged row) keeps nothing: only "every answer is current by its columns" is kept.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from sqlalchemy.orm import Session

from fieldstudio import __version__
from fieldstudio.scoring import currency
from fieldstudio.scoring.scoring_report import ScoringReport
from fieldstudio.store.models import ScoreCurrency, utcnow
from fieldstudio.store.project import Project
from fieldstudio.store.write_generation import hold_writers, table_state

__all__ = ["selection_key", "restore", "count"]


def selection_key(sel: currency.Selection) -> str:
    """SHA-256 (hex) of what a finding is about: fieldstudio's version (the currency rules), the scorer, its
    version and ``scorer_sha`` (parameters, judge files), the runs (sorted; None: every run) and judged or not."""
    runs = None if sel.run_ids is None else sorted(sel.run_ids)
    payload = [__version__, sel.scorer, sel.version, sel.scorer_now, runs, sel.judged]
    return hashlib.sha256(json.dumps(payload).encode("utf-8")).hexdigest()


def _counts_of(report: ScoringReport) -> dict:
    return {"answers": report.answers, "current": report.current, "scored": report.scored,
            "unscored": report.unscored, "failed_answers": report.failed_answers,
            "unscored_reasons": dict(report.unscored_reasons), "per_run": report.per_run}


def restore(session: Session, sel: currency.Selection, report: ScoringReport) -> bool:
    """When the finding of ``sel`` stands (kept, and the project's state is the one it was made in), add its
    counts to the empty ``report`` and return True; else leave ``report`` as it is and return False."""
    row = session.get(ScoreCurrency, selection_key(sel))
    if row is None or tuple(table_state(session)) != (row.generation, row.answer_rows, row.task_rows,
                                                      row.score_rows):
        return False
    counts = row.counts
    report.answers, report.current = counts["answers"], counts["current"]
    report.scored, report.unscored = counts["scored"], counts["unscored"]
    report.failed_answers = counts["failed_answers"]
    report.unscored_reasons.update(Counter(counts["unscored_reasons"]))
    for run_id, (scored, unscored) in counts["per_run"].items():
        report.per_run[run_id] = [scored, unscored]
    return True


def count(project: Project, sel: currency.Selection, report: ScoringReport) -> int:
    """Count the answers of ``sel`` and those current by their columns into ``report``
    (``currency.count_answers``, ``currency.count_current``); returns how many are current.

    On a writable project the count runs in a write transaction that holds other writers off, and when every
    answer is current the finding is kept (replacing an older one of ``sel``); a read-only project is counted
    in a read transaction and keeps nothing."""
    if project.read_only:
        with project.read() as s:
            report.answers = currency.count_answers(s, sel)
            return currency.count_current(s, sel, report)
    with project.write() as s:
        hold_writers(s)
        report.answers = currency.count_answers(s, sel)
        done = currency.count_current(s, sel, report)
        key = selection_key(sel)
        if done == report.answers:
            s.merge(ScoreCurrency(selection=key, **table_state(s)._asdict(), counts=_counts_of(report),
                                  recorded_at=utcnow()))
        else:                                    # an older finding of sel no longer stands: not kept
            s.query(ScoreCurrency).filter(ScoreCurrency.selection == key).delete()
    return done
