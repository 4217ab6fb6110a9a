"""Named, versioned scorers: pure functions over a reference and a prediction (no Qt, network or database).

``REGISTRY`` maps a scorer's name to a :class:`ScorerInfo` (version, function, description) so the CLI
and the GUI can list scorers and store the name and version with every score. One module per family:
``fwa_official`` and ``fwa_paper`` (FieldWorkArena, two labelled modes), ``llm_match`` (OpenEQA
LLM-Match, IndustryEQA direct and reasoning), ``acceptability`` and ``documentation`` (RealityBench);
``judge`` holds the LLM-judge step over an injected ``ask(prompt) -> str`` callable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from fieldstudio.scoring.scorers import acceptability, documentation, fwa_official, fwa_paper, llm_match
from fieldstudio.scoring.scorers.result import ScoreResult, unscored

__all__ = ["ScorerInfo", "REGISTRY", "get", "ScoreResult", "unscored"]


@dataclass(frozen=True)
class ScorerInfo:
    """One registered scorer: ``name``, ``version``, the scoring ``function`` and a one-line ``description``."""

    name: str
    version: str
    function: Callable[..., ScoreResult]
    description: str


REGISTRY: dict[str, ScorerInfo] = {
    info.name: info for info in (
        ScorerInfo(fwa_official.NAME, fwa_official.VERSION, fwa_official.score, fwa_official.DESCRIPTION),
        ScorerInfo(fwa_paper.NAME, fwa_paper.VERSION, fwa_paper.score, fwa_paper.DESCRIPTION),
        ScorerInfo(llm_match.NAME, llm_match.VERSION, llm_match.score, llm_match.DESCRIPTION),
        ScorerInfo(llm_match.DIRECT_NAME, llm_match.EQA_VERSION, llm_match.score_eqa_direct,
                   llm_match.DIRECT_DESCRIPTION),
        ScorerInfo(llm_match.REASONING_NAME, llm_match.EQA_VERSION, llm_match.score_eqa_reasoning,
                   llm_match.REASONING_DESCRIPTION),
        ScorerInfo(acceptability.NAME, acceptability.VERSION, acceptability.score, acceptability.DESCRIPTION),
        ScorerInfo(documentation.NAME, documentation.VERSION, documentation.score, documentation.DESCRIPTION),
    )
}


def get(name: str) -> ScorerInfo:
    """The scorer registered as ``name``; KeyError listing the known names otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown scorer {name!r}; known: {', '.join(sorted(REGISTRY))}") from None
