"""The frame table of a video (frame index -> PTS, in presentation order) and how two tables of one video compare.

The frame table built by decoding the stream is the only truth about frames (DESIGN.md, pitfalls.md
§1-§2); the packet table (``packet_table.build_packet_table``, demuxing only) stands in for it until it is
built (``decoded_table.build_frame_table``). A frame is identified by its index in presentation order (the
order ffmpeg's ``select=eq(n,N)`` counts) and its PTS in the stream's time base; seconds are
``pts * time_base``, never ``index / fps``. Several frames may share one PTS. ``FrameTable.is_vfr`` tells a
variable frame rate; ``same_frames`` and ``remap_indices`` compare the packet table with the decoded one that
verifies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np


@dataclass
class FrameTable:
    """Frame index -> PTS of every decodable frame, in presentation order.

    ``pts``: int64 array of shape (N,) in units of ``time_base`` seconds; ``keyframe``: bool array (N,).
    """

    pts: np.ndarray
    keyframe: np.ndarray
    time_base: Fraction

    def __len__(self) -> int:
        return int(self.pts.shape[0])

    @property
    def start_pts(self) -> int:
        return int(self.pts[0]) if len(self) else 0

    def seconds(self, index: int) -> float:
        """PTS of frame ``index`` in seconds (``pts * time_base``). Raises IndexError outside the table."""
        if not 0 <= index < len(self):
            raise IndexError(f"frame {index} is outside 0..{len(self) - 1}")
        return float(int(self.pts[index]) * self.time_base)

    def seconds_array(self) -> np.ndarray:
        """PTS of every frame in seconds, float64 array of shape (N,)."""
        return self.pts.astype(np.float64) * float(self.time_base)

    def index_at(self, seconds: float) -> int:
        """Index of the frame shown at time ``seconds``: the last frame whose PTS is <= that time."""
        target = seconds / float(self.time_base)
        i = int(np.searchsorted(self.pts, target + 1e-6, side="right")) - 1
        return min(max(i, 0), len(self) - 1)

    def keyframe_at_or_before(self, index: int) -> int:
        """Index of the nearest keyframe at or before ``index`` (0 if none is flagged)."""
        keys = np.flatnonzero(self.keyframe[: index + 1])
        return int(keys[-1]) if keys.size else 0

    def is_vfr(self, tolerance: float = 0.02) -> bool:
        """True when frame durations differ by more than ``tolerance`` (relative) from their median."""
        if len(self) < 3:
            return False
        d = np.diff(self.pts).astype(np.float64)
        med = float(np.median(d))
        if med <= 0:
            return True
        return bool(np.any(np.abs(d - med) > tolerance * med + 1))

    def avg_fps(self) -> float | None:
        """Mean frame rate over the table (frames per second), for display only."""
        if len(self) < 2:
            return None
        span = (int(self.pts[-1]) - int(self.pts[0])) * float(self.time_base)
        return (len(self) - 1) / span if span > 0 else None


def same_frames(a: FrameTable, b: FrameTable) -> bool:
    """True when two frame tables name the same frames: same length, PTS, keyframes and time base."""
    return (a.time_base == b.time_base and len(a) == len(b) and bool(np.array_equal(a.pts, b.pts))
            and bool(np.array_equal(a.keyframe, b.keyframe)))


def remap_indices(old: FrameTable, new: FrameTable, indices: np.ndarray) -> np.ndarray:
    """Where frames ``indices`` of table ``old`` are in table ``new``, found by their PTS.

    A frame keeps its PTS; among frames sharing a PTS, the k-th of them in ``old`` maps to the k-th in
    ``new`` (the last one there when ``new`` has fewer). A PTS missing from ``new`` (a frame that does
    not decode) maps to the frame shown at that time: the last one whose PTS is at or before it (frame
    0 if none). Both tables must share one time base. Returns an int64 array shaped like ``indices``.
    """
    if old.time_base != new.time_base:
        raise ValueError(f"time bases differ ({old.time_base} vs {new.time_base})")
    idx = np.asarray(indices, dtype=np.int64)
    pts = old.pts[idx]
    rank = idx - np.searchsorted(old.pts, pts, side="left")
    first = np.searchsorted(new.pts, pts, side="left")
    end = np.searchsorted(new.pts, pts, side="right")
    found = np.minimum(first + rank, end - 1)
    shown = np.maximum(np.searchsorted(new.pts, pts, side="right") - 1, 0)
    return np.where(end > first, found, shown).astype(np.int64)
