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

__all__ = ["fwa_tools_folder", "openeqa_folder", "run_fwa_evaluator", "run_calc_category", "run_openeqa",
           "run_fwa_numerical_match"]

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


_FWA_NUMERICAL = '''
import json, os, sys, types
replies = json.load(open(os.environ["FAKE_REPLIES"]))
sent = []
class _Completions:
    def create(self, **kwargs):
        sent.append(sorted(kwargs))
        reply = replies[len(sent) - 1]
        message = types.SimpleNamespace(content=reply)
        usage = types.SimpleNamespace(prompt_tokens=1, completion_tokens=1)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)], usage=usage)
class OpenAI:
    def __init__(self, **kwargs):
        self.chat = types.SimpleNamespace(completions=_Completions())
openai = types.ModuleType("openai"); openai.OpenAI = OpenAI; sys.modules["openai"] = openai
nltk = types.ModuleType("nltk"); nltk.download = lambda *a, **k: None; sys.modules["nltk"] = nltk
tokenize = types.ModuleType("nltk.tokenize"); tokenize.word_tokenize = str.split; sys.modules["nltk.tokenize"] = tokenize
os.environ.setdefault("OPENAI_API_KEY", "not-a-key")
sys.path.insert(0, sys.argv[1])
from metrics.automatic import automatic_evaluation as auto_eval
out = []
for _ in replies:
    try:
        out.append({"score": auto_eval.numerical_match("pred", "ref", "question")[0]})
    except Exception as exc:
        out.append({"raises": type(exc).__name__})
json.dump({"results": out, "request_keys": sent}, open(os.environ["RESULTS"], "w"))
'''


def run_fwa_numerical_match(tools: Path, replies: list[str], work: Path) -> tuple[list[dict], list[list[str]]]:
    """FieldWorkArena's own ``numerical_match`` (tools/evaluation's automatic_evaluation.py, its OpenAI client
    replaced by one that returns each of ``replies`` in turn): ([{"score": s} or {"raises": ExceptionName}],
    the keyword names of each request it built)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "replies.json").write_text(json.dumps(replies), encoding="utf-8")
    subprocess.run([sys.executable, "-c", _FWA_NUMERICAL, str(tools)], cwd=work, check=True, capture_output=True,
                   timeout=300, env={**os.environ, "FAKE_REPLIES": str(work / "replies.json"),
                                     "RESULTS": str(work / "results.json")})
    data = json.loads((work / "results.json").read_text(encoding="utf-8"))
    return data["results"], data["request_keys"]


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
