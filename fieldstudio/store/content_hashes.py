"""The content hashes kept on the rows a score judges: ``answer.content_sha256`` and ``task.truth_sha256``.

A score row keeps the SHA-256 of the answer and of the ground truth it judged (``Score.answer_sha256``,
``Score.truth_sha256``, ``scoring.staleness``). With the same hashes stored on the answer and the task whenever
they are written, "which answers already have a current score" is one SQL join (``scoring.currency``) instead
of reading and hashing every answer and task in Python (issue 37 item 4).

The hashes are made here, below every package that writes those rows:

* ``answer_content_sha``: the answer's text, its parsed answer (the stored JSON text) and its error;
* ``task_truth_sha``: what a scorer reads of the task besides the answer: the query, the answer type, the
  reference, the extra ground-truth fields (among them the annotation link a linked ground truth is derived
  from), the eval_func, the tolerances and the reasoning status (``extra["reasoning_status"]``).

Every way a row is written keeps its hash in step: the ORM's flush (``before_insert`` / ``before_update``
listeners, registered by ``store.models``), the bulk inserts (``bulk_insert.insert_rows`` calls ``fill_rows``)
and the Core statements that change an answer (``inference.runs.queue.UPDATE_PENDING`` binds
``answer_hash_of``). A row whose hash is NULL (written before ``0009_content_hashes`` by a path that did not
know it) is never taken as current: the scoring hashes it in Python as before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import JSON, event, inspect
from sqlalchemy.sql.elements import ClauseElement

__all__ = ["answer_content_sha", "task_truth_sha", "answer_hash_of", "task_hash_of", "fill_rows", "listen",
           "ANSWER_COLUMNS", "TASK_COLUMNS", "HASH_COLUMN"]

ANSWER_COLUMNS = ("raw_text", "parsed", "error")
"""The answer columns ``answer.content_sha256`` covers."""
TASK_COLUMNS = ("query", "answer_type", "ground_truth", "ground_truth_extra", "eval_func", "tolerances", "extra")
"""The task columns ``task.truth_sha256`` covers (of ``extra``, only its ``reasoning_status``)."""
HASH_COLUMN = {"answer": "content_sha256", "task": "truth_sha256"}
"""The hash column of each hashed table."""

_sha256 = hashlib.sha256


def answer_content_sha(raw_text: str | None, parsed: Any, error: str | None) -> str:
    """SHA-256 (hex) of an answer as a scorer reads it: its text, its parsed answer and its error.

    ``parsed`` is the stored JSON text, as ``portable.raw_rows`` reads it on either database (a decoded value is
    serialised first, as the JSON column does). The JSON text ``null`` counts as no parsed answer, as SQL NULL
    does: a scorer reads both as None (``scoring.inputs.json_or_none``), and the ORM stores an explicit None as
    ``null`` where the bulk inserts store NULL. The text is hashed as stored, not re-serialised: one call per
    answer must cost about a microsecond at 100,000 answers."""
    if parsed is not None and not isinstance(parsed, str):
        parsed = json.dumps(parsed)
    if parsed == "null":
        parsed = None
    # each part as "0" (None) or "1" + its text, so that None and "" differ; one f-string, no call per part
    text = (f"{raw_text is not None:d}{raw_text or ''}\x1f{parsed is not None:d}{parsed or ''}"
            f"\x1f{error is not None:d}{error or ''}")
    return _sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def task_truth_sha(query: str | None, answer_type: str | None, ground_truth: str | None, ground_truth_extra: Any,
                   eval_func: str | None, tolerances: Any, extra: Mapping[str, Any] | None) -> str:
    """SHA-256 (hex) of what a score of a task depends on besides the answer; JSON columns as decoded values."""
    payload = [query, answer_type, ground_truth, ground_truth_extra, eval_func, tolerances,
               (extra or {}).get("reasoning_status")]
    return _sha256(json.dumps(payload, sort_keys=True, default=str, ensure_ascii=False).encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    """A Python value as the column will hold it: SQL NULL constructs (``null()``, ``JSON.NULL``) as None."""
    if isinstance(value, ClauseElement) or value is JSON.NULL:
        return None
    return value


def _json_text(value: Any) -> str | None:
    """The text a JSON column stores for a Python value (``json.dumps``, the column's serialiser); None for NULL."""
    value = _plain(value)
    return None if value is None else json.dumps(value)


def answer_hash_of(values: Mapping[str, Any]) -> str:
    """``answer_content_sha`` of an answer given as column values (Python values, JSON decoded)."""
    return answer_content_sha(_plain(values.get("raw_text")), _json_text(values.get("parsed")),
                              _plain(values.get("error")))


def task_hash_of(values: Mapping[str, Any]) -> str:
    """``task_truth_sha`` of a task given as column values (Python values, JSON decoded)."""
    extra = _plain(values.get("extra"))
    return task_truth_sha(*(_plain(values.get(c)) for c in TASK_COLUMNS[:-1]),
                          extra if isinstance(extra, Mapping) else None)


_HASH_OF = {"answer": answer_hash_of, "task": task_hash_of}


def fill_rows(table: Any, rows: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """``rows`` (column values of new rows of ``table``, as ``bulk_insert.insert_rows`` takes them) with the
    table's hash column set on each (a column a row leaves out counts at its default); the rows unchanged for
    a table without one."""
    column = HASH_COLUMN.get(table.name)
    if column is None or not rows:
        return rows
    hash_of, defaults = _HASH_OF[table.name], _scalar_defaults(table)
    return [{**row, column: hash_of(_with_defaults(row, defaults))} for row in rows]


def _scalar_defaults(table: Any) -> dict[str, Any]:
    """Column name -> the scalar Python-side default an INSERT that leaves the column out writes."""
    return {c.name: c.default.arg for c in table.columns if c.default is not None and c.default.is_scalar}


def _with_defaults(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> Mapping[str, Any]:
    missing = {k: v for k, v in defaults.items() if values.get(k) is None and k not in values}
    return {**missing, **values} if missing else values


def _on_insert(_mapper: Any, _connection: Any, target: Any) -> None:
    table = target.__table__
    state, defaults = inspect(target), _scalar_defaults(table)
    # an attribute never set is left out of the INSERT (its column default, or NULL)
    values = {name: state.dict[name] if name in state.dict else defaults.get(name)
              for name in (ANSWER_COLUMNS if table.name == "answer" else TASK_COLUMNS)}
    setattr(target, HASH_COLUMN[table.name], _HASH_OF[table.name](values))


def _on_update(_mapper: Any, _connection: Any, target: Any) -> None:
    table = target.__table__
    names = ANSWER_COLUMNS if table.name == "answer" else TASK_COLUMNS
    state = inspect(target)
    if not any(state.attrs[n].history.has_changes() for n in names):
        return                                    # nothing the hash covers changed: no extra column written
    setattr(target, HASH_COLUMN[table.name], _HASH_OF[table.name]({n: getattr(target, n) for n in names}))


def listen(*models: type) -> None:
    """Keep the hash column of each model's table (``answer``, ``task``) in step with every ORM flush."""
    for model in models:
        event.listen(model, "before_insert", _on_insert)
        event.listen(model, "before_update", _on_update)
