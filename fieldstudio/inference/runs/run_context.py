"""The facts a run's reproducibility record needs that only the moment of running knows, kept on the run.

Each time a run is executed (started or resumed) it appends one ``session`` (the time, fieldstudio's version,
the decoders' versions and how frames are made, the endpoint kind and what the server said it serves); each
scoring of its answers appends one ``scoring`` (``scoring.service``). They are kept in the run row's ``params``
JSON under ``"record"`` (``{"sessions": [...], "scorings": [...]}``), so they live in the project beside the run,
move with ``project copy`` and with ``runs export``, and need no schema change. The whole record is assembled
from them and the stored answers, frames and scores by ``fieldstudio.reproducibility.record``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from fieldstudio import __version__
from fieldstudio.core.errors import NotFound
from fieldstudio.store.models import Run, utcnow
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.media.decoders import FRAME_RECIPE, decoder_versions
from fieldstudio.store.project import Project

RECORD_KEY = "record"
"""The key of ``Run.params`` that holds the record's sessions and scorings."""


def add_record_entry(project: Project, run_id: str, kind: str, entry: dict[str, Any]) -> None:
    """Append ``entry`` to the run's record list ``kind`` ("sessions" or "scorings") in one short write.

    Raises NotFound for an unknown run, ValueError for another kind, ProjectReadOnly."""
    add_record_entries(project, kind, {run_id: entry})


def add_record_entries(project: Project, kind: str, entries: Mapping[str, dict[str, Any]]) -> None:
    """Append each entry of ``entries`` (run id -> entry) to its run's record list ``kind``, all in one write (a
    scoring of 111 runs made 111 commits, most of a scoring that re-scored one task's answers).

    Raises NotFound for an unknown run (nothing is then written), ValueError for another kind, ProjectReadOnly."""
    if kind not in ("sessions", "scorings"):
        raise ValueError(f"a run record holds sessions and scorings, not {kind!r}")
    with project.write() as s:
        for run_id, entry in entries.items():
            run = s.get(Run, run_id)
            if run is None:
                raise NotFound(f"no run {run_id!r} in {project.path.name}")
            params = copy.deepcopy(run.params or {})   # a new object: SQLAlchemy sees a JSON change only by assignment
            params.setdefault(RECORD_KEY, {}).setdefault(kind, []).append(entry)
            run.params = params


def record_entries(params: dict[str, Any] | None) -> dict[str, list[dict[str, Any]]]:
    """The sessions and scorings kept in a run's ``params`` (empty lists for a run from before records)."""
    kept = (params or {}).get(RECORD_KEY) or {}
    return {"sessions": list(kept.get("sessions") or []), "scorings": list(kept.get("scorings") or [])}


def session_entry(profile: ModelProfile, vision: ModelProfile | None = None, *, ask_server: bool = True,
                  **settings: Any) -> dict[str, Any]:
    """One execution of a run: the time (ISO 8601 UTC), fieldstudio's version, ``decoder_versions()``, the frame
    recipe, the endpoint kind (the profile's preset), the model id asked for, the seed and temperature sent, the
    run's settings given (concurrency, cache use) and ``served`` (``inference.served.served_model``; None when
    ``ask_server`` is False). The vision profile of agent mode is described the same way under ``vision``."""
    from fieldstudio.inference.served import served_model

    def endpoint(p: ModelProfile) -> dict[str, Any]:
        return {"profile": p.name, "endpoint_kind": p.preset or "openai-compatible", "model": p.model,
                "base_url": p.shown_url, "seed": p.seed, "temperature": p.temperature,
                "served": served_model(p) if ask_server else None}

    entry = {"time": utcnow().isoformat(), "fieldstudio_version": __version__, "versions": decoder_versions(),
             "frame_recipe": dict(FRAME_RECIPE), **endpoint(profile), "settings": settings}
    if vision is not None and vision.name != profile.name:
        entry["vision"] = endpoint(vision)
    return entry


__all__ = ["RECORD_KEY", "add_record_entry", "add_record_entries", "record_entries", "session_entry"]
