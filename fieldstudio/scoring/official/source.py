"""Where a benchmark's own judge files are, checked and read: ``load_source``, ``locate``, ``ask_for_folder``.

The folder is the user's copy of the benchmark's repository (or the folder holding its files). fieldstudio
remembers it per benchmark in ``official_sources.json`` in the user's config folder
(``core.user_settings.OFFICIAL_SOURCES``), beside its other settings; ``fieldstudio benchmarks locate``
sets it and ``fieldstudio score --official-source DIR`` overrides it for one call.

Every file a scorer needs (``known.ROLES``) is found under the folder by its repository path or, failing
that, by its file name in the folder itself; its fingerprint must be a known version (``known``), or the
file is refused with a message naming it, its fingerprint and the known ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fieldstudio import benchmarks
from fieldstudio.core.user_settings import OFFICIAL_SOURCES
from fieldstudio.scoring.official import known
from fieldstudio.scoring.official.reading import (FwaFiles, OfficialSourceError, Template, read_fwa,
                                                  read_industryeqa_settings, read_openeqa_defaults, read_text_prompt,
                                                  render)
from fieldstudio.scoring.official.settings import JudgeSettings

__all__ = ["OfficialSource", "OfficialSourceError", "VerifiedFile", "SOURCES_FILE", "load_source", "check_folder",
           "locate",
           "located_folder", "located_folders", "forget", "ask_for_folder", "BENCHMARK_TITLES"]

SOURCES_FILE = OFFICIAL_SOURCES.name
BENCHMARK_TITLES = {b.name: b.title for b in benchmarks.official_benchmarks()}
"""Benchmark name -> title, for the benchmarks whose own judge files fieldstudio reads (their declarations)."""
_WHAT_TO_POINT_AT = {
    "fieldworkarena": "a FieldWorkArena checkout (tools/evaluation/metrics/automatic/automatic_evaluation.py) or a "
                      "FieldWorkArena-GreenAgent checkout (src/fieldworkarena/agent/metrics/automatic/"
                      "automatic_evaluation.py)",
    "openeqa": "an open-eqa checkout (openeqa/evaluation/llm_match.py, prompts/mmbench.txt, prompts/mmbench-extra.txt)",
    "industryeqa": "an IndustryEQA checkout (industryeqa/evaluation/direct_match.py, prompts/direct_match.txt, "
                   "prompts/reasoning_match.txt)",
}


@dataclass(frozen=True)
class VerifiedFile:
    """One benchmark file that passed the check: its ``role``, ``path`` on disk, fingerprint and known version."""

    role: str
    path: Path
    sha256: str
    version: str
    variant: str = ""

    def record(self) -> dict[str, str]:
        """What a stored verdict keeps of the file: role, file name, fingerprint, version."""
        return {"role": self.role, "file": self.path.name, "sha256": self.sha256, "version": self.version}


@dataclass(frozen=True)
class OfficialSource:
    """A benchmark's own judge files, checked and read.

    ``benchmark``: a name in ``known.BENCHMARKS``; ``folder``: where they were found; ``files`` by role;
    ``settings``: the benchmark's judge settings (the scorer's defaults); ``prompts``: role -> a
    :data:`Template` (FieldWorkArena, by eval_func) or a ``str.format`` text (OpenEQA, IndustryEQA);
    ``mark_tag``: OpenEQA's "Your mark:" tag (from ``parse_score``); ``variant``: "offline" or
    "leaderboard" for FieldWorkArena.
    """

    benchmark: str
    folder: Path
    files: dict[str, VerifiedFile]
    settings: JudgeSettings
    prompts: dict[str, Any]
    mark_tag: str = ""
    variant: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def render(self, kind: str, **values: Any) -> str:
        """The prompt ``kind`` (an eval_func, "mmbench", "mmbench-extra", "direct", "reasoning") filled with
        ``values`` as the benchmark's code fills it. KeyError for an unknown kind."""
        prompt = self.prompts[kind]
        return render(prompt, values) if isinstance(prompt, tuple) else prompt.format(**values)

    @property
    def sha256(self) -> str:
        """The fingerprint of the whole source: the files' fingerprints by role, joined."""
        return "+".join(f"{r}:{f.sha256[:16]}" for r, f in sorted(self.files.items()))

    def describe(self) -> str:
        """'FieldWorkArena judge prompts from <folder> (automatic_evaluation.py = <version>, sha256 ...)'."""
        files = "; ".join(f"{f.path.name} = {f.version}, sha256 {f.sha256[:12]}" for f in self.files.values())
        return f"{BENCHMARK_TITLES[self.benchmark]} judge prompts from {self.folder} ({files})"

    def record(self) -> dict[str, Any]:
        """What every verdict stores of its prompt source: benchmark, files (role, name, sha256, version), settings."""
        return {"benchmark": self.benchmark, "files": [f.record() for f in self.files.values()],
                "variant": self.variant, "settings": self.settings.as_dict()}


# ---------------------------------------------------------------- finding and checking the files
def _candidates(folder: Path, benchmark: str, role: str) -> list[tuple[Path, list[known.KnownFile]]]:
    versions = known.known_versions(benchmark, role)
    paths: list[Path] = []
    for k in versions:
        for p in (folder / k.path, folder / Path(k.path).name):
            if p not in paths:
                paths.append(p)
    return [(p, versions) for p in paths if p.is_file()]


def _check(folder: Path, benchmark: str, role: str) -> VerifiedFile:
    versions = known.known_versions(benchmark, role)
    found = _candidates(folder, benchmark, role)
    if not found:
        wanted = ", ".join(sorted({k.path for k in versions}))
        raise OfficialSourceError(f"{folder}: no {BENCHMARK_TITLES[benchmark]} file {wanted} there; point fieldstudio "
                                  f"at {_WHAT_TO_POINT_AT[benchmark]}")
    refused = []
    for path, _ in found:
        try:
            sha = known.fingerprint(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise OfficialSourceError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
        for k in versions:
            if k.sha256 == sha:
                return VerifiedFile(role, path, sha, k.version, k.variant)
        refused.append((path, sha))
    path, sha = refused[0]
    listed = "; ".join(f"{k.sha256} ({k.version}, {k.path})" for k in versions)
    raise OfficialSourceError(f"{path}: unknown version of this {BENCHMARK_TITLES[benchmark]} file (sha256 {sha}); "
                              f"fieldstudio knows {listed}. Check out one of those commits, or score with the "
                              "fieldstudio-prompt scorer instead")


def _read(benchmark: str, folder: Path, files: dict[str, VerifiedFile]) -> OfficialSource:
    def text(role: str) -> str:
        return files[role].path.read_text(encoding="utf-8")

    if benchmark == "fieldworkarena":
        fwa: FwaFiles = read_fwa(files["evaluator"].path, text("evaluator"))
        prompts: dict[str, Template | str] = dict(fwa.templates)
        return OfficialSource(benchmark, folder, files, fwa.settings, prompts, variant=files["evaluator"].variant)
    if benchmark == "openeqa":
        settings, tag = read_openeqa_defaults(files["llm_match"].path, text("llm_match"))
        prompts = {"mmbench": read_text_prompt(files["mmbench"].path, text("mmbench"),
                                               {"question", "answer", "prediction"}),
                   "mmbench-extra": read_text_prompt(files["mmbench-extra"].path, text("mmbench-extra"),
                                                     {"question", "answer", "prediction", "extra_answers"})}
        return OfficialSource(benchmark, folder, files, settings, prompts, mark_tag=tag)
    settings = read_industryeqa_settings(files["direct_match"].path, text("direct_match"))
    direct_fields = {"question", "ground_direct_answer", "generated_direct_answer"}
    prompts = {"direct": read_text_prompt(files["direct"].path, text("direct"), direct_fields),
               "reasoning": read_text_prompt(files["reasoning"].path, text("reasoning"),
                                             direct_fields | {"ground_reasoning_answer", "generated_reasoning_answer"})}
    return OfficialSource(benchmark, folder, files, settings, prompts)


def _benchmark(name: str) -> str:
    key = str(name).strip().lower()
    if key not in known.BENCHMARKS:
        raise OfficialSourceError(f"no benchmark {name!r}; fieldstudio reads the judge files of "
                                  + ", ".join(known.BENCHMARKS))
    return key


def check_folder(benchmark: str, folder: Path | str) -> OfficialSource:
    """The benchmark's files in ``folder`` (or the folder of a file given), checked and read (nothing
    remembered): the folder may be the checkout's root, the judge file's own folder or any folder of the
    checkout between them (``_checkout_roots``); the source's ``folder`` is where the files were found.
    Raises OfficialSourceError (the reason for the folder given when no candidate holds them)."""
    benchmark = _benchmark(benchmark)
    folder = Path(folder).expanduser()
    if folder.is_file():                          # the file itself: its folder holds it under its own name
        folder = folder.parent
    if not folder.is_dir():
        raise OfficialSourceError(f"{folder}: not a folder; point fieldstudio at {_WHAT_TO_POINT_AT[benchmark]}")
    first: OfficialSourceError | None = None
    for root in _checkout_roots(folder.resolve(), benchmark):
        try:
            files = {role: _check(root, benchmark, role) for role in known.ROLES[benchmark]}
        except OfficialSourceError as exc:
            first = first or exc
            continue
        return _read(benchmark, root, files)
    raise first


def _checkout_roots(folder: Path, benchmark: str) -> list[Path]:
    """Where the benchmark's files may be looked for when the user points at ``folder``: the folder itself, then
    the checkout's root when ``folder`` is a folder of it at or above a known file (``tools/evaluation`` of
    FieldWorkArena, ``openeqa/evaluation`` of open-eqa: its last parts are the first parts of the file's path
    and the rest of that path is a file below it)."""
    roots = [folder]
    for k in known.KNOWN:
        if k.benchmark != benchmark:
            continue
        parts = Path(k.path).parts
        for i in range(1, len(parts)):
            if folder.parts[-i:] == parts[:i] and (folder / Path(*parts[i:])).is_file():
                root = folder.parents[i - 1]
                if root not in roots:
                    roots.append(root)
    return roots


# ---------------------------------------------------------------- remembering the folder
def _sources_path() -> Path:
    return OFFICIAL_SOURCES.path()


def located_folders() -> dict[str, str]:
    """Benchmark -> the folder remembered for it (``official_sources.json``; empty when there is none).

    Raises OfficialSourceError when the file cannot be read."""
    path = _sources_path()
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OfficialSourceError(f"{path}: cannot be read ({exc}); delete it and locate the benchmarks "
                                  "again") from None
    return {k: str(v) for k, v in data.items()} if isinstance(data, Mapping) else {}


def located_folder(benchmark: str) -> Path | None:
    """The folder remembered for ``benchmark`` (None when never located)."""
    folder = located_folders().get(_benchmark(benchmark))
    return Path(folder) if folder else None


def locate(benchmark: str, folder: Path | str) -> OfficialSource:
    """Check the benchmark's files in ``folder`` and remember the folder for later scorings.

    Returns the checked source; raises OfficialSourceError (and remembers nothing) when a file is missing
    or of an unknown version."""
    source = check_folder(benchmark, folder)
    data = located_folders()
    data[source.benchmark] = str(source.folder)
    path = _sources_path()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    tmp.replace(path)
    return source


def forget(benchmark: str) -> bool:
    """Forget the folder remembered for ``benchmark``; True when one was remembered."""
    benchmark = _benchmark(benchmark)
    data = located_folders()
    if benchmark not in data:
        return False
    del data[benchmark]
    _sources_path().write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    return True


def load_source(benchmark: str, folder: Path | str | None = None) -> OfficialSource:
    """The benchmark's own judge files from ``folder`` (this call only) or the remembered folder.

    Raises OfficialSourceError saying how to locate them when neither is given, or naming the file that is
    missing or of an unknown version."""
    benchmark = _benchmark(benchmark)
    if folder is None:
        folder = located_folder(benchmark)
        if folder is None:
            raise OfficialSourceError(
                f"the {BENCHMARK_TITLES[benchmark]} judge files are not located: run `fieldstudio benchmarks "
                f"locate {benchmark} DIR` with DIR {_WHAT_TO_POINT_AT[benchmark]}, or pass --official-source DIR")
    return check_folder(benchmark, folder)


def ask_for_folder(benchmark: str, choose: Callable[[str], Path | str | None]) -> OfficialSource | None:
    """The benchmark's located source, asking the user for the folder when none is located or it fails.

    Qt-free: the GUI passes ``choose(message) -> folder or None``, e.g. a folder dialog whose title is the
    message; ``message`` says what to point at (and why the last folder failed). The chosen folder is
    checked and remembered (``locate``); a refused folder asks again with the reason. Returns the source,
    or None when the user cancels (``choose`` returned None).
    """
    benchmark = _benchmark(benchmark)
    problem = ""
    if located_folder(benchmark) is not None:
        try:
            return load_source(benchmark)
        except OfficialSourceError as exc:
            problem = f"{exc}\n\n"
    while True:
        folder = choose(f"{problem}Choose the folder of {_WHAT_TO_POINT_AT[benchmark]}: fieldstudio reads "
                        f"{BENCHMARK_TITLES[benchmark]}'s own judge prompts from it (they are not shipped).")
        if folder is None or str(folder) == "":
            return None
        try:
            return locate(benchmark, folder)
        except OfficialSourceError as exc:
            problem = f"{exc}\n\n"
