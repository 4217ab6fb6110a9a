"""A named, typed and bounded parameter of a prompt strategy or a scorer, declared where it is read.

A strategy (``inference.strategies``) and a scorer (``scoring.scorers``) each list the parameters they
read; the Runs tab builds its widgets from them, ``fieldstudio score --param`` is checked against them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["Parameter", "ParameterError"]


class ParameterError(ValueError):
    """A value a parameter does not take; the message names the parameter and its range."""


@dataclass(frozen=True)
class Parameter:
    """One parameter.

    Attributes:
        name: the key in the ``params`` mapping (``frames``, ``max_side``, ``alpha``...).
        type: ``int``, ``float`` or ``str``: what a value is converted to before use.
        default: the value used when the parameter is not given; None when the strategy or scorer
            chooses it (from the model profile, the task's tolerances, the strategy's own rule).
        low, high: the range of a number (None: unbounded on that side); ``low_included`` False for an
            open lower bound (a threshold that is divided by must stay above 0).
        help: one sentence for a tooltip or ``--help``: what it changes, in the user's words.
        label: the row title in a form ("Max frames").
        unit: the unit shown after a number (" s", " px"), with its leading space.
        choices: the values a text parameter takes (empty: any).
        advanced: set from the command line only (``--param name=value``); forms leave it out.
    """

    name: str
    type: type = float
    default: Any = None
    low: float | None = None
    high: float | None = None
    low_included: bool = True
    help: str = ""
    label: str = ""
    unit: str = ""
    choices: tuple[str, ...] = ()
    advanced: bool = False

    def range_text(self) -> str:
        """'in [0, 1]', 'in (0, 60]', 'above 0' or '' (no bounds), as a sentence ends with it."""
        if self.low is None and self.high is None:
            return ""
        if self.high is None or not math.isfinite(self.high):
            return f"above {self.low:g}" if not self.low_included else f"at least {self.low:g}"
        low = "-inf" if self.low is None else f"{self.low:g}"
        return f"in {'[' if self.low_included else '('}{low}, {self.high:g}]"

    def check_number(self, value: Any, owner: str) -> float:
        """``value`` as a float inside the range. Raises ParameterError naming ``owner`` (a scorer or strategy
        name) and the parameter when it is not a finite number or lies outside the range."""
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ParameterError(f"{owner} parameter {self.name}={value!r} is not a number") from None
        too_low = self.low is not None and (number < self.low or (number == self.low and not self.low_included))
        too_high = self.high is not None and number > self.high
        if not math.isfinite(number) or too_low or too_high:
            raise ParameterError(f"{owner} parameter {self.name}={value!r} must be a number {self.range_text()}")
        return number
