"""What a benchmark is, in one declaration: the shape every module of ``fieldstudio.benchmarks`` fills in.

As Inspect AI's ``Task`` bundles a dataset, a solver, a scorer and metrics, a :class:`Benchmark` names
the ``Task.source`` tag its tasks carry, its task and answer file formats, the prompt strategies that send
its tasks and the scorers that score its answers, its defaults, and how its own evaluator turns per-task
scores into its figure (:class:`UnscoredRule`).

This package sits low (it imports only ``core``), so the formats, strategies and scorers it names are
referred to by their registry names: ``tasks.formats`` (formats), ``inference.strategies.REGISTRY``,
``scoring.scorers.REGISTRY``. tests/benchmarks/test_declaration.py checks that every name resolves and
that every registered format, strategy and scorer belongs to a declared benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Benchmark", "UnscoredRule", "OfficialItem", "OfficialLine", "OfficialFigure", "OfficialAggregation"]


@dataclass(frozen=True)
class UnscoredRule:
    """How a benchmark's own evaluator counts a task without a score (unscored, failed or not answered)
    in its figure, and so how fieldstudio's headline mean counts it (``compare.coverage``).

    Attributes:
        counts_as: the value such a task counts as (0 for the lowest mark), or None when the evaluator
            drops the item: its figure is then the mean over the scored items.
        text: one sentence naming the rule, for a label ("unscored, failed and missing answers count 0, as ...").
    """

    counts_as: float | None
    text: str

    def headline_mean(self, scored_sum: float, n_scored: int, total: int) -> float | None:
        """The benchmark's figure over ``total`` tasks of which ``n_scored`` carry a score summing to
        ``scored_sum``: (sum + counts_as x unscored) / total, or sum / n_scored when the rule drops
        unscored items. None when nothing is scored (a 0 would read as a measured score)."""
        if n_scored <= 0:
            return None
        if self.counts_as is None:
            return scored_sum / n_scored
        return (scored_sum + self.counts_as * (total - n_scored)) / total


@dataclass(frozen=True)
class OfficialItem:
    """One answered task of one source, as a benchmark's own aggregation reads it.

    Attributes:
        task_id: the benchmark's own id of the task ("2.1.0001", an OpenEQA UUID, an IndustryEQA number).
        value: the task's score on the scorer's scale (0-1 for FieldWorkArena, 0-100 for the EQA marks), or
            None when the answer carries no score (the benchmark's ``UnscoredRule`` says how that counts).
        query, reference: the task's question and ground truth (FieldWorkArena's calc_category.py drops a task
            by them).
        sub_category: the task's sub-category (FieldWorkArena: its calc_category.py bucket), None when none.
        extra: the task's other fields as imported (IndustryEQA's ``reasoning_status``), {} when none.
    """

    task_id: str
    value: float | None
    query: str = ""
    reference: str = ""
    sub_category: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OfficialLine:
    """One line of a benchmark tool's output: the group it belongs to ("category", "calc_category.py bucket",
    "overall"), its name ("2.1", "01_abstract_images", "total") and its fields in the tool's own names and
    values (``{"totalTaskNum": 12, "correctNum": 7, "correctRate": "0.5833", "totalScore": 7.5}``)."""

    group: str
    name: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class OfficialFigure:
    """A benchmark's official figure over one source's answered tasks, as its own tool computes it.

    Attributes:
        benchmark: the benchmark's title.
        name: the figure's name in the tool ("correctRate", "final score").
        value: the figure as a number (a rate 0-1, or a percentage), None when no task is answered.
        printed: the figure as the tool prints it ("0.5149", "52.0").
        answered: the answered tasks it covers.
        tool: the tool and what it divides by, for a label ("FWA_evaluator.py, over the answered tasks").
        lines: every line the tool prints (per category, per bucket, overall).
        notes: what the tool does that a reader should know ("calc_category.py drops 7 tasks whose query holds a
            carriage return").
    """

    benchmark: str
    name: str
    value: float | None
    printed: str
    answered: int
    tool: str
    lines: tuple[OfficialLine, ...] = ()
    notes: tuple[str, ...] = ()
    scorer: str = ""
    scorer_is_official: bool = True

    @property
    def text(self) -> str:
        """'official FieldWorkArena correctRate 0.5149 over 837 answered (FWA_evaluator.py ...)'; over another
        scorer's values it says so: '... of fs-match scores (its aggregation, not its judge)'."""
        of = "" if self.scorer_is_official else f" of {self.scorer} scores (its aggregation, not its judge)"
        return (f"official {self.benchmark} {self.name} {self.printed} over {self.answered} answered{of} "
                f"({self.tool})")


OfficialAggregation = Callable[[Sequence[OfficialItem], str, "UnscoredRule"], "OfficialFigure | None"]
"""A benchmark's own aggregation: (the answered items of one source, the scorer, its unscored rule) -> its official
figure (None when it has no figure for that scorer's values). An answered item without a score counts as the
unscored rule says (FieldWorkArena: 0, as a failed judge reply; IndustryEQA: dropped)."""


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's declaration.

    Attributes:
        name: the benchmark's name in commands and settings (``fieldstudio benchmarks locate NAME``).
        title: its name as people write it, for labels and help texts.
        sources: the ``Task.source`` tags its tasks carry (``for_source`` looks them up).
        task_format, answer_format: the format registry's names of its task file and its answer file.
        format_choice: the name a user picks its files by (``--format``).
        strategies: the prompt strategies that send its tasks (``inference.strategies`` names),
            ``default_strategy`` first.
        default_strategy: the strategy a run of only its tasks uses unless the user picks another.
        scorers: every scorer that scores its answers (``scoring.scorers`` names); each scorer belongs to
            exactly one benchmark, whose ``unscored`` rule its headline follows.
        official_scorer: the scorer that computes what the benchmark's own evaluator computes, with its own
            judge prompt (None: the benchmark has no evaluator of its own).
        judge_free_scorer: the scorer used when no judge is given, its own or another benchmark's (None:
            only a judge scores its answers, so the official scorer is proposed and asks for one).
        unscored: how its evaluator counts a task without a score (its official aggregation).
        format_title: how its files are named in a list of formats (default: the title).
        task_folder: the folder of its distribution that holds its task files, for help texts ("" if none).
        answer_folder: what a folder of its answers holds, for help texts ("run logs"; "" when its answers
            come as one file).
        description: one sentence on what its tasks are.
        official_aggregation: how its own tool turns the per-task scores of one source's answered tasks into its
            printed figure (a pure function of the declaration module; None: it has no tool of its own).
        aggregated_scorers: the scorers whose values that aggregation reads (default: every one of ``scorers``).
        official_scorers: the scorers whose figure is the benchmark's own (default: ``official_scorer``); over
            another scorer's values the figure says it is the benchmark's aggregation, not its judge.
    """

    name: str
    title: str
    sources: tuple[str, ...]
    task_format: str
    answer_format: str
    format_choice: str
    strategies: tuple[str, ...]
    default_strategy: str
    scorers: tuple[str, ...]
    official_scorer: str | None
    judge_free_scorer: str | None
    unscored: UnscoredRule
    format_title: str = ""
    task_folder: str = ""
    answer_folder: str = ""
    description: str = ""
    official_aggregation: OfficialAggregation | None = None
    aggregated_scorers: tuple[str, ...] = ()
    official_scorers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.format_title:
            object.__setattr__(self, "format_title", self.title)
        if self.default_strategy not in self.strategies:
            raise ValueError(f"{self.name}: default strategy {self.default_strategy!r} is not one of its strategies")
        if self.official_scorer is not None and self.official_scorer not in self.scorers:
            raise ValueError(f"{self.name}: official scorer {self.official_scorer!r} is not one of its scorers")

    def official_figure(self, scorer: str | None, items: Sequence[OfficialItem]) -> OfficialFigure | None:
        """Its own tool's figure over ``items`` (one source's answered tasks) scored by ``scorer``; None when it
        has no tool of its own or ``scorer`` is not one it aggregates."""
        if self.official_aggregation is None or scorer not in (self.aggregated_scorers or self.scorers):
            return None
        figure = self.official_aggregation(items, scorer, self.unscored)
        if figure is None:
            return None
        return replace(figure, scorer=scorer,
                       scorer_is_official=scorer in (self.official_scorers or (self.official_scorer,)))

    def default_scorer(self, judged: bool) -> str | None:
        """The scorer proposed for its answers: with a judge (``judged``) the official scorer, else the
        judge-free one; the official scorer when there is no judge-free one (scoring then asks for a
        judge), the judge-free one when there is no official one. None only when it declares neither."""
        if judged and self.official_scorer is not None:
            return self.official_scorer
        return self.judge_free_scorer if self.judge_free_scorer is not None else self.official_scorer
