"""Agent mode: FieldWorkArena's action space (benchmarks.md §1.9), as the ``agent`` prompt strategy.

A planner model sees the goal (question, input file names, output format), the results analysed so far
(per path, "not analyzed yet" until one exists, under an "Analyzed results" heading) and the actions taken,
and chooses one action per step:

* ``analyze_image(path, query)``, ``analyze_video(path, query)``, ``analyze_document(path, query)``: a
  model (the run's vision profile, else the same profile) is called with the query as system prompt and the
  photo, the video's frames (FieldWorkArena sampling, timestamps before each frame) or the document's text;
  the reply is kept per path. Paths are matched to the task's inputs by base name.
* ``send_msg_to_user(text)``: the final answer; the loop ends.

The planner gets OpenAI function tools for the four actions (``tool_calling="auto"``, the default, falls
back to text when the endpoint rejects ``tools``; ``"off"`` never sends them). A reply without a tool call is
parsed strictly as one call in Python syntax with string literal arguments, e.g.
``analyze_video("clip.mp4", "when does the cleaning start?")``; anything else is an invalid step, reported
back to the planner. After ``max_steps`` steps (default 10) without a final answer the answer fails with
kind ``max_steps``. Every step (reply, action, arguments, result) is kept in the trace.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from fieldstudio.core.parameters import Parameter
from fieldstudio.inference.call_errors import ModelCallError
from fieldstudio.inference.client import ChatResult
from fieldstudio.inference.inputs import TaskInputSpec, TaskSpec, document_text
from fieldstudio.inference.strategies.agent_tools import LOCAL_TOOLS, run_tool
from fieldstudio.inference.strategies.base import (
    DETAIL,
    MAX_SIDE,
    MAX_TOKENS,
    TIMESTAMP_CHARS,
    Ask,
    Prompt,
    Request,
    RequestContext,
    Strategy,
    StrategyContext,
    StrategyOutcome,
    document_sources,
    encode_frame,
    image_part,
    input_size,
    parse_text_answer,
    prompt_chars,
    require_inputs,
    template,
    text_part,
    timestamped_frames,
)
from fieldstudio.inference.strategies.fieldworkarena import (
    FWA_JPEG_QUALITY,
    FWA_MAX_JPEG_BYTES,
    MAX_FRAMES,
    SAMPLING,
    SECONDS_PER_FRAME,
    expected_frames,
    fwa_goal,
    sampled_frames,
)

ACTIONS: dict[str, tuple[str, ...]] = {
    "analyze_image": ("path", "query"),
    "analyze_video": ("path", "query"),
    "analyze_document": ("path", "query"),
    "send_msg_to_user": ("text",),
}
_KIND_OF_ACTION = {"analyze_image": "image", "analyze_video": "video", "analyze_document": "document"}
NOT_ANALYZED = "not analyzed yet"
DEFAULT_MAX_STEPS = 10
_ACTION_START = re.compile(r"\b(" + "|".join(ACTIONS) + r")\s*\(")
_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_RESULT_CHARS = 2000
_PLANNER_TEMPLATES = ("strategy_agent", "strategy_agent_tools_format")  # what a planning request carries

MAX_STEPS = Parameter("max_steps", int, DEFAULT_MAX_STEPS, 1, 50, label="Agent steps",
                      help="planner steps before an agent answer fails")
"""Planner steps before the answer fails with kind ``max_steps``."""
TOOL_CALLING = Parameter("tool_calling", str, "auto", choices=("auto", "off"), advanced=True,
                         help="auto: offer the actions as function tools, falling back to text when the endpoint "
                              "refuses them; off: actions as text only")
"""Whether the planner is offered OpenAI function tools."""


LOCAL_TOOLS_PARAM = Parameter("local_tools", str, "off", choices=("off", "on"), label="Local tools",
                              help="on: the planner may also call tools computed on this machine: measure_distance "
                                   "(calibrations), read_text (OCR), follow_object (tracker), detect_people (HOG), list_annotations; "
                                   "off: FieldWorkArena's "
                                   "actions only")
"""Whether the planner is offered the local tools (``agent_tools``); a run with and one without compare them."""


def actions_of(local: bool) -> dict[str, tuple[str, ...]]:
    """The actions a planner may call: FieldWorkArena's, plus the local tools when ``local``."""
    return {**ACTIONS, **{n: params for n, (params, _d) in LOCAL_TOOLS.items()}} if local else ACTIONS


class ActionParseError(ValueError):
    """A planner reply holds no valid action; the message says why (shown to the planner next step)."""


def tools(local: bool = False) -> list[dict[str, Any]]:
    """The four actions (and the local tools when ``local``) as OpenAI function tools."""
    descriptions = {
        "analyze_image": "A vision model looks at the photo at `path` and answers `query`.",
        "analyze_video": "A vision model looks at frames sampled from the video at `path` and answers `query`.",
        "analyze_document": "A model reads the document at `path` and answers `query`.",
        "send_msg_to_user": "Give the final answer to the task; this ends the task.",
        **{n: d for n, (_p, d) in LOCAL_TOOLS.items()},
    }
    out = []
    for name, params in actions_of(local).items():
        props = {p: {"type": "string"} for p in params}
        out.append({"type": "function", "function": {
            "name": name, "description": descriptions[name],
            "parameters": {"type": "object", "properties": props, "required": list(params)}}})
    return out


def parse_text_action(text: str, actions: dict[str, tuple[str, ...]] = ACTIONS) -> tuple[str, dict[str, str]]:
    """The one action in a planner's text reply: (name, {argument: value}).

    The reply (or its fenced code block) must hold exactly one call of a known action (of ``actions``) in Python
    syntax, whose arguments are string literals, positional or by name, all present. Raises ActionParseError.
    """
    blocks = _FENCE.findall(text or "")
    code = "\n".join(blocks) if blocks else (text or "")
    start_of = _ACTION_START if actions is ACTIONS else re.compile(r"\b(" + "|".join(actions) + r")\s*\(")
    starts = list(start_of.finditer(code))
    if not starts:
        raise ActionParseError("no action found; reply with exactly one action call such as "
                               'send_msg_to_user("...")')
    call = None
    call_end = -1
    for start in starts:
        if start.start() < call_end:
            continue  # inside the arguments of the call already found
        for close in (m.end() for m in re.finditer(r"\)", code[start.start():])):
            snippet = code[start.start():start.start() + close]
            try:
                node = ast.parse(snippet.strip(), mode="eval").body
            except SyntaxError:
                continue
            if isinstance(node, ast.Call):
                if call is not None:
                    raise ActionParseError("more than one action in one reply; give exactly one")
                call, call_end = node, start.start() + close
                break
    if call is None:
        raise ActionParseError("the action is not a valid call with string arguments in double quotes")
    name = call.func.id if isinstance(call.func, ast.Name) else None
    if name not in actions:
        raise ActionParseError(f"unknown action {name!r}")
    params = actions[name]
    values: dict[str, str] = {}
    if len(call.args) > len(params):
        raise ActionParseError(f"{name} takes {len(params)} argument(s): {', '.join(params)}")
    for param, arg in zip(params, call.args):
        values[param] = _string(arg, name)
    for kw in call.keywords:
        if kw.arg not in params or kw.arg in values:
            raise ActionParseError(f"{name} has no argument {kw.arg!r} (or it is given twice)")
        values[kw.arg] = _string(kw.value, name)
    missing = [p for p in params if p not in values]
    if missing:
        raise ActionParseError(f"{name} needs {', '.join(missing)}")
    return name, values


def _string(node: ast.AST, name: str) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise ActionParseError(f"the arguments of {name} must be strings in quotes")


def parse_tool_call(result: ChatResult, actions: dict[str, tuple[str, ...]] = ACTIONS
                    ) -> tuple[str, dict[str, str]] | None:
    """The first tool call of a reply as (name, arguments), None when it has none. Raises ActionParseError."""
    try:
        calls = result.raw["choices"][0]["message"].get("tool_calls") or []
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    if not calls:
        return None
    function = calls[0].get("function") or {}
    name = function.get("name")
    if name not in actions:
        raise ActionParseError(f"unknown action {name!r}")
    try:
        args = json.loads(function.get("arguments") or "{}")
    except ValueError:
        raise ActionParseError(f"the arguments of {name} are not valid JSON") from None
    if not isinstance(args, dict) or any(not isinstance(args.get(p), str) for p in actions[name]):
        raise ActionParseError(f"{name} needs string arguments {', '.join(actions[name])}")
    return name, {p: args[p] for p in actions[name]}


def _basename(path: str) -> str:
    return PureWindowsPath(PurePosixPath(path.strip()).name).name


def resolve_input(task: TaskSpec, path: str) -> TaskInputSpec | None:
    """The task input named by `path` (compared by base name, case-insensitively), or None."""
    wanted = _basename(path).lower()
    for inp in task.inputs:
        if _basename(inp.name).lower() == wanted:
            return inp
    return None


def _planner_prompt(ctx: StrategyContext, task: TaskSpec, results: dict[str, list[tuple[str, str]]],
                    history: list[str], use_tools: bool) -> Prompt:
    fmt = template("strategy_agent_tools_format" if use_tools else "strategy_agent_text_format")
    system = template("strategy_agent").format(action_format=fmt)
    analysed = []
    for inp in task.inputs:
        entries = results.get(inp.name)
        if not entries:
            analysed.append(f"{inp.name}: {NOT_ANALYZED}")
        for query, answer in entries or []:
            analysed.append(f"{inp.name} (asked: {query}): {answer}")
    text = fwa_goal(task) + "\n\n# Analyzed results\n" + ("\n".join(analysed) or "(no input data)")
    local = ctx.param("local_tools", "off") == "on"
    if local:  # said in the text too, for a planner that reads actions as text
        text += "\n\n# Local tools (also callable as actions)\n" + "\n".join(
            f"{n}({', '.join(p)}): {d}" for n, (p, d) in LOCAL_TOOLS.items())
    text += "\n\n# Actions so far\n" + ("\n".join(history) or "(none)") + "\n\nChoose the next action."
    extra = {"tools": tools(local), "tool_choice": "auto"} if use_tools else None
    return Prompt([{"role": "system", "content": system}, {"role": "user", "content": text}], [],
                  purpose=f"plan step {len(history) + 1}", max_tokens=ctx.params.get("max_tokens"), extra_body=extra)


def analysis_prompt(ctx: StrategyContext, action: str, inp: TaskInputSpec, query: str) -> Prompt:
    """The request an analyze action makes: the query as system prompt, then the photo, frames or text."""
    vision = ctx.vision_profile or ctx.profile
    detail = ctx.param("detail", vision.image_detail)
    side = vision.longest_image_side
    if action == "analyze_image":
        image = encode_frame(ctx, inp, 0, max_side=side, quality=FWA_JPEG_QUALITY, max_bytes=FWA_MAX_JPEG_BYTES)
        parts, images = [text_part(f"{inp.name}:"), image_part(image, detail)], [image]
    elif action == "analyze_video":
        frames = sampled_frames(ctx, inp)
        frame_parts, images = timestamped_frames(ctx, inp, frames, detail=detail, max_side=side,
                                                 quality=FWA_JPEG_QUALITY, max_bytes=FWA_MAX_JPEG_BYTES)
        parts = [text_part(f"Frames sampled from the video {inp.name}, each after its timestamp:"), *frame_parts]
    else:
        parts, images = [text_part(f"Text of the document {inp.name}:\n{document_text(ctx.project, inp.media)}")], []
    return Prompt([{"role": "system", "content": query}, {"role": "user", "content": parts}], images,
                  purpose=f"{action} {inp.name}", max_tokens=ctx.params.get("max_tokens"),
                  documents=document_sources(ctx, [inp]) if action not in ("analyze_image", "analyze_video") else [])


def _build(ctx: StrategyContext, task: TaskSpec) -> list[Prompt]:
    require_inputs(task)
    return [_planner_prompt(ctx, task, {}, [], ctx.param("tool_calling", "auto") != "off")]


def execute_agent(ctx: StrategyContext, task: TaskSpec, ask: Ask) -> StrategyOutcome:
    """Run the plan-act loop for one task; see the module docstring."""
    require_inputs(task)
    max_steps = int(ctx.param("max_steps", DEFAULT_MAX_STEPS))
    use_tools = ctx.param("tool_calling", "auto") != "off"
    results: dict[str, list[tuple[str, str]]] = {}
    history: list[str] = []
    trace: list[dict[str, Any]] = []
    last_text: str | None = None
    actions = actions_of(ctx.param("local_tools", "off") == "on")
    for step in range(1, max_steps + 1):
        prompt = _planner_prompt(ctx, task, results, history, use_tools)
        try:
            reply = ask(prompt)
        except ModelCallError as exc:
            if use_tools and ctx.param("tool_calling", "auto") == "auto" and exc.kind == "bad_request" \
                    and "tool" in (exc.detail or str(exc)).lower():
                use_tools = False
                reply = ask(_planner_prompt(ctx, task, results, history, use_tools))
            else:
                raise
        last_text = reply.text
        entry: dict[str, Any] = {"step": step, "reply": reply.text}
        try:
            parsed = parse_tool_call(reply, actions)
            entry["via"] = "tool" if parsed else "text"
            name, args = parsed or parse_text_action(reply.text, actions)
        except ActionParseError as exc:
            entry.update(action=None, problem=str(exc))
            trace.append(entry)
            history.append(f"{step}. invalid reply: {exc}")
            continue
        entry.update(action=name, args=args)
        if name == "send_msg_to_user":
            trace.append(entry)
            parsed_answer, kind, message = parse_text_answer(task, args["text"])
            parsed_answer["steps"] = step
            return StrategyOutcome(args["text"], parsed_answer, kind, message, trace)
        inp = resolve_input(task, args["path"])
        if name in LOCAL_TOOLS:
            observation = (run_tool(ctx.project, name, inp, args) if inp is not None else
                           f"unknown path {args['path']!r}; the input data are: "
                           f"{', '.join(i.name for i in task.inputs)}")
            entry.update(local=True, result=observation)
            trace.append(entry)
            history.append(f"{step}. {name}({', '.join(repr(v) for v in args.values())}): {observation}")
            continue
        wanted = _KIND_OF_ACTION[name]
        if inp is None:
            observation = f"unknown path {args['path']!r}; the input data are: {', '.join(i.name for i in task.inputs)}"
        elif inp.kind != wanted:
            observation = f"{inp.name} is a {inp.kind}, so {name} cannot read it; use analyze_{inp.kind}"
        else:
            answer = ask(analysis_prompt(ctx, name, inp, args["query"]), ctx.vision_profile or ctx.profile)
            results.setdefault(inp.name, []).append((args["query"], answer.text.strip()[:_RESULT_CHARS]))
            observation = "done; see Analyzed results"
        entry["result"] = observation if inp is None or inp.kind != wanted else results[inp.name][-1][1]
        trace.append(entry)
        history.append(f"{step}. {name}({args['path']!r}, {args['query']!r}): {observation}")
    return StrategyOutcome(last_text, None, "max_steps",
                           f"no send_msg_to_user within {max_steps} steps", trace)


def requests_agent(task: TaskSpec, rctx: RequestContext) -> list[Request]:
    """One planning and one analysis request per input (the analysis at the vision profile's size and
    detail: FieldWorkArena's frames for a video, the photo, the document's text), then the final planning
    request. An agent may take more or fewer steps: the count is a guess (``approximate``)."""
    vision = rctx.vision_profile or rctx.profile
    side = rctx.param("max_side", vision.longest_image_side)
    detail = rctx.param("detail", vision.image_detail)
    planning = prompt_chars(task, _PLANNER_TEMPLATES)
    out: list[Request] = []
    for inp in task.inputs:
        out.append(Request(planning, [], "low"))          # the planner chooses to analyse this input
        if inp.kind == "video":
            frames = expected_frames(rctx, inp)
            out.append(Request(len(task.query) + frames * TIMESTAMP_CHARS, [input_size(inp, side)] * frames, detail))
        elif inp.kind == "image":
            out.append(Request(len(task.query), [input_size(inp, side)], detail))
        else:
            out.append(Request(len(task.query) + rctx.doc_chars.get(inp.media.id, 0), [], detail))
    out.append(Request(planning, [], "low"))              # the final send_msg_to_user
    return out


AGENT = Strategy("agent", "1", "Agent mode: analyze_image, analyze_video, analyze_document and send_msg_to_user "
                 "with a step limit (FieldWorkArena's action space)", _build, execute_agent, requests_agent,
                 templates=("strategy_agent", "strategy_agent_text_format", "strategy_agent_tools_format",
                            "strategy_fieldworkarena_goal"),
                 parameters=(MAX_FRAMES, SECONDS_PER_FRAME, MAX_SIDE, DETAIL, MAX_STEPS, SAMPLING, TOOL_CALLING,
                             LOCAL_TOOLS_PARAM, MAX_TOKENS),
                 approximate=True)
"""FieldWorkArena's agent mode."""
