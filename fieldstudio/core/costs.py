"""How a sum of answer costs is stated: one rule for the Runs tab, the CLI and the comparison report.

An answer's cost is known when its profile has prices and the server reported the tokens used; a run of
a local server with no price set has none. A sum over answers is then:

* ``complete``: every answer's cost is known; the sum is the cost;
* ``partial``: some are known; the sum of those is a lower bound;
* ``unknown``: none is known (a sum of nothing is no "$0").

The text says which answers the number covers ("≥ $0.0028 (1 of 3 answers priced)"), as coverage says
how many answers a mean covers.
"""

from __future__ import annotations

import math

__all__ = ["amount_text", "cost_status", "cost_text", "usd_text"]


def usd_text(value: float, digits: int = 4) -> str:
    """``value`` USD as ``$0.0123`` (``digits`` decimals); a non-zero amount below the last decimal keeps two
    significant digits (``$0.000031``), since a local model's cost per answer at a few dollars an hour would
    otherwise read as ``$0.0000``, a known cost shown as nothing."""
    value = float(value)
    if value != 0 and abs(value) < 0.5 * 10 ** -digits and math.isfinite(value):
        digits = 1 - math.floor(math.log10(abs(value)))
    return f"${value:.{digits}f}"


def cost_status(priced: int, unpriced: int) -> str:
    """``complete``, ``partial`` or ``unknown`` (module docstring) for ``priced`` answers with a known cost
    and ``unpriced`` without one; no answers at all is ``complete`` (nothing to pay)."""
    if unpriced <= 0:
        return "complete"
    return "unknown" if priced <= 0 else "partial"


def cost_text(usd: float | None, priced: int, unpriced: int, *, digits: int = 4) -> str:
    """The cost of ``priced + unpriced`` answers whose known costs sum to ``usd`` (USD), as shown to a person:
    ``$0.0123``; ``≥ $0.0028 (1 of 3 answers priced)``; ``unknown (0 of 42 answers priced)``."""
    status = cost_status(priced, unpriced)
    total = priced + unpriced
    if status == "unknown" or usd is None or usd != usd:
        return f"unknown ({max(priced, 0)} of {total} answers priced)"
    amount = usd_text(usd, digits)
    return amount if status == "complete" else f"≥ {amount} ({priced} of {total} answers priced)"


def amount_text(value: float | None, complete: bool = True, digits: int = 4) -> str:
    """One amount in USD (an answer's cost, an estimate): ``$0.0123``; ``?`` when unknown; ``≥ $0.0123`` when
    it sums known parts only (a lower bound). Sums over answers say how many are priced: :func:`cost_text`."""
    if value is None:
        return "?"
    return ("" if complete else "≥ ") + usd_text(value, digits)
