"""Pausing Python's cyclic garbage collector while a block builds many objects that hold no reference cycles.

Reading 100,000 answers and building their score rows, or 100,000 COCO polygons into rows to insert, allocates
hundreds of thousands of container objects, each a candidate for the collector; it runs hundreds of times, each full
pass walking every object still alive, and finds almost nothing to free. Measured: a quarter of deterministic
scoring (0.5-0.9 s of 2.5 s on 100,000 answers, benchmarks/bench_scoring.py) and 40 % of a 100,000-polygon COCO
import's CPU (6.6 s -> 4.1 s, benchmarks/bench_shapes.py).

And setting the objects of modules imported by a worker aside from the full passes (``set_aside_new_modules``).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
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


_set_aside = {"modules": 0}
_set_aside_lock = threading.Lock()


def set_aside_new_modules() -> bool:
    """Move every object alive into the collector's permanent generation (``gc.freeze``) if modules were imported
    since the last call (``sys.modules`` grew); True if it did. Called where a worker has imported a batch of
    modules (the window's: ``gui.workers.Worker``), so that the collector's full passes walk only what came after.

    Why: a module's functions, classes and constants live as long as the process, and a full pass walks every object
    of the oldest generation while holding the interpreter lock, in whichever thread allocated. The store and
    decoders a project's open imports, alembic for a new project, the evaluation tabs' pandas and matplotlib:
    50,000-160,000 objects each, and a full pass over them in a worker left the window's thread waiting 0.1-1.9 s
    (issue 37, benchmarks/bench_project_open.py, at load 5-9 on two cores). Reference counting still frees what is
    set aside; what is lost is only the cycles of objects that were alive at the freeze and become garbage later (a
    project's ORM session closed later), once per batch of imports, which are few in a session."""
    with _set_aside_lock:
        count = len(sys.modules)
        if count <= _set_aside["modules"]:
            return False
        _set_aside["modules"] = count
        gc.freeze()
        return True
