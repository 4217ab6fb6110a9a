"""The benchmarks' own judge prompts and settings, read at run time from the user's copy of each benchmark.

``known`` lists the file versions fieldstudio accepts (SHA-256), ``reading`` parses the files (ast for the
Python ones), ``source`` finds, checks and remembers them, ``settings`` holds ``JudgeSettings``. None of the
benchmarks' text is part of fieldstudio.
"""
