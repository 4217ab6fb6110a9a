"""Where the shared real data lives: ``FIELDSTUDIO_SHARED_DATA`` when it is set (only there: a folder that does not
exist means no shared data, which is how a fresh clone on a machine holding the data runs without it), else
``../shared/data`` beside the checkout, else ``/work/shared/data``."""

import os
from pathlib import Path

_named = os.environ.get("FIELDSTUDIO_SHARED_DATA", "")
_candidates = [_named] if _named else [Path(__file__).resolve().parents[3] / "shared" / "data", "/work/shared/data"]
SHARED_DATA = next((Path(c) for c in _candidates if c and Path(c).is_dir()), Path(_named or "/work/shared/data"))
