"""Where the shared real data lives: ``../shared/data`` beside the checkout (or FIELDSTUDIO_SHARED_DATA)."""

import os
from pathlib import Path

_candidates = [os.environ.get("FIELDSTUDIO_SHARED_DATA", ""), Path(__file__).resolve().parents[3] / "shared" / "data",
               "/work/shared/data"]
SHARED_DATA = next((Path(c) for c in _candidates if c and Path(c).is_dir()), Path("/work/shared/data"))
