"""CSV cells a spreadsheet would run as a formula, written so that it does not.

Excel, LibreOffice and Google Sheets read a cell beginning with ``=``, ``+``, ``-`` or ``@`` (and, after a tab or
a carriage return, the same) as a formula: a task's question or a model's answer such as ``=HYPERLINK(...)`` would
run when the CSV is opened. Such a text cell is written with a leading apostrophe (``'=HYPERLINK(...)``), which the
spreadsheets show as the text itself (OWASP's advice for CSV injection). A cell that is a plain number (``-3.5``,
``+2``) is left as it is: a number is not a formula. The exports take ``raw_cells=True`` to write cells exactly as
stored, and fieldstudio's own CSV readers take the apostrophe off again (`unprotect_cell`).
"""

from __future__ import annotations

import re
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def protect_cell(value: Any) -> Any:
    """`value` as a CSV cell a spreadsheet shows as text: a string starting like a formula gets a leading ``'``;
    numbers, plain numeric strings and anything else are returned unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.match(value.strip()):
        return "'" + value
    return value


def unprotect_cell(value: str) -> str:
    """The text a `protect_cell` cell stands for (its leading ``'`` removed when a formula start follows it)."""
    if value.startswith("'") and value[1:2] and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def protect_frame(df):  # noqa: ANN001, ANN201 - pandas DataFrame in and out (pandas is imported by the caller)
    """A copy of a pandas DataFrame with `protect_cell` applied to every text cell."""
    out = df.copy()
    for column in out.columns:
        if out[column].dtype.kind == "O":       # object and pandas' string dtypes: where text lives
            out[column] = out[column].map(protect_cell, na_action="ignore")
    return out
