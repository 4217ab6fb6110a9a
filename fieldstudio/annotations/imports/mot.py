"""MOT Challenge ground truth in: ``gt.txt`` lines ``frame,id,left,top,width,height,conf,...`` (frame 1-based).

The input is a ``gt.txt``, a sequence folder (``<seq>/gt/gt.txt``) or a folder of sequence folders. A
sequence is matched to a video by the sequence folder's name (fieldstudio's export names it after the
video's stem, ``<stem>_<id8>`` when two videos share a stem) or ``seqinfo.ini``'s ``name``. Lines with
``conf`` 0 are the benchmark's "ignore" entries and are skipped. ``tracks.csv`` beside ``gt/`` (written by
fieldstudio's export) gives each track's label. MOT lists a box on every frame of a track, so the group is
``dense``: keyframes are recovered on import.
"""

from __future__ import annotations

import configparser
import csv
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from fieldstudio.annotations.imports.parsed import ImportFormatError, Parsed, ParsedBox, ParsedMedia, size_problem

_ID_SUFFIX = re.compile(r"^(?P<stem>.+)_[0-9a-f]{8}$")


def _gt_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if (path / "gt" / "gt.txt").is_file():
        return [path / "gt" / "gt.txt"]
    found = sorted(path.glob("*/gt/gt.txt"))
    if not found:
        raise ImportFormatError(f"{path}: no gt.txt (looked for gt/gt.txt and */gt/gt.txt)")
    return found


def parse_mot(path: Path) -> Parsed:
    """Read MOT sequences. Raises ImportFormatError when no gt.txt is found."""
    path = Path(path)
    out = Parsed()
    for gt in _gt_files(path):
        seq = gt.parent.parent if gt.parent.name == "gt" else gt.parent
        names = [seq.name]
        m = _ID_SUFFIX.match(seq.name)
        if m:
            names.append(m.group("stem"))
        ini = seq / "seqinfo.ini"
        if ini.is_file():
            cfg = configparser.ConfigParser()
            try:
                cfg.read(ini, encoding="utf-8")
                if cfg.has_option("Sequence", "name"):
                    names.append(cfg.get("Sequence", "name"))
            except configparser.Error as exc:
                out.problems.append((str(ini), f"unreadable ({exc}); the folder name is used"))
        labels: dict[str, str] = {}
        if (seq / "tracks.csv").is_file():
            with open(seq / "tracks.csv", newline="", encoding="utf-8") as f:
                labels = {row["track_id"]: row["label"] for row in csv.DictReader(f) if row.get("track_id")}
        group = ParsedMedia(f"{seq.name}/{gt.relative_to(seq)}", tuple(dict.fromkeys(names)), "video", dense=True)
        out.files.append(str(gt))
        _stream(out, seq, gt, labels, group)
    return out


def _stream(out: Parsed, seq: Path, gt: Path, labels: dict[str, str], group: ParsedMedia) -> None:
    """Add to ``out.streams`` the reading of ``gt`` line by line into (``group``, box) pairs: its boxes are placed as
    they are read, never held as parsed boxes (10^6 of them held first peaked at 1.2 GB). ``group`` joins
    ``out.groups`` (without boxes) at its first box, so a gt.txt without boxes names no media, as before."""
    size = max(gt.stat().st_size, 1)
    position = [0]   # characters read (bytes, for the ASCII of MOT files)

    def counted(lines: Iterable[str]) -> Iterator[str]:
        for line in lines:
            position[0] += len(line)
            yield line

    def boxes() -> Iterator[tuple[ParsedMedia, ParsedBox]]:
        first = True
        with gt.open(encoding="utf-8") as lines:
            for box in _read_gt(seq, counted(lines), labels, out.problems):
                if first:
                    out.groups.append(group)   # kept alive by ``out``: the import matches groups by id
                    first = False
                yield group, box
        position[0] = size

    out.streams.append((boxes, lambda: (min(position[0], size), size)))


def _read_gt(seq: Path, lines: Iterable[str], labels: dict[str, str],
             problems: list[tuple[str, str]]) -> Iterator[ParsedBox]:
    """The boxes of a gt.txt's lines, as they are read; a bad row is skipped, its reason added to ``problems``."""
    for n, line in enumerate(lines, start=1):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        where = f"{seq.name} gt.txt line {n}"
        parts = [p.strip() for p in line.split(",")]
        try:
            frame, track = int(float(parts[0])), str(int(float(parts[1])))
            x, y, w, h = (float(v) for v in parts[2:6])
            conf = float(parts[6]) if len(parts) > 6 else 1.0
        except (ValueError, IndexError):
            problems.append((where, f"{line!r} is not frame,id,left,top,width,height,...; skipped"))
            continue
        if conf == 0:
            continue
        problem = size_problem(w, h)
        if problem:
            problems.append((where, problem))
            continue
        if frame < 1:
            problems.append((where, f"frame {frame}: MOT frames start at 1; skipped"))
            continue
        label = labels.get(track) or None
        yield ParsedBox((x, y, x + w, y + h), label, frame - 1, track=track, where=where)
