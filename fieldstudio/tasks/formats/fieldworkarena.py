"""FieldWorkArena (FWA) task files, domain and sub-category lists, run logs, and the GreenAgent exporter.

Formats (benchmarks.md §1.2, §1.3, §1.7, §5):

* **Ground-truth variant** (``ast-fri/FieldWorkArena-GreenAgent:benchmark/tasks/group2/Tasks_*.json``,
  loader ``task_loader.py``): a JSON array of ``{id, input_data, conversations, output_format, eval_func}``;
  the query is the ``from == "human"`` turn, the ground truth the ``from == "gpt"`` turn.
* **Public variant** (``FujitsuResearch/FieldWorkArena:benchmark/tasks/group2/Tasks_*.json``, V2): the same
  without the ``gpt`` turn and without ``eval_func``. Its query texts differ from the ground-truth files
  in 640 of 886 tasks, so when both are imported the ground-truth query wins and the public text is kept
  as ``extra["public_query"]`` (benchmarks.md §5 pitfall 3; done in ``task_import``).
* **Oldest variant** (initial commit, ``group2_tasks.json``): ids ``fieldworkarena.demo.1`` and
  ``input_data`` ``"image North1_C3_187_3_09.30.10_09_05.jpg"`` (type prefix, space, name).

``input_data`` is a list of names or one string of whitespace-separated names, sometimes with double
spaces: GreenAgent splits it with ``str.split()``, and so does this module (pitfall 2). A first token
without a file extension followed by more tokens is a type prefix (oldest variant).

The category is always ``id[:-5]`` (``FWA_evaluator.extract_task_category``), never the file name: the
file ``Tasks_V2_2.2.json`` holds ids ``2.1.2126``-``2.1.2162`` (pitfall 1). The domain (scenario) comes from
the id lists ``all_task_ids_{factory,warehouse,retail}.txt`` (FujitsuResearch) or
``all_task_ids_over_size.toml`` (GreenAgent); the sub-category bucket from
``tools/evaluation/Sample_Data/category_*.csv`` through ``calc_category.py``'s bucket table. A task with
no CSV row (warehouse ``4.1.0051``) gets the bucket ``unmapped`` and is reported, never dropped (pitfall 13).

Ground truths are never rewritten; suspicious values (a malformed time such as ``00: 00:03:53``, an
input named ``*.mp5``) are flagged in ``extra["data_quality"]`` and reported as warnings (pitfall 11).

``TASK_FORMAT`` (``fieldworkarena``, read and written) and ``ANSWER_FORMAT`` (``fieldworkarena-log``, run logs)
declare both for the registry (``tasks/formats/__init__.py``).
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fieldstudio.benchmarks.fieldworkarena import SUBCATEGORY_BUCKETS
from fieldstudio.tasks.formats.file_format import ANSWERS, READS_PATH, TASKS, FileFormat, write_json_array
from fieldstudio.tasks.formats.parsed_records import (
    ParsedAnswer,
    ParsedInput,
    ParsedTask,
    ParseResult,
    guess_answer_type,
    read_json_array,
)

SOURCE = "fieldworkarena"
ID_PREFIX = "fieldworkarena."
DOMAINS = ("factory", "warehouse", "retail")
EVAL_FUNCS = ("fuzzy_match", "numerical_match", "json_match", "exact_match", "must_include", "must_exclude")
"""eval_func values FWA_evaluator.evaluate_func accepts; only the first three are used by tasks (§1.2)."""
MEDIA_SUFFIXES = {"jpg", "png", "mp4", "pdf", "txt"}
"""Extensions FWA's ``_return_path`` resolves to a media folder (§1.2 "Media resolution")."""
LOG_ENCODINGS = ("utf-8", "utf-8-sig", "shift-jis", "cp932")
"""Encodings ``FWA_evaluator.read_target`` tries, in order (§1.7)."""

UNMAPPED = "unmapped"
_BUCKET_OF = {tax: bucket for bucket, taxes in SUBCATEGORY_BUCKETS.items() for tax in taxes}

_TASK_ID_RE = re.compile(r"^\d+\.\d+\.\d{4}$")
_MALFORMED_TIME_RE = re.compile(r"\d:\s+\d")
_LOG_ID_RE = re.compile(r"<id>(.*?)</id>", re.MULTILINE | re.DOTALL)
_LOG_ANSWER_RE = re.compile(r"<answer>(.*?)</answer>", re.MULTILINE | re.DOTALL)
_TAG_RE = re.compile(r"<(.*?)>")


# ---------------------------------------------------------------- ids and input names
def strip_prefix(task_id: str) -> str:
    """``fieldworkarena.2.1.0001`` -> ``2.1.0001`` (log files and id lists use the prefixed form, §1.2)."""
    tid = str(task_id).strip()
    return tid[len(ID_PREFIX):] if tid.startswith(ID_PREFIX) else tid


def id_forms(external_id: str) -> list[str]:
    """The ids an id written in an answer file may name a task by, best first: as written, then without or with
    the ``fieldworkarena.`` prefix (task files store ``1.1.0001``; logs, id lists and some CSVs write
    ``fieldworkarena.1.1.0001``)."""
    bare = strip_prefix(external_id)
    return list(dict.fromkeys([external_id, bare, ID_PREFIX + bare]))


def category_of(task_id: str) -> str | None:
    """The FWA category of an id: ``id[:-5]`` as ``FWA_evaluator.extract_task_category`` computes it.

    ``2.1.2126`` -> ``2.1`` (from ``Tasks_V2_2.2.json``), ``4.2.2003`` -> ``4.2``. Demo ids
    (``demo.project.1``) -> ``demo``. Any other shape -> None (the official code would cut it blindly).
    """
    tid = strip_prefix(task_id)
    if _TASK_ID_RE.match(tid):
        return tid[:-5]
    if tid.startswith("demo."):
        return "demo"
    return None


def split_input_data(value: Any) -> tuple[list[str], str | None]:
    """(names, type prefix) from ``input_data``.

    A list keeps its non-empty entries (stripped). A string is split on any run of whitespace as
    GreenAgent's ``task_loader.py`` does (``"a.mp4  b.txt"`` -> ``["a.mp4", "b.txt"]``). If the first
    token has no extension and more tokens follow, it is the oldest format's type prefix:
    ``"image North1.jpg"`` -> (``["North1.jpg"]``, ``"image"``). Raises TypeError for other types.
    """
    if value is None:
        return [], None
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise TypeError("input_data list holds a value that is not a string")
        return [v.strip() for v in value if v.strip()], None
    if isinstance(value, str):
        tokens = value.split()
        if len(tokens) > 1 and "." not in tokens[0]:
            return tokens[1:], tokens[0]
        return tokens, None
    raise TypeError(f"input_data is a {type(value).__name__}, expected a list of names or a string")


# ---------------------------------------------------------------- domain and sub-category lists
def load_domain_lists(paths: Iterable[Path]) -> dict[str, str]:
    """{task id: domain} from FWA id lists.

    ``all_task_ids_<domain>.txt`` (FujitsuResearch): one ``fieldworkarena.<id>`` per line.
    ``all_task_ids_over_size.toml`` (GreenAgent): arrays ``factory``, ``warehouse``, ``retail`` (the key
    ``custom`` is a demo subset and is ignored). ``all_task_ids.toml`` is a size-limited subset (§1.3) and
    is refused (ValueError) because it would leave most tasks without a domain.
    Raises OSError / ValueError for unreadable files.
    """
    domains: dict[str, str] = {}
    for path in paths:
        path = Path(path)
        if path.suffix == ".toml":
            if path.name == "all_task_ids.toml":
                raise ValueError(f"{path}: is GreenAgent's size-limited subset; use all_task_ids_over_size.toml")
            with open(path, "rb") as fh:
                table = tomllib.load(fh)
            for domain in DOMAINS:
                for tid in table.get(domain, []):
                    domains[strip_prefix(tid)] = domain
        else:
            m = re.match(r"all_task_ids_(\w+)\.txt$", path.name)
            if not m or m.group(1) not in DOMAINS:
                raise ValueError(f"{path}: not an FWA domain list (all_task_ids_<factory|warehouse|retail>.txt)")
            for line in path.read_text(encoding="utf-8-sig").splitlines():
                if line.strip():
                    domains[strip_prefix(line)] = m.group(1)
    return domains


def load_subcategory_csvs(paths: Iterable[Path]) -> dict[str, str]:
    """{task id: taxonomy id} from ``category_{factory,retail,warehouse}.csv``.

    Each file is tab-separated ``task_id<TAB>category_id`` with CRLF line ends and no header
    (``tools/evaluation/Sample_Data``, read by ``calc_category.py``).
    """
    taxonomy: dict[str, str] = {}
    for path in paths:
        text = Path(path).read_text(encoding="utf-8-sig")
        for row in csv.reader(io.StringIO(text), delimiter="\t"):
            if len(row) >= 2 and row[0].strip():
                taxonomy[strip_prefix(row[0])] = row[1].strip()
    return taxonomy


def bucket_of(taxonomy_id: str | None) -> str:
    """``calc_category.py``'s bucket of a taxonomy id, or ``unmapped``."""
    return _BUCKET_OF.get(str(taxonomy_id).strip(), UNMAPPED) if taxonomy_id else UNMAPPED


def find_support_files(task_file: Path) -> tuple[list[Path], list[Path]]:
    """(domain id lists, sub-category CSVs) found next to a task file.

    Looks in the file's folder, its parent and the parent's sub-folders (the published layout keeps
    ``categories/`` beside ``ground_truth/`` and ``tasks_v2/``). The ``.txt`` lists are preferred over the
    TOML when both are found; the nearest folder wins.
    """
    folder = Path(task_file).resolve().parent
    try:
        siblings = sorted(p for p in folder.parent.iterdir() if p.is_dir() and p != folder)
    except OSError:  # an unreadable parent folder: look only beside the file
        siblings = []
    candidates = [folder, folder.parent] + siblings
    domain_files: list[Path] = []
    csv_files: list[Path] = []
    for d in candidates:
        if not domain_files:
            txt = sorted(d.glob("all_task_ids_*.txt"))
            toml = d / "all_task_ids_over_size.toml"
            domain_files = [p for p in txt if p.stem.rsplit("_", 1)[-1] in DOMAINS] or ([toml] if toml.is_file() else [])
        if not csv_files:
            csv_files = sorted(d.glob("category_*.csv"))
    return domain_files, csv_files


# ---------------------------------------------------------------- task files
def looks_like_fwa(records: Any) -> bool:
    """True when a decoded JSON value is an FWA task array (objects with ``id`` and ``conversations``)."""
    return (isinstance(records, list) and bool(records) and isinstance(records[0], dict)
            and "conversations" in records[0] and "id" in records[0])


def parse_task_file(path: Path, *, domains: Mapping[str, str] | None = None,
                    taxonomy: Mapping[str, str] | None = None) -> ParseResult:
    """Read one FWA task file (any variant) into ParsedTasks.

    ``domains`` ({id: domain}) and ``taxonomy`` ({id: taxonomy id}) default to the lists found next to
    the file (``find_support_files``); pass ``{}`` to use none. A bad record is reported and skipped; a
    bad file gives one problem and no tasks. Never raises for bad input.
    """
    path = Path(path)
    result = ParseResult(format="fieldworkarena")
    if domains is None or taxonomy is None:
        try:
            domain_files, csv_files = find_support_files(path)
            if domains is None:
                domains = load_domain_lists(domain_files)
            if taxonomy is None:
                taxonomy = load_subcategory_csvs(csv_files)
        except (OSError, ValueError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            result.problem(path, None, f"domain or category list unreadable, not used ({exc})", "warning")
            domains, taxonomy = domains or {}, taxonomy or {}
    records = read_json_array(path, result, "FieldWorkArena tasks")
    if records is None:
        return result
    parse_records(records, path, result, domains=domains, taxonomy=taxonomy)
    return result


def parse_records(records: Sequence[Any], path: Path, result: ParseResult, *, domains: Mapping[str, str],
                  taxonomy: Mapping[str, str]) -> None:
    """Append one ParsedTask per valid record of an FWA array to ``result`` (problems for the others)."""
    seen: set[str] = set()
    for index, record in enumerate(records):
        where = f"record {index + 1}"
        if not isinstance(record, dict):
            result.problem(path, where, f"is a {type(record).__name__}, expected an object")
            continue
        raw_id = record.get("id")
        if not isinstance(raw_id, str) or not raw_id.strip():
            result.problem(path, where, "has no task id")
            continue
        task_id = strip_prefix(raw_id)
        if task_id in seen:
            result.problem(path, task_id, "appears twice in the file; the second record was skipped")
            continue
        task = _parse_record(record, raw_id, task_id, path, result, domains, taxonomy)
        if task is not None:
            seen.add(task_id)
            result.tasks.append(task)


def _parse_record(record: dict[str, Any], raw_id: str, task_id: str, path: Path, result: ParseResult,
                  domains: Mapping[str, str], taxonomy: Mapping[str, str]) -> ParsedTask | None:
    conversations = record.get("conversations")
    if not isinstance(conversations, list) or not all(isinstance(c, dict) for c in conversations):
        result.problem(path, task_id, "has no conversations list")
        return None
    human = [c.get("value") for c in conversations if c.get("from") == "human"]
    gpt = [c.get("value") for c in conversations if c.get("from") == "gpt"]
    if not human or not isinstance(human[0], str):
        result.problem(path, task_id, "has no question (no conversation turn from \"human\")")
        return None
    ground_truth = gpt[0] if gpt else None
    if ground_truth is not None and not isinstance(ground_truth, str):
        ground_truth = json.dumps(ground_truth, ensure_ascii=False)
        result.problem(path, task_id, "ground truth is not a string; stored as JSON text", "warning")
    try:
        names, data_type = split_input_data(record.get("input_data"))
    except TypeError as exc:
        result.problem(path, task_id, str(exc))
        return None
    eval_func = record.get("eval_func")
    if eval_func is not None and eval_func not in EVAL_FUNCS:
        result.problem(path, task_id, f"unknown eval_func {eval_func!r}; kept as written", "warning")
    output_format = record.get("output_format")
    extra: dict[str, Any] = {}
    oldest = raw_id.strip().startswith(ID_PREFIX) or data_type is not None
    extra["variant"] = "oldest" if oldest else ("ground_truth" if (gpt or eval_func) else "public")
    if data_type is not None:
        extra["data_type"] = data_type
    if raw_id.strip() != task_id:
        extra["original_id"] = raw_id.strip()
    known = {"id", "input_data", "conversations", "output_format", "eval_func"}
    other = {k: v for k, v in record.items() if k not in known}
    if other:
        extra["other_fields"] = other

    quality: list[str] = []
    if not names:
        quality.append("names no input file")
    for name in names:
        suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        if suffix not in MEDIA_SUFFIXES:
            quality.append(f"input {name!r} has an unusual extension; kept as written")
    if ground_truth and _MALFORMED_TIME_RE.search(ground_truth):
        quality.append("ground truth holds a time that looks malformed (space after a colon); kept as written")
    if quality:
        extra["data_quality"] = quality
        for q in quality:
            result.problem(path, task_id, q, "warning")

    category = category_of(task_id)
    if category is None:
        result.problem(path, task_id, "id is not of the form <major>.<minor>.<NNNN>; no category", "warning")
    scenario = domains.get(task_id)
    if domains and scenario is None and category != "demo":
        result.problem(path, task_id, "is in no domain list (factory, warehouse, retail)", "warning")
    sub_category = None
    if taxonomy:
        taxonomy_id = taxonomy.get(task_id)
        if category != "demo":
            sub_category = bucket_of(taxonomy_id)
            if taxonomy_id is not None:
                extra["taxonomy_id"] = taxonomy_id
            if taxonomy_id is None:
                result.problem(path, task_id, "has no row in the category CSVs; sub-category 'unmapped'", "warning")
            elif sub_category == UNMAPPED:
                result.problem(path, task_id, f"taxonomy id {taxonomy_id} is in no calc_category bucket; "
                                              "sub-category 'unmapped'", "warning")
    query = human[0]
    return ParsedTask(
        external_id=task_id, source=SOURCE, query=query,
        answer_type=guess_answer_type(query, eval_func=eval_func, output_format=output_format),
        ground_truth=ground_truth, eval_func=eval_func, output_format=output_format,
        category=category, sub_category=sub_category, scenario=scenario,
        inputs=[ParsedInput(n) for n in names], extra=extra,
    )


# ---------------------------------------------------------------- exporter
def to_greenagent_record(task: ParsedTask) -> dict[str, Any]:
    """One task as a GreenAgent task object (``input_data`` as a list, the ``gpt`` turn when there is a
    ground truth, ``eval_func`` when known)."""
    conversations = [{"from": "human", "value": task.query}]
    if task.ground_truth is not None:
        conversations.append({"from": "gpt", "value": task.ground_truth})
    record: dict[str, Any] = {"id": task.external_id, "input_data": [i.name for i in task.inputs],
                              "conversations": conversations, "output_format": task.output_format or "text"}
    if task.eval_func is not None:
        record["eval_func"] = task.eval_func
    return record


def export_greenagent(tasks: Iterable[ParsedTask], path: Path) -> int:
    """Write tasks as a GreenAgent ``Tasks_*.json`` array (UTF-8, 4-space indent), atomically.

    Returns the number of tasks written. Re-reading the file with ``parse_task_file`` (and the same
    domain and category lists) gives the same records; time ranges on inputs are not part of the format
    and are not written.
    """
    records = [to_greenagent_record(t) for t in tasks]
    write_json_array(records, path)
    return len(records)


# ---------------------------------------------------------------- run logs
def decode_log(raw: bytes) -> tuple[str, str] | None:
    """(text, encoding) trying utf-8, utf-8-sig, shift-jis, cp932 in order (``read_target``); universal
    newlines as Python's text mode gives them. None when no encoding decodes the bytes."""
    for encoding in LOG_ENCODINGS:
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        return text.replace("\r\n", "\n").replace("\r", "\n"), encoding
    return None


def official_log_text(answer: str) -> str:
    """An answer as FWA_evaluator.read_target reads it back from its run log: universal newlines, every ``<…>``
    span on one line removed (with the ``<answer>`` tags around it), then every newline deleted without a space
    ("3\\nmeters" -> "3meters"). What the official evaluator sends its judge."""
    text = "<answer>" + str(answer).replace("\r\n", "\n").replace("\r", "\n") + "</answer>"
    return _TAG_RE.sub("", text).replace("\n", "")


def looks_like_run_logs(path: Path) -> bool | str:
    """True for a ``*.log`` file, or a folder with one somewhere below it; for a folder without, why not."""
    path = Path(path)
    if path.is_dir():
        return True if any(p.is_file() for p in path.rglob("*.log")) else "is a folder without *.log run logs"
    return path.suffix.lower() == ".log"


def parse_run_log(path: Path) -> ParseResult:
    """The answer in one FWA run log (``*.log``), read as ``FWA_evaluator.read_target`` reads it.

    Official rule (tools/evaluation/FWA_evaluator.py, benchmarks.md §1.7): only the **first**
    ``<id>…</id>`` and the **first** ``<answer>…</answer>`` (non-greedy, across lines) count; every
    ``<…>`` span inside the match is removed and then every newline is deleted **without** a space
    (``"3\\nmeters"`` -> ``"3meters"``); the id loses its first 15 characters (``fieldworkarena.``).

    Difference in fieldstudio: ``raw_text`` keeps the answer exactly as logged (newlines and any
    ``<…>`` text inside it); the official text is kept beside it as ``extra["official_text"]`` so the
    code-compatible scorer can use it. The id prefix is removed only when it is there. Further tag pairs
    in the same log are ignored, as the evaluator does, with a warning.
    """
    path = Path(path)
    result = ParseResult(format="fieldworkarena-log")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        result.problem(path, None, f"cannot be read ({exc.strerror or exc})")
        return result
    decoded = decode_log(raw)
    if decoded is None:
        result.problem(path, None, "is in none of the encodings utf-8, utf-8-sig, shift-jis, cp932")
        return result
    text, encoding = decoded
    ids = list(_LOG_ID_RE.finditer(text))
    answers = list(_LOG_ANSWER_RE.finditer(text))
    if not ids or not answers:
        missing = "<id>…</id>" if not ids else "<answer>…</answer>"
        result.problem(path, None, f"has no {missing}; the official evaluator skips it", "warning")
        return result
    official_id = _TAG_RE.sub("", ids[0].group(0)).replace("\n", "")[15:]
    task_id = strip_prefix(ids[0].group(1).strip())
    raw_answer = answers[0].group(1)
    official_text = official_log_text(raw_answer)
    if len(ids) > 1 or len(answers) > 1:
        result.problem(path, task_id, f"holds {len(ids)} <id> and {len(answers)} <answer> tags; only the first "
                                      "pair is imported, as the official evaluator reads it", "warning")
    extra: dict[str, Any] = {"official_text": official_text, "log_file": str(path), "encoding": encoding}
    if official_id != task_id:
        extra["official_id"] = official_id
        result.problem(path, task_id, f"the official evaluator would read this id as {official_id!r}", "warning")
    result.answers.append(ParsedAnswer(task_id, raw_answer, extra))
    return result


def parse_run_logs(root: Path) -> ParseResult:
    """Answers from every ``*.log`` below ``root`` (recursively, sorted), or from ``root`` itself.

    When several logs answer the same task, the first (in sorted path order) is kept and the others are
    reported; the official evaluator would score each of them.
    """
    root = Path(root)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*.log") if p.is_file())
    result = ParseResult(format="fieldworkarena-log")
    if not files:
        result.problem(root, None, "holds no *.log file")
    seen: dict[str, str] = {}
    for f in files:
        one = parse_run_log(f)
        result.problems.extend(one.problems)
        for answer in one.answers:
            if answer.external_id in seen:
                result.problem(f, answer.external_id, f"answers the same task as {seen[answer.external_id]}; "
                                                       "this log was skipped", "warning")
                continue
            seen[answer.external_id] = str(f)
            result.answers.append(answer)
    return result


TASK_FORMAT = FileFormat(
    name="fieldworkarena", kind=TASKS, benchmark="FieldWorkArena", choice="fieldworkarena", suffixes=(".json",),
    summary="GreenAgent JSON", source=SOURCE, sniff=looks_like_fwa, parse=parse_task_file,
    options=("domains", "taxonomy"), to_record=to_greenagent_record, write=write_json_array)
"""FieldWorkArena task files (every variant), written as GreenAgent's."""

ANSWER_FORMAT = FileFormat(
    name="fieldworkarena-log", kind=ANSWERS, benchmark="FieldWorkArena", choice="fieldworkarena",
    suffixes=(".log",), summary="run logs (a file or a folder)", source=SOURCE, reads=READS_PATH, folders=True,
    sniff=looks_like_run_logs, parse=parse_run_logs)
"""FieldWorkArena run logs: a ``*.log`` file, or a folder searched recursively."""
