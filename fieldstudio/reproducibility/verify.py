"""Re-check a run's reproducibility record against a project and the files on this machine, naming every difference.

What is checked (``verify_record``), each difference one line:

- versions: fieldstudio's, and every decoder, resizer and encoder version of the record's last session
  (``media.decoders.decoder_versions``) against this machine's;
- media: the SHA-256 of each media file, computed again from the file here (found by the media's id, else by its
  SHA-256 in the project), against the record's;
- frames: each frame sent, decoded, resized and JPEG-encoded again as the run made it (``FrameEncoder.encode`` with
  the recorded longest side and quality), its SHA-256 against the record's; when they differ the line says which
  decoder versions differ, or that none does;
- tasks: each task's hash (``record.task_sha``) and the task set's hash, from the project's tasks now (matched by id,
  else by source and external id);
- answers: when the run is in the project, each answer's text hash; a run that is not in it is named;
- judge files: the SHA-256 of every judge prompt file a scoring used (fieldstudio's templates, or the benchmark's own
  files in the folder located on this machine), and the scorer versions this fieldstudio has.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio import __version__
from fieldstudio.core.errors import FieldstudioError, MediaError
from fieldstudio.core.paths import resources_dir
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.media.decoders import decoder_versions
from fieldstudio.reproducibility.record import RunRecord, read_record, task_lines, task_set_sha
from fieldstudio.scoring.staleness import answer_sha
from fieldstudio.store.models import Answer, Media, Run, Task
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project


@dataclass
class Verification:
    """What ``verify_record`` found: ``differences`` (one sentence each; none means identical) and ``checked``
    (what was compared, by kind: media files, frames, tasks, answers, judge files, versions)."""

    differences: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)

    @property
    def identical(self) -> bool:
        return not self.differences

    def count(self, kind: str, n: int = 1) -> None:
        self.checked[kind] = self.checked.get(kind, 0) + n


def _flat(versions: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in (versions or {}).items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key} "))
        else:
            out[f"{prefix}{key}"] = value
    return out


def version_differences(recorded: dict[str, Any], here: dict[str, Any]) -> list[str]:
    """'PyAV 17.0.0 in the record, 18.1.0 here' for every library whose version differs (flat names such as
    ``libav libavcodec``)."""
    a, b = _flat(recorded), _flat(here)
    return [f"{name} {a.get(name)} in the record, {b.get(name)} here" for name in sorted(set(a) | set(b))
            if name not in ("python", "platform") and a.get(name) != b.get(name)]


def _check_versions(record: RunRecord, result: Verification) -> list[str]:
    if record.header.get("fieldstudio_version") != __version__:
        result.differences.append(f"fieldstudio {record.header.get('fieldstudio_version')} wrote the record; this "
                                  f"is fieldstudio {__version__}")
    sessions = record.of("session")
    if not sessions:
        return []
    differ = version_differences(sessions[-1].get("versions") or {}, decoder_versions())
    result.count("versions", len(_flat(sessions[-1].get("versions") or {})))
    result.differences.extend(f"decoder version differs: {d}" for d in differ)
    return differ


def _project_media(project: Project, record: RunRecord) -> dict[str, Media]:
    """Record media id -> this project's media row (by id, else by the recorded SHA-256)."""
    wanted = record.of("media")
    with project.read() as s:
        by_id = {m.id: m for chunk in in_chunks([m["id"] for m in wanted])
                 for m in s.scalars(select(Media).where(Media.id.in_(chunk)))}
        shas = {m["sha256"] for m in wanted if m["id"] not in by_id and m.get("sha256")}
        by_sha = {m.sha256: m for chunk in in_chunks(shas) for m in s.scalars(select(Media).where(Media.sha256.in_(chunk)))}
    out = {}
    for m in wanted:
        row = by_id.get(m["id"]) or by_sha.get(m.get("sha256"))
        if row is not None:
            out[m["id"]] = row
    return out


def _check_media(project: Project, record: RunRecord, result: Verification) -> dict[str, Media]:
    """Hash each media file here; returns the media whose file matches the record (their frames can be re-made)."""
    from fieldstudio.media.library import require_file, sha256_file

    rows = _project_media(project, record)
    usable = {}
    for m in record.of("media"):
        name = m.get("file_name")
        row = rows.get(m["id"])
        if row is None:
            result.differences.append(f"media {name}: not in this project (SHA-256 {str(m.get('sha256'))[:12]}…)")
            continue
        try:
            sha, _ = sha256_file(require_file(project, row))
        except (MediaError, OSError) as exc:
            result.differences.append(f"media {name}: its file cannot be read here ({exc})")
            continue
        result.count("media files")
        if sha != m.get("sha256"):
            result.differences.append(f"media {name}: the file changed: SHA-256 {sha[:12]}… here, "
                                      f"{str(m.get('sha256'))[:12]}… in the record")
        else:
            usable[m["id"]] = row
    return usable


def _check_frames(project: Project, record: RunRecord, media: dict[str, Media], differ: list[str],
                  result: Verification, progress: Progress, cancelled: Cancelled) -> None:
    """Make every distinct frame sent again and compare the SHA-256 of its bytes."""
    from fieldstudio.inference.inputs import FrameEncoder

    distinct: dict[tuple, dict[str, Any]] = {}
    for f in record.of("frame"):
        distinct.setdefault((f.get("media_id"), f.get("frame_index"), f.get("max_side"), f.get("quality"),
                             f.get("width"), f.get("height"), bool(f.get("redaction"))), f)
    skipped: dict[str, int] = {}
    for key, f in distinct.items():
        if key[0] not in media:
            name = str(f.get("file_name") or key[0])
            skipped[name] = skipped.get(name, 0) + 1
    for name, count in sorted(skipped.items()):
        result.differences.append(f"{count} frame(s) sent of {name} not made again: the file is missing or changed here")
    todo = [(key, f) for key, f in distinct.items() if key[0] in media]
    why = ("; " + "; ".join(differ)) if differ else "; the decoder versions are the same as in the record"
    encoder = FrameEncoder(project, cache_items=1)
    blurring: dict[bool, FrameEncoder] = {}   # frames the privacy gate blurred, made again through the same gate
    try:
        for done, (key, f) in enumerate(todo, 1):
            if cancelled():
                result.differences.append(f"cancelled: {len(todo) - done + 1} frame(s) not checked")
                break
            media_row, index = media[key[0]], int(f.get("frame_index") or 0)
            # the recorded longest side; a record without it gives the sent size's longest side
            max_side = f.get("max_side") or max(int(f.get("width") or 0), int(f.get("height") or 0)) or None
            label = f"frame {index} of {media_row.file_name}"
            bodies = bool((f.get("redaction") or {}).get("body_detector"))   # "also blur whole people"
            if f.get("redaction") and bodies not in blurring:
                from fieldstudio.privacy.gate import FaceRedactor

                blurring[bodies] = FrameEncoder(project, cache_items=1, redactor=FaceRedactor(bodies=bodies))
            try:
                made = (blurring[bodies] if f.get("redaction") else encoder).encode(
                    media_row, index, max_side=max_side, quality=int(f.get("quality") or 85))
            except (MediaError, IndexError, FieldstudioError) as exc:
                result.differences.append(f"{label}: cannot be decoded here ({exc})")
                continue
            result.count("frames")
            if made.sha256 != f.get("sha256"):
                size = "" if (made.width, made.height) == (f.get("width"), f.get("height")) else (
                    f", {made.width}x{made.height} here vs {f.get('width')}x{f.get('height')}")
                result.differences.append(f"{label} (quality {f.get('quality')}): made again it has SHA-256 "
                                          f"{made.sha256[:12]}…, the record {str(f.get('sha256'))[:12]}…{size}{why}")
            progress(done, len(todo))
    finally:
        encoder.close()
        for made_again in blurring.values():
            made_again.close()


def _check_tasks(project: Project, record: RunRecord, result: Verification) -> None:
    recorded = record.of("task")
    with project.read() as s:
        ids = {i for chunk in in_chunks([t["id"] for t in recorded])
               for i in s.scalars(select(Task.id).where(Task.id.in_(chunk)))}
        by_ext = {(t.source, t.external_id): t.id
                  for chunk in in_chunks({t["external_id"] for t in recorded if t.get("external_id")})
                  for t in s.scalars(select(Task).where(Task.external_id.in_(chunk)))}
    matched = {t["id"]: t["id"] if t["id"] in ids else by_ext.get((t.get("source"), t.get("external_id")))
               for t in recorded}
    now = {t["id"]: t for t in task_lines(project, [i for i in matched.values() if i])}
    hashes = []
    for t in recorded:
        label = t.get("external_id") or t["id"][:8]
        here = now.get(matched[t["id"]] or "")
        if here is None:
            result.differences.append(f"task {label}: not in this project")
            continue
        result.count("tasks")
        hashes.append(here["sha256"])
        if here["sha256"] != t.get("sha256"):
            what = [k for k in ("query", "answer_type", "ground_truth", "ground_truth_extra", "eval_func", "tolerances",
                                "inputs") if _comparable(here, t, k)]
            result.differences.append(f"task {label}: changed since the record ({', '.join(what) or 'its hash'}: "
                                      f"SHA-256 {here['sha256'][:12]}… here, {str(t.get('sha256'))[:12]}… recorded)")
    task_set = record.of("task_set")
    if task_set and len(hashes) == len(recorded) and task_set_sha(hashes) != task_set[0].get("sha256"):
        result.differences.append(f"the task set's SHA-256 differs: {task_set_sha(hashes)[:12]}… here, "
                                  f"{str(task_set[0].get('sha256'))[:12]}… in the record")


def _comparable(here: dict[str, Any], recorded: dict[str, Any], key: str) -> bool:
    if key == "inputs":
        pick = lambda t: [(i.get("name"), i.get("media_sha256")) for i in t.get("inputs") or []]  # noqa: E731
        return pick(here) != pick(recorded)
    return here.get(key) != recorded.get(key)


def _check_answers(project: Project, record: RunRecord, result: Verification) -> None:
    run_id = record.run.get("id")
    with project.read() as s:
        if s.get(Run, run_id) is None:
            result.differences.append(f"run {record.run.get('name')!r} ({str(run_id)[:8]}) is not in this project "
                                      "(runs import brings it)")
            return
        stored = {a.id: answer_sha(a.raw_text, a.parsed, a.error)
                  for a in s.scalars(select(Answer).where(Answer.run_id == run_id))}
    for a in record.of("answer"):
        result.count("answers")
        if a["id"] not in stored:
            result.differences.append(f"answer {a['id'][:8]}: not in this project's run")
        elif stored[a["id"]] != a.get("answer_sha256"):
            result.differences.append(f"answer {a['id'][:8]} (task {a.get('task_id', '')[:8]}): its text changed since "
                                      "the record")


def _judge_file_hashes(files: dict[str, Any]) -> tuple[dict[str, str] | None, str | None]:
    """file name -> SHA-256 of the judge files here, or (None, why they cannot be found)."""
    benchmark = files.get("benchmark")
    if benchmark is None:
        folder = resources_dir() / "prompts"
        out = {}
        for f in files.get("files") or []:
            path = folder / str(f.get("file"))
            if path.is_file():
                out[str(f.get("file"))] = hashlib.sha256(path.read_bytes()).hexdigest()
        return out, None
    from fieldstudio.scoring.official.source import check_folder, located_folder

    try:
        folder = located_folder(benchmark)
        if folder is None:
            return None, f"the {benchmark} judge files are not located on this machine (fieldstudio benchmarks locate)"
        source = check_folder(benchmark, folder)
    except FieldstudioError as exc:
        return None, str(exc)
    return {f.path.name: f.sha256 for f in source.files.values()}, None


def _check_scorings(record: RunRecord, result: Verification) -> None:
    from fieldstudio.scoring.scorers import REGISTRY

    seen: set[tuple[str, str]] = set()
    for scoring in record.of("scoring"):
        name, version = scoring.get("scorer"), scoring.get("scorer_version")
        info = REGISTRY.get(name)
        if (name, version) not in seen:
            seen.add((name, version))
            if info is None:
                result.differences.append(f"scorer {name}: not in this fieldstudio")
            elif info.version != version:
                result.differences.append(f"scorer {name}: version {info.version} here, {version} in the record")
        files = scoring.get("judge_files")
        if not files:
            continue
        here, why = _judge_file_hashes(files)
        for f in files.get("files") or []:
            file_name = str(f.get("file"))
            if (file_name, f.get("sha256")) in seen:
                continue
            seen.add((file_name, f.get("sha256")))
            result.count("judge files")
            if here is None:
                result.differences.append(f"judge file {file_name} (SHA-256 {str(f.get('sha256'))[:12]}…) not "
                                          f"checked: {why}")
            elif file_name not in here:
                result.differences.append(f"judge file {file_name}: missing here")
            elif here[file_name] != f.get("sha256"):
                result.differences.append(f"judge file {file_name}: SHA-256 {here[file_name][:12]}… here, "
                                          f"{str(f.get('sha256'))[:12]}… in the record")


def verify_record(record: RunRecord, project: Project | None, *, frames: bool = True,
                  progress: Progress = lambda done, total: None,
                  cancelled: Cancelled = lambda: False) -> Verification:
    """Re-check ``record`` against ``project`` and this machine (see the module docstring).

    Args:
        project: the project to check the media, tasks and answers against; None checks only the versions and
            the judge files (and says so as a difference: nothing else could be checked).
        frames: also make every frame sent again (the slow part: one decode per distinct frame).
        progress: ``progress(done, total)`` in frames made again.
    Returns:
        A Verification; ``identical`` when no difference was found.
    """
    result = Verification()
    differ = _check_versions(record, result)
    _check_scorings(record, result)
    if project is None:
        result.differences.append("no project given: media, frames, tasks and answers not checked")
        return result
    usable = _check_media(project, record, result)
    _check_tasks(project, record, result)
    _check_answers(project, record, result)
    if frames:
        _check_frames(project, record, usable, differ, result, progress, cancelled)
    return result



def verify_file(path: Path, project: Project | None, *, frames: bool = True,
                progress: Progress = lambda done, total: None,
                cancelled: Cancelled = lambda: False) -> tuple[RunRecord, Verification]:
    """Read the record at ``path`` and verify it (``verify_record``); returns both. Raises RecordError when the file
    is not a complete run record."""
    record = read_record(Path(path))
    return record, verify_record(record, project, frames=frames, progress=progress, cancelled=cancelled)


__all__ = ["Verification", "version_differences", "verify_record", "verify_file"]
