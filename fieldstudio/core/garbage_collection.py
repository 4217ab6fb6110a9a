"""Pausing Python's cyclic garbage collector while a block builds many objects that hold no reference cycles.

Reading 100,000 answers and building their score rows, or 100,000 COCO polygons into rows to insert, allocates
hundreds of thousands of container objects, each a candidate for the collector; it runs hundreds of times, each full
pass walking every object still alive, and finds almost nothing to free. Measured: a quarter of deterministic
scoring (0.5-0.9 s of 2.5 s on 100,000 answers, benchmarks/bench_scoring.py) and 40 % of a 100,000-polygon COCO
import's CPU (6.6 s -> 4.1 s, benchmarks/bench_shapes.py).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (``gc.disable``) for a block, restoring its state after.

    Reference counting still frees everything as usual; only cycles wait for the collector, which runs again after
    the block. What is still alive when the block ends is walked by the collector's first pass after it (every
    object allocated meanwhile is in its youngest generation), so a caller frees what it can before. The
    collector's switch is global to the process (Python documents no per-thread one), so another thread's cycles
    also wait for the block: use it for blocks of seconds, not minutes.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
