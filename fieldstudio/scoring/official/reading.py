"""Reading the judge prompts and settings out of the benchmarks' own files (fieldstudio's own parser).

* FieldWorkArena builds each judge prompt inside ``automatic_evaluation.py`` by assigning and extending a
  ``message`` string in ``llm_fuzzy_match``, ``json_match`` and ``numerical_match``. :func:`read_fwa` parses
  the file with :mod:`ast` (it never imports or runs it) and replays those statements in order: string
  constants become text, f-string fields (``{question}``) become :class:`Field` slots, and a later plain
  assignment replaces what came before, exactly as Python would build the string. The system message is
  read from the ``messages`` list and the sampling settings from the keywords of the judge call (a name
  such as ``SEED`` is looked up among the module's constants).
* OpenEQA's ``llm_match.py`` gives the judge defaults of ``get_llm_match_score`` and the tag default of
  ``parse_score``; its prompts are text files filled with ``str.format`` (read ``.strip()``-ed, as its
  ``load_prompt`` does).
* IndustryEQA's ``direct_match.py`` gives the system message, token cap and default model of its
  OpenAI path (``openai_evaluate``); its prompts are ``str.format`` text files likewise.

A file that does not have the expected structure raises :class:`OfficialSourceError` naming the file and
what is missing. The rules applied to the judges' replies are fieldstudio's code (``scorers``), not read.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.scoring.official.settings import JudgeSettings

__all__ = ["OfficialSourceError", "Field", "Template", "render", "FwaFiles", "read_fwa", "read_openeqa_defaults",
           "read_industryeqa_settings", "read_text_prompt"]

FWA_FUNCTIONS = {"fuzzy_match": "llm_fuzzy_match", "json_match": "json_match", "numerical_match": "numerical_match"}
"""eval_func -> the function of automatic_evaluation.py that judges it."""
FWA_FIELDS = frozenset({"question", "reference", "pred"})


class OfficialSourceError(FieldstudioError):
    """A benchmark's own file is missing, of an unknown version, or not of the structure fieldstudio reads."""


@dataclass(frozen=True)
class Field:
    """A slot of a prompt template filled at run time (``name`` is the f-string's variable)."""

    name: str


Template = tuple  # of str and Field parts, in order


def render(template: Template, values: dict[str, Any]) -> str:
    """The prompt text: literal parts as they are, each Field replaced by ``str(values[name])`` (an
    f-string field without format spec or conversion formats its value with ``format(v, "")``, i.e. str)."""
    return "".join(p if isinstance(p, str) else format(values[p.name], "") for p in template)


@dataclass(frozen=True)
class FwaFiles:
    """What :func:`read_fwa` reads: ``templates`` per eval_func and the judge ``settings`` (the same for
    the three functions, which is checked)."""

    templates: dict[str, Template]
    settings: JudgeSettings


def _fail(path: Path, what: str) -> OfficialSourceError:
    return OfficialSourceError(f"{path}: {what}; fieldstudio cannot read this file's judge prompt")


def _module_constants(tree: ast.Module) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Constant):
            out[node.targets[0].id] = node.value.value
    return out


def _string_parts(node: ast.AST, path: Path, where: str) -> list:
    """The parts of a string expression: a constant, an f-string of plain names, or a ``+`` of those."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        parts: list = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(v.value)
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) and v.conversion == -1 \
                    and v.format_spec is None:
                parts.append(Field(v.value.id))
            else:
                raise _fail(path, f"{where}: an f-string field that is not a plain name")
        return parts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string_parts(node.left, path, where) + _string_parts(node.right, path, where)
    raise _fail(path, f"{where}: the message is built from something other than strings")


def _merge(parts: list) -> Template:
    out: list = []
    for p in parts:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] += p
        elif not (isinstance(p, str) and not p):
            out.append(p)
    return tuple(out)


def _message_template(fn: ast.FunctionDef, path: Path, var: str = "message") -> Template:
    """Replay ``var = ...`` / ``var += ...`` at the function's top level, in order."""
    parts: list | None = None
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id == var:
            parts = _string_parts(stmt.value, path, fn.name)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == var \
                and stmt.value is not None:
            parts = _string_parts(stmt.value, path, fn.name)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == var:
            if parts is None or not isinstance(stmt.op, ast.Add):
                raise _fail(path, f"{fn.name}: {var} is extended before it is assigned")
            parts += _string_parts(stmt.value, path, fn.name)
    if parts is None:
        raise _fail(path, f"{fn.name}: no {var!r} string is built")
    return _merge(parts)


def _system_message(fn: ast.AST) -> str | None:
    """The content of a ``{"role": "system", "content": "..."}`` dict literal inside ``fn`` (None if none)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Dict):
            entries = {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
            role, content = entries.get("role"), entries.get("content")
            if isinstance(role, ast.Constant) and role.value == "system" and isinstance(content, ast.Constant):
                return str(content.value)
    return None


def _value(node: ast.AST, constants: dict[str, Any], path: Path, where: str) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand, constants, path, where)
    raise _fail(path, f"{where}: a judge setting that is not a constant")


_SETTING_KEYWORDS = {"model": "model", "temperature": "temperature", "top_p": "top_p", "seed": "seed",
                     "max_tokens": "max_tokens", "max_completion_tokens": "max_tokens"}


def _call_keywords(fn: ast.AST, callee: str, constants: dict[str, Any], path: Path) -> dict[str, Any]:
    """The judge-setting keywords (model, temperature, top_p, seed, max_tokens or max_completion_tokens) of
    the first call to ``callee`` (a name, or the last attribute of a dotted call) in ``fn``."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name == callee:
                out = {}
                for k in node.keywords:
                    if k.arg == "model" and not isinstance(k.value, ast.Constant) and not (
                            isinstance(k.value, ast.Name) and k.value.id in constants):
                        continue            # the caller's model argument: its default is read instead
                    if k.arg in _SETTING_KEYWORDS:
                        out[_SETTING_KEYWORDS[k.arg]] = _value(k.value, constants, path, callee)
                return out
    raise _fail(path, f"{getattr(fn, 'name', '?')}: no call to {callee}")


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _parse(path: Path, text: str) -> ast.Module:
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise _fail(path, f"not Python ({exc.msg}, line {exc.lineno})") from None


def _request_names(funcs: dict[str, ast.FunctionDef]) -> dict[str, Any]:
    """How ``generate_from_openai_chat_completion``'s ``create`` call names its cap and whether it sends
    ``stop`` (the offline evaluator at 8ebe8dae: ``max_completion_tokens`` and ``stop=stop_param``, None when its
    judge functions pass no stop token; the leaderboard copy: ``max_tokens``, no stop)."""
    fn = funcs.get("generate_from_openai_chat_completion")
    names: set[str] = set()
    for node in ast.walk(fn) if fn is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "create":
            names = {k.arg for k in node.keywords if k.arg}
            break
    return {"token_parameter": "max_completion_tokens" if "max_completion_tokens" in names else "max_tokens",
            "sends_stop": "stop" in names}


def read_fwa(path: Path, text: str) -> FwaFiles:
    """The three judge prompt templates and the judge settings of a FieldWorkArena ``automatic_evaluation.py``.

    Each template has the fields question, reference and pred (checked). Raises OfficialSourceError when
    a function, its message or its judge call is missing, or the three functions' settings differ."""
    tree = _parse(path, text)
    constants = _module_constants(tree)
    funcs = _functions(tree)
    templates: dict[str, Template] = {}
    seen: set[JudgeSettings] = set()
    for eval_func, fname in FWA_FUNCTIONS.items():
        fn = funcs.get(fname)
        if fn is None:
            raise _fail(path, f"no function {fname}")
        template = _message_template(fn, path)
        fields = {p.name for p in template if isinstance(p, Field)}
        if fields != FWA_FIELDS:
            raise _fail(path, f"{fname}: the prompt has the fields {sorted(fields)}, not {sorted(FWA_FIELDS)}")
        templates[eval_func] = template
        kw = _call_keywords(fn, "generate_from_openai_chat_completion", constants, path)
        seen.add(JudgeSettings(model=kw.get("model"), temperature=kw.get("temperature"), top_p=kw.get("top_p"),
                               seed=kw.get("seed"), max_tokens=kw.get("max_tokens"), system=_system_message(fn),
                               **_request_names(funcs)))
    if len(seen) != 1:
        raise _fail(path, "the three judge functions use different judge settings")
    return FwaFiles(templates, seen.pop())


def _defaults(fn: ast.FunctionDef, constants: dict[str, Any], path: Path) -> dict[str, Any]:
    args = fn.args.args
    out = {a.arg: _value(d, constants, path, fn.name) for a, d in zip(args[len(args) - len(fn.args.defaults):],
                                                                        fn.args.defaults)}
    out.update({a.arg: _value(d, constants, path, fn.name) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults)
                if d is not None})
    return out


def read_openeqa_defaults(path: Path, text: str) -> tuple[JudgeSettings, str]:
    """(judge settings, mark tag) from OpenEQA's ``llm_match.py``: the defaults of ``get_llm_match_score``
    (openai_model, openai_seed, openai_max_tokens, openai_temperature; no system message, since its
    messages hold one user turn) and the ``tag`` default of ``parse_score``."""
    tree = _parse(path, text)
    constants = _module_constants(tree)
    funcs = _functions(tree)
    for name in ("get_llm_match_score", "parse_score"):
        if name not in funcs:
            raise _fail(path, f"no function {name}")
    d = _defaults(funcs["get_llm_match_score"], constants, path)
    missing = [k for k in ("openai_model", "openai_seed", "openai_max_tokens", "openai_temperature") if k not in d]
    if missing:
        raise _fail(path, "get_llm_match_score has no default for " + ", ".join(missing))
    tag = _defaults(funcs["parse_score"], constants, path).get("tag")
    if not isinstance(tag, str) or not tag:
        raise _fail(path, "parse_score has no tag default")
    return JudgeSettings(model=d["openai_model"], temperature=d["openai_temperature"], top_p=None,
                         seed=d["openai_seed"], max_tokens=d["openai_max_tokens"], system=None), tag


def read_industryeqa_settings(path: Path, text: str) -> JudgeSettings:
    """The judge settings of IndustryEQA's OpenAI path (``openai_evaluate`` in ``direct_match.py``): its
    default model, the system message and the keywords of its ``create`` call (no temperature is sent)."""
    tree = _parse(path, text)
    constants = _module_constants(tree)
    fn = _functions(tree).get("openai_evaluate")
    if fn is None:
        raise _fail(path, "no function openai_evaluate")
    kw = _call_keywords(fn, "create", constants, path)
    system = _system_message(fn)
    if system is None:
        raise _fail(path, "openai_evaluate sends no system message")
    return JudgeSettings(model=_defaults(fn, constants, path).get("model"), temperature=kw.get("temperature"),
                         top_p=kw.get("top_p"), seed=kw.get("seed"), max_tokens=kw.get("max_tokens"), system=system)


def read_text_prompt(path: Path, text: str, fields: set[str]) -> str:
    """A ``str.format`` prompt as the benchmark's ``load_prompt`` returns it (``.strip()``-ed), checked to
    hold exactly the replacement ``fields``. Raises OfficialSourceError otherwise."""
    import string

    template = text.replace("\r\n", "\n").strip()
    try:
        found = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as exc:
        raise _fail(path, f"not a format template ({exc})") from None
    if found != fields:
        raise _fail(path, f"the prompt has the fields {sorted(found)}, not {sorted(fields)}")
    return template
