"""Named, versioned scorers: pure functions over a reference and a prediction (no Qt, network or database).

``REGISTRY`` maps a scorer's name to the :class:`ScorerInfo` its module declares (version, function,
description, what it needs, its parameters and the adapter from a task's and an answer's columns to its
arguments), so the CLI and the GUI can list scorers, every scorer is called the same way
(``ScorerInfo.score``) and the name and version are stored with every score. The registry is explicit:
to add a scorer, declare its ``ScorerInfo`` in its module, list it below and name it in the declaration of
the benchmark whose answers it scores (``fieldstudio.benchmarks``).

An official name ("fwa-official", "llm-match", "eqa-direct", "eqa-reasoning") always means the benchmark's
own judge prompt and settings, read from the user's located copy of the benchmark (``scoring.official``);
the same rules over fieldstudio's own prompts carry a "+fs-prompt" name, and fieldstudio's judge-free
matchers are "fs-match". One module per family: ``fwa_official`` and ``fs_match`` and ``fwa_paper``
(FieldWorkArena), ``llm_match`` (OpenEQA LLM-Match, IndustryEQA direct and reasoning), ``acceptability``
and ``documentation`` (proof-of-work photos), ``temporal_iou`` (``fs-tiou``, fieldstudio's temporal IoU of
time-range answers), ``distance`` (``fs-distance``: a length against a calibrated ruler's) and ``count``
(``fs-count``: a whole number against the count of events or tracks), ``area`` (``fs-area``: an area against a
calibrated polygon's); ``judge`` holds fieldstudio's judge prompts.
"""

from __future__ import annotations

from fieldstudio.scoring.scorers import (acceptability, area, count, distance, documentation, fs_match, fwa_official,
                                         fwa_paper, llm_match, temporal_iou)
from fieldstudio.scoring.scorers.result import ScoreResult, unscored
from fieldstudio.scoring.scorers.scorer_info import AnswerInputs, Arguments, ScorerInfo, TaskInputs

__all__ = ["ScorerInfo", "TaskInputs", "AnswerInputs", "Arguments", "REGISTRY", "get", "ScoreResult", "unscored"]

REGISTRY: dict[str, ScorerInfo] = {
    info.name: info for info in (
        fwa_official.INFO, fwa_official.FS_PROMPT_INFO, fs_match.INFO, fwa_paper.INFO, *llm_match.SCORERS,
        acceptability.INFO, documentation.INFO, temporal_iou.INFO, distance.INFO, count.INFO, area.INFO,
    )
}
"""Every scorer by name."""


def get(name: str) -> ScorerInfo:
    """The scorer registered as ``name``; KeyError listing the known names otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown scorer {name!r}; known: {', '.join(sorted(REGISTRY))}") from None
