"""Reading a JSON document within limits: a size cap and a nesting depth, each refused with a one-line reason.

Python's decoder recurses once per level of nesting, so a document nested a few thousand levels deep (easily made:
``[[[[...]]]]``) raises a RecursionError; here it is a `JsonLimitError` saying so. The size is checked before the
document is decoded, from its length.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: The largest JSON document read whole (bytes or characters): larger task, answer or annotation files stream.
MAX_JSON_BYTES = 2_000_000_000

#: The deepest nesting a streamed JSON document may have (``json.loads`` stops at the recursion limit, ~1,000).
MAX_JSON_DEPTH = 1000


class JsonLimitError(ValueError):
    """A JSON document is larger or nested deeper than fieldstudio reads; the message says which, in one line."""


def load_json(document: str | bytes, *, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """`json.loads` of `document`, refused when it is longer than `max_bytes` or nested too deep.

    Raises JsonLimitError (too large, too deep) or json.JSONDecodeError (not JSON), both ValueErrors.
    """
    if len(document) > max_bytes:
        raise JsonLimitError(f"is larger than {max_bytes:,} bytes; not read")
    try:
        return json.loads(document)
    except RecursionError:
        raise JsonLimitError(f"is nested deeper than {sys.getrecursionlimit():,} levels; not read") from None
