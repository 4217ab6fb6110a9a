"""Prompt strategies: named, versioned ways of turning a task into OpenAI chat requests, as the benchmarks did.

The registry is explicit: :data:`REGISTRY` lists the benchmarks' strategies (``base.BUILTIN``) and the
agent (``agent.AGENT``). To add a strategy, build a :class:`~fieldstudio.inference.strategies.base.Strategy`
in a module of this package and add it to the tuple below. The building blocks (prompt parts, frame
encoding, answer parsers) are in :mod:`.base`.
"""

from __future__ import annotations

from typing import Any

from fieldstudio.inference.inputs import FrameEncoder
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.strategies.agent import AGENT
from fieldstudio.inference.strategies.base import BUILTIN, Prompt, Strategy, StrategyContext, StrategyError
from fieldstudio.store.project import Project

REGISTRY: dict[str, Strategy] = {s.name: s for s in (*BUILTIN, AGENT)}
"""Every prompt strategy by name."""


def get_strategy(name: str) -> Strategy:
    """The strategy called `name`. Raises StrategyError(kind="unknown_strategy") listing the known ones."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise StrategyError("unknown_strategy",
                            f"no prompt strategy called {name!r}; known: {', '.join(sorted(REGISTRY))}") from None


def strategy_names() -> list[str]:
    """Every known strategy name, sorted."""
    return sorted(REGISTRY)


def preview(project: Project, task_id: str, strategy: str, profile: ModelProfile,
            params: dict[str, Any] | None = None) -> list[Prompt]:
    """The request(s) a strategy would send first for a task, without sending anything (for a GUI preview).

    Raises StrategyError (unknown strategy, missing media, unreadable media) or NotFound (no such task).
    """
    from fieldstudio.inference.inputs import load_task

    encoder = FrameEncoder(project)
    try:
        ctx = StrategyContext(project, encoder, profile, dict(params or {}))
        return get_strategy(strategy).build(ctx, load_task(project, task_id))
    finally:
        encoder.close()
