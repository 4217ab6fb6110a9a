"""Run the benchmarks' own aggregation code on given per-task scores, with a fake judge (issue 31 item 4).

The checkouts are not in this repository: ``FIELDSTUDIO_TEST_FWA_DIR`` names a FieldWorkArena checkout at
8ebe8dae (or a folder holding its ``tools/evaluation``), ``FIELDSTUDIO_TEST_OPENEQA_DIR`` one of open-eqa.
Each tool runs in a child process, from its own files, with only its judge call replaced: the fake returns
the score the test chose for the task whose id the answer text carries, so everything the tool does after the
judge (matching logs to tasks, categories, the detail file, calc_category.py, the final mean) is its own code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["fwa_tools_folder", "openeqa_folder", "run_fwa_evaluator", "run_calc_category", "run_openeqa"]

_FWA_JUDGE = '''
import json, os, re, sys, types
scores = json.load(open(os.environ["FAKE_SCORES"]))
def _score(pred, ref, query):
    task = re.search(r"task (\\S+) end", pred).group(1)
    return scores[task], "fake judge", 0, 0
module = types.ModuleType("metrics.automatic.automatic_evaluation")
module.llm_fuzzy_match = module.json_match = module.numerical_match = _score
for name in ("metrics", "metrics.automatic"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["metrics.automatic.automatic_evaluation"] = module
sys.modules["metrics.automatic"].automatic_evaluation = module
sys.path.insert(0, sys.argv[1])
import FWA_evaluator
FWA_evaluator.start(sys.argv[2], sys.argv[3], sys.argv[4])
'''

_OPENEQA_JUDGE = '''
import json, os, re, sys, types
marks = json.load(open(os.environ["FAKE_MARKS"]))
def get_llm_match_score(question, answer, prediction, extra_answers=None):
    return marks[re.search(r"question (\\S+) end", prediction).group(1)]
for name in ("openeqa", "openeqa.evaluation"):
    sys.modules[name] = types.ModuleType(name)
llm_match = types.ModuleType("openeqa.evaluation.llm_match")
llm_match.get_llm_match_score = get_llm_match_score
sys.modules["openeqa.evaluation.llm_match"] = llm_match
tqdm = types.ModuleType("tqdm")
tqdm.tqdm = lambda xs, **kw: xs
sys.modules["tqdm"] = tqdm
sys.path.insert(0, sys.argv[1])
sys.argv = ["evaluate-predictions.py", sys.argv[2], "--dataset", sys.argv[3], "--output-directory", sys.argv[4],
            "--force"]
import importlib.util
spec = importlib.util.spec_from_file_location(
    "evaluate_predictions", os.path.join(os.environ["OPENEQA_DIR"], "evaluate-predictions.py"))
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)
tool.main(tool.parse_args())
'''


def fwa_tools_folder() -> Path | None:
    """FieldWorkArena's ``tools/evaluation`` from ``FIELDSTUDIO_TEST_FWA_DIR`` (the folder itself or below it),
    None when unset or absent."""
    root = os.environ.get("FIELDSTUDIO_TEST_FWA_DIR")
    if not root:
        return None
    for folder in (Path(root), Path(root) / "tools" / "evaluation"):
        if (folder / "FWA_evaluator.py").is_file() and (folder / "calc_category.py").is_file():
            return folder
    return None


def openeqa_folder() -> Path | None:
    """The open-eqa checkout from ``FIELDSTUDIO_TEST_OPENEQA_DIR``, None when unset or without its script."""
    root = os.environ.get("FIELDSTUDIO_TEST_OPENEQA_DIR")
    return Path(root) if root and (Path(root) / "evaluate-predictions.py").is_file() else None


def run_fwa_evaluator(tools: Path, ground_truth: Path, scores: dict[str, float], work: Path) -> tuple[dict, Path]:
    """FWA_evaluator.start over one log a task of ``scores`` ({task id: the judge's score}) against the ground
    truth folder: (its summary JSON, the path of its detail file)."""
    logs = work / "logs"
    logs.mkdir(parents=True)
    for k, task in enumerate(scores):
        (logs / f"{k:04d}.log").write_text(f"<id>fieldworkarena.{task}</id>\n<answer>task {task} end</answer>\n",
                                           encoding="utf-8")
    (work / "scores.json").write_text(json.dumps(scores), encoding="utf-8")
    result = work / "result.json"
    subprocess.run([sys.executable, "-c", _FWA_JUDGE, str(tools), str(logs), str(ground_truth), str(result)],
                   cwd=work, env={**os.environ, "FAKE_SCORES": str(work / "scores.json")}, check=True,
                   capture_output=True, timeout=300)
    return json.loads(result.read_text(encoding="utf-8")), Path(str(result) + "_detail.txt")


def run_calc_category(tools: Path, category_csv: Path, detail: Path) -> list[list[str]]:
    """calc_category.py's printed rows (bucket, Task Count, Total Score, Average Score) after its header."""
    out = subprocess.run([sys.executable, str(tools / "calc_category.py"), str(category_csv), str(detail)],
                         cwd=detail.parent, check=True, capture_output=True, text=True, timeout=120).stdout
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("-----")) + 1
    return [line.split("\t") for line in lines[start:] if line.strip()]


def run_openeqa(checkout: Path, dataset: list[dict], marks: dict[str, int], work: Path) -> tuple[str, dict]:
    """evaluate-predictions.py --force over a results file answering the questions of ``marks`` ({question id:
    the judge's mark}): (its "final score: ..." line, its metrics JSON)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "dataset.json").write_text(json.dumps(dataset), encoding="utf-8")
    (work / "results.json").write_text(json.dumps([{"question_id": q, "answer": f"question {q} end."} for q in marks]),
                                       encoding="utf-8")
    (work / "marks.json").write_text(json.dumps(marks), encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", _OPENEQA_JUDGE, str(checkout), str(work / "results.json"),
                          str(work / "dataset.json"), str(work / "metrics")], cwd=work, check=True,
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "FAKE_MARKS": str(work / "marks.json"), "OPENEQA_DIR": str(checkout)})
    final = next(line for line in run.stdout.splitlines() if line.startswith("final score:"))
    return final, json.loads((work / "metrics" / "results-metrics.json").read_text(encoding="utf-8"))
