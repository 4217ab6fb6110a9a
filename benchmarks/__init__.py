"""fieldstudio's speed benchmarks: ``python benchmarks/run.py`` runs every ``bench_*.py`` and prints each figure
beside its target (see README, "Speed benchmarks"). A package so that the benchmarks share ``targets`` and
``work_folders``; each ``bench_*.py`` also runs alone."""
