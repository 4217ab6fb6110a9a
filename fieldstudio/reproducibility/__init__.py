"""Reproducibility records of runs: assembling one (``record``), re-checking it on this machine (``verify``), and
moving a run with its record between projects (``transfer``). Above ``scoring`` (a record holds the scorings and
scores) and beside ``compare``; the fronts call these modules."""
