"""``JudgeSettings``: how a judge is asked (sampling, token cap, system message), stored with every verdict."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["JudgeSettings"]


@dataclass(frozen=True)
class JudgeSettings:
    """The settings of one judge's calls.

    ``model``: the judge model the benchmark's code names (shown beside the profile's model, which is the
    one asked); ``temperature``, ``top_p``, ``seed``: sent with each request (None: not sent);
    ``max_tokens``: completion-token cap (None: not sent); ``system``: the system message sent before
    the prompt (None: the prompt is the only message).
    """

    model: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    system: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict (stored in ``Score.judge["settings"]``)."""
        return asdict(self)

    def describe(self) -> str:
        """One line for the CLI and the GUI: 'temperature 0, top_p 1, seed 42, 768 tokens, system message "..."'."""
        parts = [f"temperature {self.temperature:g}" if self.temperature is not None else "temperature not sent",
                 f"top_p {self.top_p:g}" if self.top_p is not None else "top_p not sent",
                 f"seed {self.seed}" if self.seed is not None else "no seed",
                 f"{self.max_tokens} tokens" if self.max_tokens is not None else "no token cap",
                 f"system message {self.system!r}" if self.system else "no system message"]
        return ", ".join(parts)
