"""A sampling sweep: one model profile over the same tasks with several frame budgets or strategies, one run per arm.

An **arm** is one way of choosing what is sent, written on the command line and in the Sweep dialog as:

| arm | strategy and parameters | what is sent |
|---|---|---|
| ``uniform:N`` | ``fieldworkarena``, sampling=uniform, max_frames=N | N frames at uniform intervals of each video |
| ``fps:R:CAP`` | ``fieldworkarena``, seconds_per_frame=1/R, max_frames=CAP | R frames per second (R <= 1), at most CAP |
| ``chunked:S`` | ``chunked``, chunk_s=S | S-second chunks at 1 frame/s described one by one, then one answer |
| ``NAME[:k=v[:k=v...]]`` | the strategy NAME with those parameters | e.g. ``industryeqa:frames=16`` |

``uniform`` and ``fps`` arms keep FieldWorkArena's prompt (a timestamp before each frame), so two such arms differ
only in the frames sent. The arms' runs share a sweep id in their params (``run.params["sweep"]``: id, arm label,
position, arm count); `create_sweep` makes them, `execute_sweep` answers them one after the other
(``batch.execute_batch``: cancel stops at the next request, a later call continues without paying twice), and
`compare.sweeps` reads the result (paired differences, evidence coverage, frames sent, cost).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.parameters import ParameterError
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.inference import sampling
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs import batch
from fieldstudio.inference.runs.run_records import create_run
from fieldstudio.inference.strategies import REGISTRY, get_strategy
from fieldstudio.store.models import Answer, Run, new_id
from fieldstudio.store.models import ModelProfile as ProfileRow
from fieldstudio.store.project import Project

__all__ = ["ARM_SYNTAX", "Arm", "SweepRuns", "parse_arm", "create_sweep", "execute_sweep", "list_sweeps",
           "sweep_runs", "find_resumable_sweep"]

ARM_SYNTAX = ("uniform:N (N uniform frames), fps:R:CAP (R frames per second, R <= 1, at most CAP), chunked:S "
              "(S-second chunks described, then one answer), or STRATEGY[:name=value...]")
"""The arm syntax in one line, for help texts and errors."""


class SweepError(FieldstudioError):
    """An arm that cannot be read, or a sweep that cannot be made (no arm, one arm twice)."""


@dataclass(frozen=True)
class Arm:
    """One arm: its ``label`` as written (``uniform:8``), the ``strategy`` name and its ``params``."""

    label: str
    strategy: str
    params: dict[str, Any] = field(default_factory=dict)


def _number(text: str, what: str, label: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise SweepError(f"arm {label!r}: {what} {text!r} is not a number; arms are {ARM_SYNTAX}") from None


def _checked(label: str, strategy: str, params: dict[str, Any]) -> Arm:
    """The arm, after checking each parameter against the strategy's declared ones (name, range, choices)."""
    try:
        chosen = get_strategy(strategy)
    except FieldstudioError as exc:
        raise SweepError(f"arm {label!r}: {exc}") from None
    declared = {p.name: p for p in chosen.parameters}
    for name, value in params.items():
        p = declared.get(name)
        if p is None:
            raise SweepError(f"arm {label!r}: strategy {strategy} has no parameter {name!r} (it has "
                             f"{', '.join(sorted(declared)) or 'none'})")
        try:
            if p.choices:
                if value not in p.choices:
                    raise ParameterError(f"{strategy} parameter {name}={value!r} is not one of {', '.join(p.choices)}")
            elif p.type in (int, float):
                number = p.check_number(value, strategy)
                if p.type is int and number != int(number):
                    raise ParameterError(f"{strategy} parameter {name}={value!r} must be a whole number")
                params[name] = p.type(number)
        except ParameterError as exc:
            raise SweepError(f"arm {label!r}: {exc}") from None
    return Arm(label, strategy, params)


def parse_arm(text: str) -> Arm:
    """The arm ``text`` names (module docstring). Raises SweepError with the syntax when it cannot be read, or when a
    value lies outside the strategy parameter's declared range (``fps:2:30`` asks 0.5 s between frames, below the
    1 s that ``seconds_per_frame`` allows)."""
    label = text.strip()
    head, _, rest = label.partition(":")
    values = rest.split(":") if rest else []
    if head == "uniform":
        if len(values) != 1:
            raise SweepError(f"arm {label!r}: write uniform:N, e.g. uniform:16")
        return _checked(label, "fieldworkarena", {"sampling": sampling.SAMPLING_UNIFORM,
                                                  "max_frames": _number(values[0], "N", label)})
    if head == "fps":
        if len(values) != 2:
            raise SweepError(f"arm {label!r}: write fps:R:CAP, e.g. fps:1:30 (1 frame per second, at most 30)")
        rate = _number(values[0], "R", label)
        if rate <= 0:
            raise SweepError(f"arm {label!r}: R, frames per second, must be above 0")
        return _checked(label, "fieldworkarena", {"sampling": sampling.SAMPLING_PTS, "seconds_per_frame": 1.0 / rate,
                                                  "max_frames": _number(values[1], "CAP", label)})
    if head == "chunked" and values and "=" not in values[0]:
        if len(values) != 1:
            raise SweepError(f"arm {label!r}: write chunked:S, e.g. chunked:30")
        return _checked(label, "chunked", {"chunk_s": _number(values[0], "S", label)})
    if head in REGISTRY:
        params: dict[str, Any] = {}
        for item in values:
            name, sep, value = item.partition("=")
            if not sep or not name:
                raise SweepError(f"arm {label!r}: {item!r} is not name=value; arms are {ARM_SYNTAX}")
            if name in params:
                raise SweepError(f"arm {label!r}: parameter {name!r} is given twice")
            params[name] = value
        return _checked(label, head, params)
    raise SweepError(f"arm {label!r} is not known; arms are {ARM_SYNTAX}")


@dataclass(frozen=True)
class SweepRuns:
    """A sweep as stored: its ``sweep_id``, the ``profile`` name, and (arm label, run id) in arm order."""

    sweep_id: str
    profile: str
    arms: tuple[tuple[str, str], ...]

    @property
    def run_ids(self) -> list[str]:
        """The arms' run ids, in arm order."""
        return [run_id for _, run_id in self.arms]


def _filled(arm: Arm) -> tuple[tuple[str, str], ...]:
    """The arm's parameters with the strategy's declared defaults filled in, sorted: what two arms are compared by."""
    values = {p.name: p.default for p in get_strategy(arm.strategy).parameters}
    values.update(arm.params)
    return tuple(sorted((k, repr(v)) for k, v in values.items()))


def create_sweep(project: Project, profile: ModelProfile, task_ids: Sequence[str], arms: Sequence[Arm]) -> SweepRuns:
    """One new run per arm of ``profile`` over ``task_ids``, named ``<profile> · <arm>``, sharing a sweep id.

    Raises SweepError for no arm or an arm label given twice; FieldstudioError for no task, ProjectReadOnly as
    `create_run`."""
    if not arms:
        raise SweepError(f"a sweep needs at least one arm; arms are {ARM_SYNTAX}")
    # Two spellings of one arm (uniform:8, uniform:8.0, fieldworkarena:sampling=uniform:max_frames=8) would pay for
    # the same requests twice and pair a run with its own copy, so arms are compared by what they send.
    seen: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}
    for arm in arms:
        key = (arm.strategy, _filled(arm))
        if key in seen:
            same = "is given twice" if seen[key] == arm.label else f"sends the same as arm {seen[key]!r}"
            raise SweepError(f"arm {arm.label!r} {same}")
        seen[key] = arm.label
    sweep_id = new_id()
    out = []
    for position, arm in enumerate(arms):
        run_id = create_run(project, profile, task_ids, arm.strategy, params=arm.params,
                            name=f"{profile.name} · {arm.label}", group=sweep_id,
                            sweep={"id": sweep_id, "arm": arm.label, "position": position, "arms": len(arms)})
        out.append((arm.label, run_id))
    return SweepRuns(sweep_id, profile.name, tuple(out))


def execute_sweep(project: Project, sweep: SweepRuns, profile: ModelProfile, *, progress: Progress = lambda d, t: None,
                  cancelled: Cancelled = lambda: False, use_cache: bool = True) -> batch.BatchResult:
    """Answer every arm's pending tasks, arm after arm, with ``profile`` (``batch.execute_batch``: progress over the
    whole sweep, cancel at the next request; what finished is kept and a later call continues).
    Raises as ``run_queue.execute_run`` (NotFound, ProfileError, ProjectReadOnly)."""
    return batch.execute_batch(project, sweep.run_ids, [profile] * len(sweep.run_ids), progress=progress,
                               cancelled=cancelled, use_cache=use_cache)


def list_sweeps(project: Project) -> list[SweepRuns]:
    """Every sweep of the project, newest first (a sweep whose runs were all deleted is gone)."""
    with project.read() as s:
        rows = s.execute(select(Run.id, Run.params, Run.started_at, ProfileRow.name)
                         .outerjoin(ProfileRow, Run.profile_id == ProfileRow.id)
                         .where(Run.kind == "model").order_by(Run.started_at)).all()
    found: dict[str, list[tuple[int, str, str]]] = {}
    profiles: dict[str, str] = {}
    for run_id, params, _started, profile in rows:
        mark = (params or {}).get("sweep") if isinstance(params, dict) else None
        if not isinstance(mark, dict) or not mark.get("id"):
            continue
        found.setdefault(mark["id"], []).append((int(mark.get("position", 0)), str(mark.get("arm")), run_id))
        profiles[mark["id"]] = profile or (params or {}).get("profile_name") or "?"
    sweeps = [SweepRuns(sid, profiles[sid], tuple((label, run_id) for _, label, run_id in sorted(arms)))
              for sid, arms in found.items()]
    return sweeps[::-1]


def sweep_runs(project: Project, ref: str) -> SweepRuns:
    """The sweep ``ref`` names: its whole id or its first 6+ characters, or ``latest``. Raises SweepError."""
    sweeps = list_sweeps(project)
    if not sweeps:
        raise SweepError(f"no sweep in {project.path.name}: make one with `fieldstudio sweep P -m PROFILE --arm ...`")
    if ref == "latest":
        return sweeps[0]
    hits = [w for w in sweeps if w.sweep_id == ref or (len(ref) >= 6 and w.sweep_id.startswith(ref.lower()))]
    if len(hits) != 1:
        raise SweepError(f"no sweep {ref!r}" if not hits else f"{ref!r} names several sweeps")
    return hits[0]


def find_resumable_sweep(project: Project, profile: ModelProfile, arms: Sequence[Arm],
                         task_ids: Sequence[str]) -> SweepRuns | None:
    """The newest sweep of this profile with these arm labels, in this order, over exactly these tasks, that still
    has pending answers (what running the same sweep command again continues), else None.

    A sweep whose runs were made while the profile named another model or base URL is not continued: its answers
    would mix two models under one arm."""
    labels = tuple(a.label for a in arms)
    wanted = set(task_ids)
    for sweep in list_sweeps(project):
        if sweep.profile != profile.name or tuple(label for label, _ in sweep.arms) != labels:
            continue
        with project.read() as s:
            rows = s.execute(select(Answer.run_id, Answer.task_id, Answer.raw_text.is_(None) & Answer.error.is_(None))
                             .where(Answer.run_id.in_(sweep.run_ids))).all()
            served = set(s.execute(select(ProfileRow.model, ProfileRow.base_url)
                                   .join(Run, Run.profile_id == ProfileRow.id)
                                   .where(Run.id.in_(sweep.run_ids))).all())
        if served != {(profile.model, profile.shown_url)}:
            return None
        per_run: dict[str, set[str]] = {}
        for run_id, task_id, _ in rows:
            per_run.setdefault(run_id, set()).add(task_id)
        if all(per_run.get(r) == wanted for r in sweep.run_ids) and any(pending for _, _, pending in rows):
            return sweep
        return None
    return None
