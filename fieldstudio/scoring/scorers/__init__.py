"""Named, versioned scorers: pure functions over a reference and a prediction (no Qt, network or database).

``REGISTRY`` maps a scorer's name to a :class:`ScorerInfo` (version, function, description and what it
needs) so the CLI and the GUI can list scorers and store the name and version with every score. An
official name ("fwa-official", "llm-match", "eqa-direct", "eqa-reasoning") always means the benchmark's own
judge prompt and settings, read from the user's located copy of the benchmark (``scoring.official``);
the same rules over fieldstudio's own prompts carry a "+fs-prompt" name, and fieldstudio's judge-free
matchers are "fs-match". One module per family: ``fwa_official`` and ``fs_match`` and ``fwa_paper``
(FieldWorkArena), ``llm_match`` (OpenEQA LLM-Match, IndustryEQA direct and reasoning), ``acceptability``
and ``documentation`` (RealityBench); ``judge`` holds fieldstudio's judge prompts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from fieldstudio.scoring.scorers import (acceptability, documentation, fs_match, fwa_official, fwa_paper,
                                         llm_match)
from fieldstudio.scoring.scorers.result import ScoreResult, unscored

__all__ = ["ScorerInfo", "REGISTRY", "get", "ScoreResult", "unscored"]


@dataclass(frozen=True)
class ScorerInfo:
    """One registered scorer.

    ``name``, ``version``, the scoring ``function`` and a one-line ``description``; ``family``: which
    answer and task fields it reads ("fwa", "openeqa", "eqa-direct", "eqa-reasoning", "acceptability",
    "documentation"); ``needs_judge``: scoring refuses to start without a judge; ``benchmark``: the
    benchmark whose own judge files it reads (``scoring.official``; None for fieldstudio's prompts or no
    judge); ``threshold``: correct means value > threshold (None: no threshold); ``scale``: the top of
    its scale (1.0 or 100.0, percentages); ``judge_optional``: without ``needs_judge``, a judge is asked
    when one is given (the deterministic matchers decide without one).
    """

    name: str
    version: str
    function: Callable[..., ScoreResult]
    description: str
    family: str = "fwa"
    needs_judge: bool = False
    benchmark: str | None = None
    threshold: float | None = None
    scale: float = 1.0
    judge_optional: bool = False


REGISTRY: dict[str, ScorerInfo] = {
    info.name: info for info in (
        ScorerInfo(fwa_official.NAME, fwa_official.VERSION, fwa_official.score, fwa_official.DESCRIPTION,
                   "fwa", True, "fieldworkarena", 0.5),
        ScorerInfo(fwa_official.FS_PROMPT_NAME, fwa_official.FS_PROMPT_VERSION, fwa_official.score_fs_prompt,
                   fwa_official.FS_PROMPT_DESCRIPTION, "fwa", True, None, 0.5),
        ScorerInfo(fs_match.NAME, fs_match.VERSION, fs_match.score, fs_match.DESCRIPTION, "fwa", False, None, 0.5),
        ScorerInfo(fwa_paper.NAME, fwa_paper.VERSION, fwa_paper.score, fwa_paper.DESCRIPTION, "fwa", False, None, 0.5,
                   judge_optional=True),
        ScorerInfo(llm_match.NAME, llm_match.VERSION, llm_match.score, llm_match.DESCRIPTION, "openeqa", True,
                   "openeqa", None, 100.0),
        ScorerInfo(llm_match.FS_NAME, llm_match.FS_VERSION, llm_match.score_fs_prompt, llm_match.FS_DESCRIPTION,
                   "openeqa", True, None, None, 100.0),
        ScorerInfo(llm_match.DIRECT_NAME, llm_match.EQA_VERSION, llm_match.score_eqa_direct,
                   llm_match.DIRECT_DESCRIPTION, "eqa-direct", True, "industryeqa", None, 100.0),
        ScorerInfo(llm_match.FS_DIRECT_NAME, llm_match.FS_VERSION, llm_match.score_eqa_direct_fs_prompt,
                   llm_match.FS_DIRECT_DESCRIPTION, "eqa-direct", True, None, None, 100.0),
        ScorerInfo(llm_match.REASONING_NAME, llm_match.EQA_VERSION, llm_match.score_eqa_reasoning,
                   llm_match.REASONING_DESCRIPTION, "eqa-reasoning", True, "industryeqa", None, 100.0),
        ScorerInfo(llm_match.FS_REASONING_NAME, llm_match.FS_VERSION, llm_match.score_eqa_reasoning_fs_prompt,
                   llm_match.FS_REASONING_DESCRIPTION, "eqa-reasoning", True, None, None, 100.0),
        ScorerInfo(acceptability.NAME, acceptability.VERSION, acceptability.score, acceptability.DESCRIPTION,
                   "acceptability", False, None, 0.5),
        ScorerInfo(documentation.NAME, documentation.VERSION, documentation.score, documentation.DESCRIPTION,
                   "documentation", False, None, None),
    )
}


def get(name: str) -> ScorerInfo:
    """The scorer registered as ``name``; KeyError listing the known names otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown scorer {name!r}; known: {', '.join(sorted(REGISTRY))}") from None
