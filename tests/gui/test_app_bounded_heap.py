"""The window's heap settings (``gui.app.bound_the_heap``): a buffer of a 1080p picture is reused from the heap, a
buffer of a 4K picture is mapped alone and handed back to the system when freed. Run in a fresh interpreter: the
settings are made once per process, before any thread allocates."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import json, resource
    import numpy as np
    from fieldstudio.gui.app import bound_the_heap

    set_ = bound_the_heap()

    def faults(nbytes):
        a = np.ones(nbytes, np.uint8)  # every page written: a new mapping faults them all in
        del a
        start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(10):
            a = np.ones(nbytes, np.uint8)
            del a
        return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start) / 10

    def resident():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()

    def kept_after_free(nbytes):
        before = resident()
        a = np.ones(nbytes, np.uint8)
        del a
        return resident() - before

    print(json.dumps({"set": set_, "hd": faults(3_200_000), "uhd_kept": kept_after_free(12_500_000)}))
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_1080p_buffers_are_reused_and_4k_buffers_handed_back():
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["set"] is True
    pages = lambda nbytes: nbytes / 4096  # noqa: E731 - pages of 4 KiB
    # 3.2 MB (a 1080p picture): from the heap, its pages kept for the next one (781 pages were faulted in each time
    # with the 1 MB threshold this replaced)
    assert got["hd"] < 0.1 * pages(3_200_000), got
    # 12.5 MB (a 4K picture): a mapping of its own, handed back to the system when freed
    assert got["uhd_kept"] < 1_000_000, got
