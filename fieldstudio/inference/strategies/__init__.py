"""Prompt strategies: named, versioned ways of turning a task into OpenAI chat requests, as the benchmarks did.

The registry is explicit: :data:`REGISTRY` lists every strategy, one module each. To add one, build a
:class:`~fieldstudio.inference.strategies.base.Strategy` (its build and execute, its templates in
``resources/prompts/``, its parameters, the requests a task makes for the cost estimate) in a module of
this package, add it to the tuple below, and name it in the declaration of the benchmark it sends
(``fieldstudio.benchmarks``). The shared building blocks (prompt parts, frame encoding, plain-text
answers) are in :mod:`.base`.

| name | module | what is sent (benchmarks.md) |
|---|---|---|
| ``fieldworkarena`` | ``fieldworkarena`` | §1.8: timestamped frames at 1 per second up to about 30, photos, documents as text |
| ``industryeqa`` | ``industryeqa`` | §2.2-2.3: N uniform frames, longest side 768; JSON with a direct and a reasoning answer |
| ``blind``, ``blind-text`` | ``blind`` | §2.2: the question alone |
| ``chunked`` | ``chunked`` | §1.8 "other paths": 30 s chunks described one by one, then one answer |
| ``acceptability`` | ``acceptability`` | §4.1-4.2: one photo or frame; JSON with verdict, reasons, documentation fields |
| ``agent`` | ``agent`` | §1.9: the action space's plan-act loop |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from fieldstudio import benchmarks
from fieldstudio.core.parameters import Parameter
from fieldstudio.inference.inputs import FrameEncoder
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.strategies.acceptability import ACCEPTABILITY
from fieldstudio.inference.strategies.agent import AGENT
from fieldstudio.inference.strategies.base import Prompt, Strategy, StrategyContext, StrategyError
from fieldstudio.inference.strategies.blind import BLIND, BLIND_TEXT
from fieldstudio.inference.strategies.chunked import CHUNKED
from fieldstudio.inference.strategies.fieldworkarena import FIELDWORKARENA
from fieldstudio.inference.strategies.industryeqa import INDUSTRYEQA
from fieldstudio.store.models import Task
from fieldstudio.store.project import Project

REGISTRY: dict[str, Strategy] = {s.name: s for s in (FIELDWORKARENA, INDUSTRYEQA, BLIND, BLIND_TEXT, CHUNKED,
                                                     ACCEPTABILITY, AGENT)}
"""Every prompt strategy by name."""

GENERAL_STRATEGY = benchmarks.GENERAL.default_strategy
"""The strategy of tasks no benchmark claims; also that of a run that stored none (made by old versions)."""


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


def form_parameters() -> list[Parameter]:
    """Every parameter a form offers (those not ``advanced``), once per name, in the order the registry's
    strategies declare them (a strategy reads the ones in its ``parameters``)."""
    seen: dict[str, Parameter] = {}
    for strategy in REGISTRY.values():
        for p in strategy.parameters:
            if not p.advanced:
                seen.setdefault(p.name, p)
    return list(seen.values())


_IN_LIMIT = 900
"""Above this many task ids, :func:`default_strategy_for` keeps the ids in Python instead of binding them in SQL."""


def default_strategy_for(project: Project, task_ids: Sequence[str] | None = None) -> str:
    """The strategy proposed for a run over ``task_ids`` (None: every task of the project): the default
    their benchmarks share (``benchmarks.default_strategy`` of their ``Task.source`` tags). What
    ``fieldstudio run`` uses without ``--strategy`` and what the Runs tab shows first."""
    with project.read() as s:
        if task_ids is not None and len(task_ids) > _IN_LIMIT:
            # 100,000 ids bound in one IN took 0.34 s of CPU (2.9 s on two loaded cores) holding the interpreter
            # lock; every task's (id, source) read once and kept by the ids costs 0.14 s
            wanted = set(task_ids)
            sources = {source for task_id, source in s.execute(select(Task.id, Task.source)) if task_id in wanted}
        else:
            q = select(Task.source).distinct()
            if task_ids is not None:
                q = q.where(Task.id.in_(list(task_ids)))
            sources = set(s.scalars(q))
    return benchmarks.default_strategy(sources)


def preview(project: Project, task_id: str, strategy: str, profile: ModelProfile,
            params: dict[str, Any] | None = None) -> list[Prompt]:
    """The request(s) a strategy would send first for a task, without sending anything (for a GUI preview).

    Its frames go through the profile's privacy gate as a run's would (faces blurred for ``blur-faces``).
    Raises StrategyError (unknown strategy, missing media, unreadable media, ``privacy_gate``: no face detector)
    or NotFound (no such task).
    """
    from fieldstudio.inference.inputs import load_task
    from fieldstudio.privacy.gate import GateRefused, redactor_for

    encoder = FrameEncoder(project, redactor=redactor_for(profile.privacy_mode, bodies=profile.privacy_bodies))
    try:
        ctx = StrategyContext(project, encoder, profile, dict(params or {}))
        return get_strategy(strategy).build(ctx, load_task(project, task_id))
    except GateRefused as exc:
        raise StrategyError("privacy_gate", str(exc)) from None
    finally:
        encoder.close()
