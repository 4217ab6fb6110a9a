"""The project's ethogram: behaviours, subjects and modifiers, kept as one JSON project setting.

A behaviour has a name (BORIS's "code"), one key, a colour, a type (``"state"``: lasts from its key to its key
again, or to the start of a behaviour of the same exclusive group for the same subject; ``"point"``: one frame),
an optional mutually exclusive ``group`` and a list of ``modifiers`` to choose from when it is coded. A subject
has a name and a key. Keys are one character, compared case-insensitively, and unique across behaviours AND
subjects (one key press means one thing); a behaviour without a key (one that came with imported events) is
listed, budgeted and compared, but not coded by key until it gets one.

The ethogram lives in the ``project_setting`` row ``"ethogram"`` (no table of its own: it is small and read
whole). :class:`SetEthogram` is the one undoable edit that changes it. Errors: :class:`EthogramError`.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.edits import Edit
from fieldstudio.store.project import Project

SETTING_KEY = "ethogram"
TYPES = ("state", "point")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
#: Colours given to behaviours added without one, in turn (distinct on the dark timeline).
PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45", "#fabed4",
           "#469990", "#dcbeff", "#9a6324")


class EthogramError(FieldstudioError):
    """The ethogram cannot be changed as asked (a name or key taken, a bad colour or type)."""


@dataclass(frozen=True)
class Behaviour:
    """One behaviour: ``name``, ``key`` (one character), ``colour`` ``#rrggbb``, ``type`` "state" | "point",
    ``group`` (mutually exclusive group name, "" for none), ``modifiers`` (choices offered when coded),
    ``description``."""

    name: str
    key: str
    colour: str = "#e6194b"
    type: str = "state"
    group: str = ""
    modifiers: tuple[str, ...] = ()
    description: str = ""

    @property
    def is_state(self) -> bool:
        return self.type == "state"


@dataclass(frozen=True)
class Subject:
    """One subject (a worker, an animal): ``name`` and ``key`` (one character, "" for none)."""

    name: str
    key: str = ""
    description: str = ""


@dataclass(frozen=True)
class Ethogram:
    """The behaviours and subjects of a project, in the order the user gave them."""

    behaviours: tuple[Behaviour, ...] = ()
    subjects: tuple[Subject, ...] = ()

    def behaviour(self, name: str) -> Behaviour:
        """The behaviour called ``name`` (exact). Raises EthogramError naming the known ones."""
        for b in self.behaviours:
            if b.name == name:
                return b
        raise EthogramError(f"no behaviour {name!r} in the ethogram; known: "
                            f"{', '.join(b.name for b in self.behaviours) or 'none'}")

    def subject(self, name: str) -> Subject:
        """The subject called ``name`` (exact). Raises EthogramError naming the known ones."""
        for s in self.subjects:
            if s.name == name:
                return s
        raise EthogramError(f"no subject {name!r} in the ethogram; known: "
                            f"{', '.join(s.name for s in self.subjects) or 'none'}")

    def by_key(self, key: str) -> Behaviour | Subject | None:
        """The behaviour or subject whose key is ``key`` (case-insensitive), or None."""
        k = key.lower()
        for item in (*self.behaviours, *self.subjects):
            if item.key and item.key.lower() == k:
                return item
        return None

    def exclusive_with(self, behaviour: Behaviour) -> tuple[Behaviour, ...]:
        """The other state behaviours of ``behaviour``'s mutually exclusive group (none without a group)."""
        if not behaviour.group:
            return ()
        return tuple(b for b in self.behaviours
                     if b.group == behaviour.group and b.name != behaviour.name and b.is_state)

    def to_json(self) -> dict[str, Any]:
        """The stored form: ``{"behaviours": [...], "subjects": [...]}`` (lists, JSON types only)."""
        return {"behaviours": [asdict(b) | {"modifiers": list(b.modifiers)} for b in self.behaviours],
                "subjects": [asdict(s) for s in self.subjects]}

    @classmethod
    def from_json(cls, value: Any) -> Ethogram:
        """Read the stored form back (checked as :func:`checked` does). Raises EthogramError."""
        if not value:
            return cls()
        if not isinstance(value, dict):
            raise EthogramError("an ethogram is a JSON object with 'behaviours' and 'subjects'")
        try:
            behaviours = tuple(Behaviour(**(b | {"modifiers": tuple(b.get("modifiers") or ())}))
                               for b in value.get("behaviours") or ())
            subjects = tuple(Subject(**s) for s in value.get("subjects") or ())
        except TypeError as exc:
            raise EthogramError(f"an ethogram entry has an unknown or missing field: {exc}") from None
        return checked(cls(behaviours, subjects))


def checked(ethogram: Ethogram) -> Ethogram:
    """``ethogram`` when every name is unique and non-empty, every key one character used once, every colour
    ``#rrggbb`` and every type state or point; else EthogramError saying which entry is wrong."""
    names: set[str] = set()
    keys: dict[str, str] = {}
    for kind, items in (("behaviour", ethogram.behaviours), ("subject", ethogram.subjects)):
        names.clear()
        for item in items:
            if not item.name.strip():
                raise EthogramError(f"a {kind} needs a name")
            if item.name in names:
                raise EthogramError(f"two {kind}s are called {item.name!r}")
            names.add(item.name)
            if item.key:
                if len(item.key) != 1 or item.key.isspace():
                    raise EthogramError(f"{kind} {item.name!r}: a key is one character, not {item.key!r}")
                other = keys.get(item.key.lower())
                if other is not None:
                    raise EthogramError(f"{kind} {item.name!r}: key {item.key!r} is already {other}'s")
                keys[item.key.lower()] = item.name
    for b in ethogram.behaviours:
        if b.type not in TYPES:
            raise EthogramError(f"behaviour {b.name!r}: type is 'state' or 'point', not {b.type!r}")
        if not _COLOUR.match(b.colour):
            raise EthogramError(f"behaviour {b.name!r}: colour is #rrggbb, not {b.colour!r}")
        if len(set(b.modifiers)) != len(b.modifiers) or any(not m.strip() for m in b.modifiers):
            raise EthogramError(f"behaviour {b.name!r}: modifiers must be distinct and non-empty")
    return ethogram


def load(project: Project) -> Ethogram:
    """The project's ethogram (empty when none was made)."""
    return Ethogram.from_json(project.setting(SETTING_KEY))


def save(project: Project, ethogram: Ethogram) -> None:
    """Store ``ethogram`` (checked first; nothing stored on EthogramError). Prefer :class:`SetEthogram`."""
    project.set_setting(SETTING_KEY, checked(ethogram).to_json())


def _key_free(ethogram: Ethogram, kind: str, item: Behaviour | Subject) -> None:
    """EthogramError naming the owner when ``item``'s key is another entry's (the one added is the one refused:
    :func:`checked` alone would name whichever of the two comes later)."""
    if not item.key:
        return
    others = [*(b for b in ethogram.behaviours if kind != "behaviour" or b.name != item.name),
              *(s for s in ethogram.subjects if kind != "subject" or s.name != item.name)]
    owner = next((o for o in others if o.key and o.key.lower() == item.key.lower()), None)
    if owner is not None:
        raise EthogramError(f"{kind} {item.name!r}: key {item.key!r} is already {owner.name}'s")


def with_behaviour(ethogram: Ethogram, behaviour: Behaviour) -> Ethogram:
    """``ethogram`` with ``behaviour`` added, or replacing the one of the same name; a colour is taken from
    :data:`PALETTE` when ``behaviour.colour`` is empty. Checked (EthogramError)."""
    if not behaviour.colour:
        behaviour = replace(behaviour, colour=PALETTE[len(ethogram.behaviours) % len(PALETTE)])
    _key_free(ethogram, "behaviour", behaviour)
    kept = [b for b in ethogram.behaviours if b.name != behaviour.name]
    at = next((i for i, b in enumerate(ethogram.behaviours) if b.name == behaviour.name), len(kept))
    kept.insert(at, behaviour)
    return checked(replace(ethogram, behaviours=tuple(kept)))


def with_subject(ethogram: Ethogram, subject: Subject) -> Ethogram:
    """``ethogram`` with ``subject`` added or replacing the one of the same name. Checked (EthogramError)."""
    _key_free(ethogram, "subject", subject)
    kept = [s for s in ethogram.subjects if s.name != subject.name]
    at = next((i for i, s in enumerate(ethogram.subjects) if s.name == subject.name), len(kept))
    kept.insert(at, subject)
    return checked(replace(ethogram, subjects=tuple(kept)))


def without(ethogram: Ethogram, name: str) -> Ethogram:
    """``ethogram`` without the behaviour or subject called ``name`` (EthogramError when there is none).
    Events already coded with it stay (they keep their names)."""
    behaviours = tuple(b for b in ethogram.behaviours if b.name != name)
    subjects = tuple(s for s in ethogram.subjects if s.name != name)
    if len(behaviours) + len(subjects) == len(ethogram.behaviours) + len(ethogram.subjects):
        raise EthogramError(f"no behaviour or subject {name!r} in the ethogram")
    return Ethogram(behaviours, subjects)


@dataclass
class SetEthogram(Edit):
    """Edit: replace the project's ethogram with ``ethogram``; undo puts the previous one back."""

    project: Project
    ethogram: Ethogram
    text: str = "Edit ethogram"
    previous: Any = field(default=None, init=False)

    def do(self) -> None:
        value = checked(self.ethogram).to_json()
        self.previous = self.project.setting(SETTING_KEY)
        self.project.set_setting(SETTING_KEY, value)

    def undo(self) -> None:
        self.project.set_setting(SETTING_KEY, self.previous)
