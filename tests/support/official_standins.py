"""Stand-in benchmark files for the official-source tests: the structure of the benchmarks' own judge files
(FieldWorkArena's automatic_evaluation.py, OpenEQA's llm_match.py and prompts, IndustryEQA's direct_match.py
and prompts) with fieldstudio's own made-up text, registered as known versions for the running test only.

None of the benchmarks' text is here: the prompts say other things, the settings are other numbers, so a
test that passes shows the values were read from the file, not remembered.
"""

from __future__ import annotations

from pathlib import Path

from fieldstudio.scoring.official import known

FWA_EVALUATOR = '''
import os

JUDGE_MODEL_NAME = "standin-judge-1"
STANDIN_SEED = 7


def generate_from_openai_chat_completion(messages, model, temperature, max_tokens, seed, top_p, context_length):
    return "", 0, 0


def llm_fuzzy_match(pred, reference, question):
    messages = []
    message = "Stand-in grading request.\\n"
    message += f"Q) {question}\\n"
    message += f"R) {reference}\\n"
    message += f"S) {pred}\\n"
    message += "Say right or wrong."
    messages = [
        {"role": "system", "content": "stand-in system"},
        {"role": "user", "content": message},
    ]
    response, a, b = generate_from_openai_chat_completion(
        model=JUDGE_MODEL_NAME, messages=messages, temperature=0, max_tokens=99, top_p=1.0,
        context_length=0, seed=STANDIN_SEED)
    return 0.0, None, a, b


def json_match(pred, reference, question):
    message = ("Stand-in report request. "
               "Two lines.\\n")
    message += f"Q) {question}\\n" + f"R) {reference}\\n"
    message += f"S) {pred}\\n"
    messages = [{"role": "system", "content": "stand-in system"}, {"role": "user", "content": message}]
    response, a, b = generate_from_openai_chat_completion(
        model=JUDGE_MODEL_NAME, messages=messages, temperature=0, max_tokens=99, top_p=1.0,
        context_length=0, seed=STANDIN_SEED)
    return 0.0, None, a, b


def numerical_match(pred, reference, question, numerical_ratio=0.5):
    message = "This first line is overwritten.\\n"
    message = "Stand-in numbers request.\\n"
    message += f"Q) {question}\\nR) {reference}\\nS) {pred}\\n"
    message += """Reply {"correctness": ..., "numerical_values": {...}}"""
    messages = [{"role": "system", "content": "stand-in system"}, {"role": "user", "content": message}]
    response, a, b = generate_from_openai_chat_completion(
        model=JUDGE_MODEL_NAME, messages=messages, temperature=0, max_tokens=99, top_p=1.0,
        context_length=0, seed=STANDIN_SEED)
    return 0.0, None, a, b
'''

OPENEQA_LLM_MATCH = '''
def parse_score(output: str, tag: str = "Your mark:") -> str:
    return 0


def get_llm_match_score(question, answer, prediction, extra_answers=None, openai_key=None,
                        openai_model: str = "standin-eqa-judge", openai_seed: int = 99, openai_max_tokens: int = 8,
                        openai_temperature: float = 0.5, verbose: bool = False):
    return 0
'''
OPENEQA_MMBENCH = "Stand-in mark request.\nQuestion: {question}\nAnswer: {answer}\nResponse: {prediction}\nYour mark:\n"
OPENEQA_MMBENCH_EXTRA = ("Stand-in mark request with extras.\nQuestion: {question}\nAnswer: {answer}\n"
                         "Extra Answers: {extra_answers}\nResponse: {prediction}\nYour mark:\n")

IEQA_DIRECT_MATCH = '''
def openai_evaluate(question, ground_direct_answer, generated_direct_answer, ground_reasoning_answer=None,
                    generated_reasoning_answer=None, client=None, model: str = "standin-ieqa-judge",
                    prompt_type: str = "direct"):
    response = client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": "stand-in evaluator"},
            {"role": "user", "content": "x"}
        ],
        max_tokens=55
    )
    return {}
'''
IEQA_DIRECT = ("Stand-in direct request.\nQuestion: {question}\nTruth: {ground_direct_answer}\n"
               "Generated: {generated_direct_answer}\n```json\n{{\"direct_score\": }}\n```\n")
IEQA_REASONING = ("Stand-in reasoning request.\nQuestion: {question}\nTruth: {ground_direct_answer}\n"
                  "Generated: {generated_direct_answer}\nTruth reasoning: {ground_reasoning_answer}\n"
                  "Generated reasoning: {generated_reasoning_answer}\n")

FILES = {
    "fieldworkarena": {"evaluator": ("tools/evaluation/metrics/automatic/automatic_evaluation.py", FWA_EVALUATOR)},
    "openeqa": {"llm_match": ("openeqa/evaluation/llm_match.py", OPENEQA_LLM_MATCH),
                "mmbench": ("prompts/mmbench.txt", OPENEQA_MMBENCH),
                "mmbench-extra": ("prompts/mmbench-extra.txt", OPENEQA_MMBENCH_EXTRA)},
    "industryeqa": {"direct_match": ("industryeqa/evaluation/direct_match.py", IEQA_DIRECT_MATCH),
                    "direct": ("prompts/direct_match.txt", IEQA_DIRECT),
                    "reasoning": ("prompts/reasoning_match.txt", IEQA_REASONING)},
}


def write_standin(folder: Path, benchmark: str, *, register: bool = True, variant: str = "leaderboard") -> Path:
    """Write the benchmark's stand-in files under ``folder`` (repository layout) and, with ``register``,
    accept them as a known version for the running test. Returns ``folder``."""
    for role, (rel, text) in FILES[benchmark].items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if benchmark == "fieldworkarena" and variant == "offline":
            text += "\n# the offline copy's stand-in\n"        # another file, so another fingerprint
        path.write_text(text, encoding="utf-8")
        if register:
            known.register_stand_in(benchmark, role, rel, known.fingerprint(path),
                                    variant if benchmark == "fieldworkarena" else "")
    return folder
