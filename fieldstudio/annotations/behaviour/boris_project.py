"""BORIS's ethogram read from its project file (``.boris``: JSON with ``behaviors_conf`` and ``subjects_conf``).

What is read: each behaviour's ``code`` (our name), ``key``, ``type`` ("State event" / "Point event", with or
without a coding map), ``color`` (CSS names and ``#rrggbb``; other forms get a palette colour), ``description``
and its modifiers (every set's ``values`` in order, BORIS's older ``"a,b,c"`` string too); each subject's ``name``
and ``key``. BORIS keeps exclusions as a per-behaviour list of the codes it excludes (``excluded``); behaviours
linked by exclusions become one mutually exclusive group, named after its first behaviour. Categories, coding maps
and observations are not read. Errors: EthogramError naming the file.
"""

from __future__ import annotations

from pathlib import Path

from fieldstudio.annotations.behaviour.ethogram import (PALETTE, Behaviour, Ethogram, EthogramError, Subject,
                                                        checked)
from fieldstudio.core.json_limits import load_json

#: The CSS colour names BORIS's colour chooser offers most often, as #rrggbb.
_NAMED = {"red": "#ff0000", "green": "#008000", "blue": "#0000ff", "black": "#000000", "white": "#ffffff",
          "yellow": "#ffff00", "orange": "#ffa500", "purple": "#800080", "cyan": "#00ffff", "magenta": "#ff00ff",
          "gray": "#808080", "grey": "#808080", "brown": "#a52a2a", "pink": "#ffc0cb", "lime": "#00ff00",
          "navy": "#000080", "teal": "#008080", "olive": "#808000", "maroon": "#800000"}


def _modifiers(value: object) -> tuple[str, ...]:
    if isinstance(value, str):  # BORIS before 7: "a,b,c" or "a,b|c,d" (sets separated by |)
        return tuple(dict.fromkeys(v.strip() for part in value.split("|") for v in part.split(",") if v.strip()))
    if isinstance(value, dict):
        out: list[str] = []
        for key in sorted(value, key=lambda k: int(k) if str(k).isdigit() else 0):
            out += [str(v).strip() for v in (value[key] or {}).get("values") or () if str(v).strip()]
        return tuple(dict.fromkeys(out))
    return ()


def _groups(conf: list[dict]) -> dict[str, str]:
    """Group name of each code linked to others by BORIS's ``excluded`` lists (union of linked codes)."""
    parent = {str(b.get("code", "")): str(b.get("code", "")) for b in conf}

    def root(code: str) -> str:
        while parent[code] != code:
            code = parent[code]
        return code

    for b in conf:
        excluded = b.get("excluded") or ""
        others = excluded.split(",") if isinstance(excluded, str) else list(excluded)
        for other in (o.strip() for o in others):
            if other in parent:
                parent[root(other)] = root(str(b.get("code", "")))
    members: dict[str, list[str]] = {}
    for code in parent:
        members.setdefault(root(code), []).append(code)
    return {code: group[0] for group in members.values() if len(group) > 1 for code in group}


def read_boris_ethogram(path: Path) -> Ethogram:
    """The ethogram of the BORIS project file ``path`` (see the module's docstring). Raises EthogramError."""
    try:
        project = load_json(Path(path).read_bytes())
    except (OSError, ValueError) as exc:
        raise EthogramError(f"{Path(path).name}: not a BORIS project file ({exc})") from None
    if not isinstance(project, dict) or "behaviors_conf" not in project:
        raise EthogramError(f"{Path(path).name}: not a BORIS project file (no 'behaviors_conf')")
    conf = [project["behaviors_conf"][k] for k in sorted(project["behaviors_conf"], key=lambda k: int(k))]
    groups = _groups(conf)
    behaviours = []
    for n, b in enumerate(conf):
        colour = str(b.get("color") or "").strip().lower()
        colour = _NAMED.get(colour, colour) if colour else ""
        if not colour.startswith("#") or len(colour) != 7:
            colour = PALETTE[n % len(PALETTE)]
        code = str(b.get("code", ""))
        behaviours.append(Behaviour(
            name=code, key=str(b.get("key") or ""), colour=colour,
            type="point" if "point" in str(b.get("type", "")).lower() else "state",
            group=groups.get(code, ""), modifiers=_modifiers(b.get("modifiers")),
            description=str(b.get("description") or "")))
    subjects_conf = project.get("subjects_conf") or {}
    subjects = [Subject(name=str(s.get("name", "")), key=str(s.get("key") or ""),
                        description=str(s.get("description") or ""))
                for s in (subjects_conf[k] for k in sorted(subjects_conf, key=lambda k: int(k)))]
    try:
        return checked(Ethogram(tuple(behaviours), tuple(subjects)))
    except EthogramError as exc:
        raise EthogramError(f"{Path(path).name}: {exc}") from None
