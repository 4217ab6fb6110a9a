"""`fieldstudio detect-people P MEDIA [--frames A-B] [--every N] [--accept] [--json]`: people proposed by the HOG
detector (``annotations.people_proposals``) on a photo or a frame range; printed, and stored as boxes with
``--accept``. Register with ``register(app)``."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from fieldstudio.cli.output import ProjectArg, fail, open_project, out, progress_bar
from fieldstudio.core.errors import FieldstudioError


def register(app: typer.Typer) -> None:
    """Add the ``detect-people`` command to ``app``."""
    app.command("detect-people")(detect_people_cmd)


def detect_people_cmd(
    project: ProjectArg,
    media: Annotated[str, typer.Argument(help="photo or video file name or id")],
    frames: Annotated[Optional[str], typer.Option(
        "--frames", help="video frames A-B (0-based, inclusive) or one frame A; default: frame 0")] = None,
    every: Annotated[int, typer.Option("--every", min=1, help="read every N-th frame of the range")] = 1,
    accept: Annotated[bool, typer.Option("--accept", help="store every proposal as a box labelled --label")] = False,
    label: Annotated[str, typer.Option("--label", help="label of the boxes stored with --accept")] = "person",
    min_score: Annotated[Optional[float], typer.Option(
        "--min-score", help="drop proposals whose detector score (SVM margin, about 0-3) is below this "
        "(default 0.3)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the proposals as JSON")] = False,
) -> None:
    """Propose boxes around the people in a photo or video frames with OpenCV's HOG people detector, on this
    machine. A person already boxed on that frame (IoU >= 0.5) is not proposed again. Exit 0 when some were
    proposed or every person found is already boxed, 1 when none was found."""
    from fieldstudio.annotations import labels, people_proposals as pp
    from fieldstudio.media import library

    with open_project(project) as p:
        try:
            found_media = library.find_media(p, media)
            if frames:
                first, last = pp.parse_frames(frames)
            else:               # a video's default is its frame 0; a photo takes no range
                first = last = 0 if found_media.kind == "video" else None
            todo = pp.frames_of(p, found_media.id, first, last, every)
            with progress_bar("Detecting people") as update:
                found = pp.propose_people(p, found_media.id, todo, progress=update,
                                          **({} if min_score is None else {"min_score": min_score}))
            stored = 0
            if accept and found.proposals:
                label_id = labels.ensure_label(p, label, kind="box")
                pp.accept_edit(p, found.proposals, label_id).do()
                stored = len(found.proposals)
        except (FieldstudioError, IndexError) as exc:
            raise fail(str(exc)) from None
        name = found_media.file_name
    if as_json:
        out.print_json(json.dumps({"media": name, "detector": found.detector, "frames_read": list(found.frames_read),
                                   "proposals": [x.record() for x in found.proposals], "stored": stored,
                                   "already_boxed": found.already_boxed}))
    else:
        out.print(f"{name}: {len(found.proposals)} people proposed on {len(found.frames_read)} frame(s) "
                  f"({found.detector})", markup=False)
        for x in found.proposals:
            x0, y0, x1, y1 = x.box
            out.print(f"  frame {x.frame_index}: x={x0:.0f} y={y0:.0f} w={x1 - x0:.0f} h={y1 - y0:.0f} "
                      f"score {x.score:.2f}", markup=False)
        if found.already_boxed:
            out.print(f"{found.already_boxed} already boxed, {len(found.proposals)} new", markup=False)
        if accept:
            out.print(f"stored {stored} box(es) labelled {label!r}", markup=False)
    raise typer.Exit(0 if found.proposals or found.already_boxed else 1)
