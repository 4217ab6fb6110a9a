"""`fieldstudio sent P`: what left this machine, per endpoint and day (`inference.sent_log`); `fieldstudio redact`:
blurred copies of images and videos for sharing (`privacy.redact_media`). Register with ``register(app)``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from fieldstudio.cli.output import ProjectArg, fail, open_project, out, progress_bar
from fieldstudio.core.errors import FieldstudioError


def register(app: typer.Typer) -> None:
    """Add the ``sent`` and ``redact`` commands to ``app``."""
    app.command("sent")(sent_cmd)
    app.command("redact")(redact_cmd)


def sent_cmd(
    project: ProjectArg,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """What left this machine: per endpoint and day, the requests, frames and documents sent by model runs and
    whether the frames were blurred by the privacy gate, and the judge requests of scoring with the characters of
    text they sent (replies from the response cache sent nothing)."""
    from fieldstudio.inference.sent_log import what_left

    try:
        with open_project(project) as p:
            rows = what_left(p)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    if as_json:
        out.print_json(json.dumps({"sent": [r.as_dict() for r in rows]}))
        return
    if not rows:
        out.print("Nothing has left this machine: no model request was sent from this project.")
        return
    # one short block per day and endpoint: twelve columns were unreadable at 80 characters
    for r in rows:
        out.print(f"{r.day} (UTC)  {r.endpoint}", markup=False)
        out.print(f"  profiles: {', '.join(sorted(r.profiles)) or '-'}", markup=False)
        out.print(f"  model requests: {r.requests}; documents: {r.documents}", markup=False)
        out.print(f"  frames: {r.frames} ({r.frames_blurred} blurred, {r.frames_unredacted} NOT blurred; "
                  f"{r.faces_blurred} face(s) blurred; redacted: {r.redacted})", markup=False)
        out.print(f"  judge requests: {r.judge_requests} ({r.judge_characters} characters)", markup=False)
    out.print("Documents are sent as their text and are never redacted.")
    out.print("Judge requests (scoring) send answer and reference texts, never a frame.")


def redact_cmd(
    paths: Annotated[list[Path], typer.Argument(help="images and videos to copy with their faces blurred")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the copies (created if missing; never a folder "
                                                         "of the originals)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Write blurred copies of images and videos for sharing: every face found by the face detector is blurred;
    a video keeps every frame at its PTS, its rotation and its audio (copied, not re-encoded). The files given are
    only read; --out may not be a folder of theirs, and a copy never overwrites a file (a taken name gets _2, _3).
    Exit 0 when every copy was written, 1 when some file could not be, 2 when nothing could run."""
    from fieldstudio.privacy.redact_media import redact_files

    try:
        with progress_bar("Redacting") as bar:
            report = redact_files(paths, out_dir, progress=bar)
    except FieldstudioError as exc:
        raise fail(str(exc)) from None
    if as_json:
        out.print_json(json.dumps({
            "detector": report.detector,
            "created_folder": str(report.created_folder) if report.created_folder else None,
            "renamed": [{"taken": taken, "written": name} for taken, name in report.renamed],
            "written": [{"source": str(w.source), "copy": str(w.copy), "frames": w.frames, "faces": w.faces,
                         "audio_streams": w.audio_streams, "encoder": w.encoder, "rotation": w.rotation,
                         "damage": w.damage}
                        for w in report.written],
            "failed": [{"source": str(s), "reason": why} for s, why in report.failed]}))
    else:
        if report.created_folder:
            out.print(f"created folder {report.created_folder}", markup=False)
        for w in report.written:
            what = "image" if not w.encoder else \
                f"{w.frames} frames encoded with {w.encoder}, {w.audio_streams} audio stream(s) copied" + \
                (f", rotation {w.rotation}° kept" if w.rotation else "")
            out.print(f"{w.copy}: {w.faces} face(s) blurred ({what})"
                      + (f"; the source is DAMAGED, {w.damage}" if w.damage else ""), markup=False)
        for taken, name in report.renamed:
            out.print(f"{taken} already existed (not overwritten): written as {name}", markup=False)
        for source, why in report.failed:
            out.print(f"NOT copied: {why}", markup=False)
        out.print(f"face detector: {report.detector}", markup=False)
    raise typer.Exit(0 if not report.failed else 1)
