"""Tasks x answer sources side by side: everything the Compare tab and the report show for one scorer.

``build_comparison(project, scorer)`` reads the long table (``answer_table.load_answers``: every answer of the
chosen runs with its task, its score in force, its tokens and cost), summarises it (``summaries.summarise``:
one stratified task bootstrap for every interval) and returns a :class:`Comparison`:

* ``answers``: the long table, one row per answer (task columns, the answer, the score, tokens, cost);
* ``tasks``: the scope every total counts (``answer_table.load_scope``): the project's tasks of each benchmark
  source some compared answer is for, answered or not, so a task nobody answered counts as missing;
* ``summary``: one row per source (the columns are listed in ``summaries``), with ``rater_agreement`` filled
  by an optional hook;
* ``by_category``: the same per (source, category), and ``extra_groups`` per sub-category, scenario or answer
  type when asked;
* ``pairs``: paired differences of mean score for every pair of sources over their shared scored tasks,
  "distinguishable" only when the 95 % interval excludes 0;
* ``judge_agreement``: how the LLM judge agrees with the people who overrode its scores;
* ``evidence_split``: each source's accuracy split by evidence coverage (``evidence.split_by_evidence``: saw the
  ground truth's moment / never saw it / unknown / no evidence), each answer's status also in ``answers``
  (``evidence``, ``evidence_distance_s``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy import select

from fieldstudio.compare import coverage, evidence
from fieldstudio.compare.answer_table import (TASK_COLUMNS, most_scored_scorer, load_answers, load_scope, ratings_frame,
                                              task_grid)
from fieldstudio.compare.summaries import pair_frame, pivot_summary, summarise
from fieldstudio.core import statistics
from fieldstudio.scoring.service import scorer_description
from fieldstudio.store.models import Score
from fieldstudio.store.project import Project

__all__ = ["Comparison", "JudgeAgreement", "AgreementHook", "build_comparison", "judge_agreement"]


AgreementHook = Callable[[pd.DataFrame, pd.DataFrame], Mapping[str, float] | pd.Series]
"""``hook(answers, ratings) -> {source: agreement}``: how each source agrees with the raters (e.g. share of
items where the scorer's verdict equals the rater majority, ties excluded, benchmarks.md §4.4). Called only
when the project holds ratings; its values fill ``summary["rater_agreement"]``."""


@dataclass(frozen=True)
class JudgeAgreement:
    """How the LLM judge agrees with the scores people set. A pair is a judged machine row that a person
    overrode directly (the person's row has ``overrides_id`` = the judged row's id).

    ``n`` pairs, ``agree`` of them with the same verdict (``correct`` when both rows have one, else the
    same value), ``rate`` = agree / n (None when n is 0). ``pass_fail``: Cohen's kappa and percent
    agreement (``statistics.pass_fail_agreement``, Cohen 1960) over the pairs where both rows have a pass/fail
    verdict (``correct``), the judge as rater a and the person as rater b; None without such pairs.
    """

    n: int
    agree: int
    pass_fail: statistics.Agreement | None = None

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa of the judge's and the people's pass/fail verdicts (None when undefined)."""
        return None if self.pass_fail is None else self.pass_fail.kappa


def judge_agreement(project: Project, scorer: str) -> JudgeAgreement:
    """Agreement of the LLM judge with the scores people set: each judged machine row directly overridden
    by a person is one pair (see ``JudgeAgreement``)."""
    cols = (Score.id, Score.value, Score.correct, Score.judge, Score.author, Score.overrides_id)
    with project.read() as s:
        rows = s.execute(select(*cols).where(Score.scorer == scorer, Score.author.is_not(None))).all()
        parents = {r.overrides_id for r in rows if r.overrides_id}
        by_id = {r.id: r for r in s.execute(select(*cols).where(Score.id.in_(parents))).all()} if parents else {}
    n = agree = 0
    judge_pass: list[bool] = []
    person_pass: list[bool] = []
    for r in rows:
        old = by_id.get(r.overrides_id) if r.overrides_id else None
        if r.author is None or old is None or old.author is not None or not old.judge:
            continue
        n += 1
        if old.correct is not None and r.correct is not None:
            agree += old.correct == r.correct
            judge_pass.append(bool(old.correct))
            person_pass.append(bool(r.correct))
        else:
            agree += old.value == r.value
    return JudgeAgreement(n, agree, statistics.pass_fail_agreement(judge_pass, person_pass) if judge_pass else None)


@dataclass
class Comparison:
    """Everything the comparison view and the report show for one scorer over some runs (see module doc)."""

    scorer: str | None
    scorer_label: str
    answers: pd.DataFrame
    summary: pd.DataFrame
    by_category: pd.DataFrame
    pairs: pd.DataFrame
    judge_agreement: JudgeAgreement
    ratings: pd.DataFrame
    n_resamples: int
    seed: int | None
    extra_groups: dict[str, pd.DataFrame] = field(default_factory=dict)
    tasks: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=TASK_COLUMNS))
    """The scope the totals cover (``load_scope``): the project's tasks of the benchmarks answered."""
    evidence_split: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Each source's accuracy by evidence status (``evidence.split_by_evidence``)."""

    @property
    def sources(self) -> list[str]:
        """Source labels in table order."""
        return list(self.summary.index)

    @property
    def coverage_warnings(self) -> list[str]:
        """The coverage warning (at most one sentence) when two sources' coverages differ by more than 5
        points, with each source's n of total scored (``coverage.coverage_warnings``)."""
        return coverage.coverage_warnings(self.summary)

    def category_table(self, value: str = "mean") -> pd.DataFrame:
        """Rows = categories (+ "all"), columns = sources, cells = ``value`` (see ``pivot_summary``)."""
        return pivot_summary(self.by_category, self.summary, value)

    def grid(self, column: str = "value") -> pd.DataFrame:
        """Tasks x sources (see ``task_grid``)."""
        return task_grid(self.answers, column)


def build_comparison(project: Project, scorer: str | None = None, run_ids: Sequence[str] | None = None, *,
                     n_resamples: int = 2000, seed: int | None = 0, agreement: AgreementHook | None = None,
                     groups: Sequence[str] = ()) -> Comparison:
    """Read and summarise one scorer's results over the chosen runs (all when None).

    Args:
        scorer: a scorer name; None picks the one with the most scores (``most_scored_scorer``); with no
            score at all the tables still list answers, tokens and cost, with NaN scores.
        run_ids: ids, names or id prefixes of runs.
        n_resamples, seed: bootstrap replicates and seed (reproducible).
        agreement: optional ``AgreementHook`` filling ``summary["rater_agreement"]`` when ratings exist.
        groups: further groupings to summarise into ``extra_groups`` (sub_category, scenario, answer_type).
    Raises:
        NotFound / ScoringError from ``resolve_runs`` for an unknown or ambiguous run.
    """
    scorer = scorer or most_scored_scorer(project, run_ids)
    answers = load_answers(project, scorer, run_ids)
    scope = load_scope(project, answers)
    split = pd.DataFrame()
    if len(answers):
        seen = evidence.answer_coverage(project, answers["answer_id"].tolist())
        answers = answers.merge(seen[["answer_id", "evidence", "evidence_distance_s"]], on="answer_id", how="left")
        split = evidence.split_by_evidence(answers, seen, scorer)
    summary, tables, differences = summarise(answers, strata="category", n_resamples=n_resamples, seed=seed,
                                              groups=list(dict.fromkeys(["category", *groups])), pairs=True,
                                              scorer=scorer, tasks=scope)
    by_category, pairs = tables["category"], pair_frame(differences)
    ratings = ratings_frame(project)
    if agreement is not None and not ratings.empty and not summary.empty:
        values = pd.Series(agreement(answers, ratings), dtype=float)
        summary["rater_agreement"] = values.reindex(summary.index)
    extra = {g: tables[g] for g in groups}
    return Comparison(scorer, scorer_description(scorer) if scorer else "no scores yet", answers, summary, by_category,
                      pairs, judge_agreement(project, scorer) if scorer else JudgeAgreement(0, 0), ratings,
                      n_resamples, seed, extra, scope, split)
