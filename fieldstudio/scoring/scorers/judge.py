"""The LLM-judge step as pure functions over an injected ``ask(prompt) -> reply`` callable.

No network code lives here: the caller passes ``ask`` (the inference layer wraps a model profile, a
cache and retries around it; tests pass a fake). Prompts come from fieldstudio's own templates in
``fieldstudio/resources/prompts/`` (judge_three_level.txt, judge_numbers.txt, judge_marks_1_5.txt); they ask for the
same outputs as the benchmarks' judges (benchmarks.md §1.4 three verdicts and the numbers JSON;
§2.4 and §3.1 a 1-5 mark) but are not the benchmarks' prompt text.

Parsing is strict (benchmarks.md §5 pitfall 5): a verdict must stand alone on the first line, a
numbers reply must be one JSON object, a mark must be a bare integer or a ``Mark: n`` line. Anything
else is "unparsed" (verdict None); the raw reply is always returned so it can be stored with the score.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

from fieldstudio.core.paths import resources_dir

__all__ = ["Ask", "JudgeReply", "VERDICTS", "load_template", "build_three_level_prompt", "build_numbers_prompt",
           "build_marks_prompt", "parse_three_level", "parse_numbers", "parse_mark", "ask_three_level",
           "ask_numbers", "ask_mark", "THREE_LEVEL_PROMPTS", "MARK_PROMPTS"]

Ask = Callable[[str], str]
VERDICTS = ("correct", "partially correct", "incorrect")
THREE_LEVEL_PROMPTS = ("judge_three_level.txt", "judge_numbers.txt")
"""The templates of the three-level verdict and the numbers reply (FieldWorkArena's rules)."""
MARK_PROMPTS = ("judge_marks_1_5.txt",)
"""The template of the 1-5 mark (OpenEQA's and IndustryEQA's rules)."""


@dataclass(frozen=True)
class JudgeReply:
    """One judge call: ``verdict`` ("correct" / "partially correct" / "incorrect", an int mark, or None
    when unparsed), the ``raw`` reply text, the ``prompt`` sent, and for numbers replies the parsed
    ``numerical_values`` mapping (name -> {"teacher", "student", "unit", "type"})."""

    verdict: str | int | None
    raw: str
    prompt: str
    numerical_values: dict[str, Any] | None = None
    problem: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def parsed(self) -> bool:
        """True when the reply had the required form."""
        return self.verdict is not None


def _prompt_dirs() -> list[Path]:
    # package data: fieldstudio/resources/prompts in a checkout, a wheel and a PyInstaller bundle alike
    return [resources_dir() / "prompts"]


@lru_cache(maxsize=None)
def load_template(name: str, prompts_dir: Path | None = None) -> str:
    """Text of the template ``name`` (e.g. "judge_three_level.txt"). Raises FileNotFoundError naming the places searched."""
    dirs = [Path(prompts_dir)] if prompts_dir else _prompt_dirs()
    for d in dirs:
        if (d / name).is_file():
            return (d / name).read_text(encoding="utf-8")
    raise FileNotFoundError(f"prompt template {name} not found in " + ", ".join(map(str, dirs)))


def build_three_level_prompt(question: str, reference: str, prediction: str, *, json_report: bool = False,
                             prompts_dir: Path | None = None) -> str:
    """Prompt asking for correct / partially correct / incorrect; ``json_report`` adds the report notes
    (compare the number of incidents and the keys, give a reason), as FWA's json_match does (§1.4)."""
    json_note = ("\nBoth answers are JSON reports. Check that they list the same number of incidents or "
                 "violations and use the same keys before comparing the values.\n") if json_report else ""
    reason_note = "\nOn the following lines, give a short reason for your verdict." if json_report else ""
    return load_template("judge_three_level.txt", prompts_dir).format(
        question=question, reference=reference, prediction=prediction, json_note=json_note, reason_note=reason_note)


def build_numbers_prompt(question: str, reference: str, prediction: str, *, prompts_dir: Path | None = None) -> str:
    """Prompt asking for a verdict on the non-numerical part plus the numbers of both answers as JSON (§1.4)."""
    return load_template("judge_numbers.txt", prompts_dir).format(
        question=question, reference=reference, prediction=prediction)


def build_marks_prompt(question: str, reference: str, prediction: str, extra_answers: Sequence[str] | None = None,
                       *, prompts_dir: Path | None = None) -> str:
    """Prompt asking for a 1-5 mark (OpenEQA LLM-Match §3.1, IndustryEQA §2.4); ``extra_answers`` are
    further acceptable reference answers."""
    extra_note = ("\nAny of the reference answers counts as right; rate against the closest one.\n"
                  if extra_answers else "")
    extra = ("\nOther acceptable answers:\n" + "\n".join(f"- {a}" for a in extra_answers) + "\n"
             if extra_answers else "")
    return load_template("judge_marks_1_5.txt", prompts_dir).format(
        question=question, reference=reference, prediction=prediction, extra_note=extra_note, extra_answers=extra)


def _clean_line(line: str) -> str:
    return re.sub(r"\s+", " ", line.strip().strip("*_`\"'.:").strip()).lower()


def parse_three_level(text: str) -> str | None:
    """The verdict on the first non-empty line, which must be exactly one of :data:`VERDICTS`
    (case, surrounding quotes, asterisks and a final period ignored); otherwise None."""
    for line in str(text).splitlines():
        if line.strip():
            cleaned = _clean_line(re.sub(r"^\s*verdict\s*:\s*", "", line, flags=re.I))
            return cleaned if cleaned in VERDICTS else None
    return None


def parse_numbers(text: str) -> tuple[str | None, dict[str, Any] | None, str]:
    """(verdict, numerical_values, problem) from a numbers reply that must be one JSON object
    (optionally in a ```json fence) with "correctness" in :data:`VERDICTS` and a mapping "numerical_values"."""
    s = str(text).strip()
    m = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", s, re.DOTALL | re.IGNORECASE)
    if m:
        s = m.group(1)
    try:
        obj = json.loads(s)
    except ValueError:
        return None, None, "reply is not one JSON object"
    if not isinstance(obj, dict):
        return None, None, "reply JSON is not an object"
    values = obj.get("numerical_values")
    if not isinstance(values, dict):
        return None, None, "numerical_values missing or not an object"
    verdict = obj.get("correctness")
    verdict = verdict.strip().lower() if isinstance(verdict, str) else None
    if verdict not in VERDICTS:
        return None, values, "correctness missing or not one of the three verdicts"
    return verdict, values, ""


def parse_mark(text: str) -> int | None:
    """The integer mark: the whole reply when it is digits, else a line ``Mark: n`` (also ``Your mark: n``).
    Out-of-range integers are returned unchanged: clipping is the scorer's rule (§3.4)."""
    s = str(text).strip()
    if re.fullmatch(r"-?\d+", s):
        return int(s)
    marks = re.findall(r"^\s*(?:your\s+)?mark\s*:\s*(-?\d+)\s*$", s, re.IGNORECASE | re.MULTILINE)
    return int(marks[-1]) if marks else None


def ask_three_level(ask: Ask, question: str, reference: str, prediction: str, *, json_report: bool = False,
                    prompts_dir: Path | None = None) -> JudgeReply:
    """Build the three-level prompt, call ``ask`` once and parse the verdict strictly."""
    prompt = build_three_level_prompt(question, reference, prediction, json_report=json_report, prompts_dir=prompts_dir)
    raw = ask(prompt)
    verdict = parse_three_level(raw)
    return JudgeReply(verdict, raw, prompt, problem="" if verdict else "no verdict on the first line")


def ask_numbers(ask: Ask, question: str, reference: str, prediction: str, *,
                prompts_dir: Path | None = None) -> JudgeReply:
    """Build the numbers prompt, call ``ask`` once and parse the JSON reply strictly."""
    prompt = build_numbers_prompt(question, reference, prediction, prompts_dir=prompts_dir)
    raw = ask(prompt)
    verdict, values, problem = parse_numbers(raw)
    return JudgeReply(verdict, raw, prompt, numerical_values=values, problem=problem)


def ask_mark(ask: Ask, question: str, reference: str, prediction: str, extra_answers: Sequence[str] | None = None,
             *, prompts_dir: Path | None = None) -> JudgeReply:
    """Build the 1-5 marks prompt, call ``ask`` once and parse the mark strictly."""
    prompt = build_marks_prompt(question, reference, prediction, extra_answers, prompts_dir=prompts_dir)
    raw = ask(prompt)
    mark = parse_mark(raw)
    return JudgeReply(mark, raw, prompt, problem="" if mark is not None else "no mark found")
