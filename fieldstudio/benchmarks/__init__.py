"""The benchmarks fieldstudio knows, one declaration module each, and the rules both fronts ask them.

The registry is explicit: :data:`DECLARED` lists each module's ``DECLARATION`` (a
:class:`~fieldstudio.benchmarks.declaration.Benchmark`). To add a benchmark, write its module beside these
(name, title, ``Task.source`` tag, formats, strategies, scorers, defaults, unscored rule) and add it to
the tuple below; docs/ARCHITECTURE.md "Where to add" lists the rest.

The defaults are pure functions of the task sources: :func:`default_strategy` for a run and
:func:`default_scorer` for a scoring. The services that read those sources from a project
(``inference.strategies.default_strategy_for``, ``scoring.service.default_scorer``) are what the command
line and the window call, so both propose the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fieldstudio.benchmarks import fieldworkarena, industryeqa, openeqa, own_tasks
from fieldstudio.benchmarks.declaration import Benchmark, UnscoredRule

__all__ = ["Benchmark", "UnscoredRule", "DECLARED", "GENERAL", "all_benchmarks", "get", "for_source", "for_scorer",
           "unscored_rule", "default_strategy", "default_scorer", "format_titles", "official_benchmarks",
           "task_folder_examples", "answer_folder_kinds", "names_text"]

DECLARED: tuple[Benchmark, ...] = (fieldworkarena.DECLARATION, industryeqa.DECLARATION, openeqa.DECLARATION,
                                   own_tasks.DECLARATION)
"""Every declared benchmark, in the order lists show them."""

GENERAL: Benchmark = own_tasks.DECLARATION
"""The declaration a task of no declared source follows (tasks written by hand or in a CSV file)."""

_BY_NAME = {b.name: b for b in DECLARED}
_BY_SOURCE = {source: b for b in DECLARED for source in b.sources}
_BY_SCORER = {scorer: b for b in DECLARED for scorer in b.scorers}


def all_benchmarks() -> tuple[Benchmark, ...]:
    """Every declared benchmark (``DECLARED``)."""
    return DECLARED


def get(name: str) -> Benchmark:
    """The benchmark called ``name``. Raises KeyError listing the known names."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(_BY_NAME)}") from None


def for_source(source: str | None) -> Benchmark | None:
    """The benchmark whose tasks carry ``Task.source`` ``source``; None for a source no benchmark declares."""
    return _BY_SOURCE.get(source or "")


def for_scorer(scorer: str | None) -> Benchmark | None:
    """The benchmark a scorer belongs to: by its name, else by the part before a "+" (a "name+variant"
    scorer keeps its family's benchmark); None for a scorer no benchmark declares."""
    if not scorer:
        return None
    return _BY_SCORER.get(scorer) or _BY_SCORER.get(scorer.split("+", 1)[0])


def unscored_rule(scorer: str | None) -> UnscoredRule:
    """How the headline of ``scorer``'s scores counts a task without a score: the rule of the benchmark the
    scorer belongs to, ``GENERAL``'s (count 0) for any other scorer or None."""
    return (for_scorer(scorer) or GENERAL).unscored


def default_strategy(sources: Iterable[str | None]) -> str:
    """The prompt strategy proposed for tasks of these ``Task.source`` tags: the default strategy their
    benchmarks share, else (no source, or benchmarks with different defaults) ``GENERAL``'s. A source no
    benchmark declares follows ``GENERAL``."""
    chosen = {(for_source(s) or GENERAL).default_strategy for s in sources}
    return chosen.pop() if len(chosen) == 1 else GENERAL.default_strategy


def default_scorer(sources_by_count: Mapping[str | None, int] | Iterable[tuple[str | None, int]],
                   judged: bool) -> str:
    """The scorer proposed for answers whose tasks have these sources: the default scorer
    (``Benchmark.default_scorer``) of the benchmark of the source with the most answers (the first one
    given among equal counts), with or without a judge (``judged``); ``GENERAL``'s when there is no answer
    or the source is not declared.

    Args:
        sources_by_count: ``Task.source`` -> number of answers, as a mapping or (source, count) pairs.
        judged: True when a judge (a model profile) will be given.
    """
    pairs = list(sources_by_count.items() if isinstance(sources_by_count, Mapping) else sources_by_count)
    benchmark = GENERAL
    if pairs:
        benchmark = for_source(max(pairs, key=lambda pair: pair[1])[0]) or GENERAL
    return benchmark.default_scorer(judged) or GENERAL.default_scorer(judged) or ""


def format_titles() -> str:
    """The benchmarks' file formats for a sentence: "FieldWorkArena, IndustryEQA, OpenEQA, CSV"."""
    return ", ".join(b.format_title for b in DECLARED)


def task_folder_examples() -> str:
    """Task folders for a help text: "FieldWorkArena's ground_truth/" (the benchmarks that ship one)."""
    return " or ".join(f"{b.title}'s {b.task_folder}" for b in DECLARED if b.task_folder)


def answer_folder_kinds() -> str:
    """Folders of answers for a help text: "FieldWorkArena run logs" (the benchmarks whose answers come as one)."""
    return " or ".join(f"{b.title} {b.answer_folder}" for b in DECLARED if b.answer_folder)


def names_text(names: Iterable[str]) -> str:
    """"a, b or c" for a help text."""
    names = list(names)
    return " or ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " or " + names[-1]


def official_benchmarks() -> tuple[Benchmark, ...]:
    """The benchmarks with an evaluator of their own (an official scorer reading their own judge files)."""
    return tuple(b for b in DECLARED if b.official_scorer is not None)
