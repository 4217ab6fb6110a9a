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

from dataclasses import dataclass

__all__ = ["Benchmark", "UnscoredRule"]


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

    def __post_init__(self) -> None:
        if not self.format_title:
            object.__setattr__(self, "format_title", self.title)
        if self.default_strategy not in self.strategies:
            raise ValueError(f"{self.name}: default strategy {self.default_strategy!r} is not one of its strategies")
        if self.official_scorer is not None and self.official_scorer not in self.scorers:
            raise ValueError(f"{self.name}: official scorer {self.official_scorer!r} is not one of its scorers")

    def default_scorer(self, judged: bool) -> str | None:
        """The scorer proposed for its answers: with a judge (``judged``) the official scorer, else the
        judge-free one; the official scorer when there is no judge-free one (scoring then asks for a
        judge), the judge-free one when there is no official one. None only when it declares neither."""
        if judged and self.official_scorer is not None:
            return self.official_scorer
        return self.judge_free_scorer if self.judge_free_scorer is not None else self.official_scorer
