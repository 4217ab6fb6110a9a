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
    the prompt (None: the prompt is the only message); ``token_parameter``: the name the benchmark's code sends
    the cap under ("max_tokens" or "max_completion_tokens"); ``sends_stop``: its request carries ``"stop"``
    (null: its judge calls pass no stop token).
    """

    model: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    system: str | None = None
    token_parameter: str = "max_tokens"
    sends_stop: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict (stored in ``Score.judge["settings"]``); the request's parameter
        names only where they differ from the plain ``max_tokens`` and no ``stop``."""
        out = asdict(self)
        if self.token_parameter == "max_tokens":
            del out["token_parameter"]
        if not self.sends_stop:
            del out["sends_stop"]
        return out

    def request_extra(self) -> dict[str, Any]:
        """What goes into the request body besides a plain ``max_tokens``: the cap under the code's own name
        when it is ``max_completion_tokens``, and ``"stop": None`` when the code sends it; {} otherwise."""
        extra: dict[str, Any] = {}
        if self.token_parameter != "max_tokens" and self.max_tokens is not None:
            extra[self.token_parameter] = self.max_tokens
        if self.sends_stop:
            extra["stop"] = None
        return extra

    def describe(self) -> str:
        """One line for the CLI and the GUI: 'temperature 0, top_p 1, seed 42, 768 tokens, system message "..."'."""
        parts = [f"temperature {self.temperature:g}" if self.temperature is not None else "temperature not sent",
                 f"top_p {self.top_p:g}" if self.top_p is not None else "top_p not sent",
                 f"seed {self.seed}" if self.seed is not None else "no seed",
                 (f"{self.max_tokens} tokens" + (f" (as {self.token_parameter})" if self.token_parameter != "max_tokens"
                                                  else "")) if self.max_tokens is not None else "no token cap",
                 *(["stop null"] if self.sends_stop else []),
                 f"system message {self.system!r}" if self.system else "no system message"]
        return ", ".join(parts)
