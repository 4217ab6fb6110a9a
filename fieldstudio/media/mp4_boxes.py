"""The composition offsets of an MP4/MOV video track, read from its ``ctts`` box without reading the media.

FFmpeg's MOV demuxer reads a file's sample tables at open and exposes each sample's decoding timestamp
and keyframe flag (PyAV ``stream.index_entries``), but not its composition offset, which makes the PTS:
PTS = DTS + offset (ISO/IEC 14496-12, 8.6.1.3). This module reads those offsets from the ``moov`` box
(a few megabytes even for hours of footage), so the packet index of an MP4 needs no pass over the data
(``packet_table.build_packet_table``). Fragmented MP4 (``moof`` boxes) keeps its offsets in the fragments: not
handled here, the caller demuxes instead.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts"}


def _boxes(data: bytes | memoryview, start: int = 0, end: int | None = None):  # noqa: ANN202 - iterator
    """(type, payload start, payload end) of the boxes in ``data[start:end]``."""
    end = len(data) if end is None else end
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, pos)
        head = 8
        if size == 1:
            if pos + 16 > end:
                return
            size = struct.unpack_from(">Q", data, pos + 8)[0]
            head = 16
        elif size == 0:
            size = end - pos
        if size < head or pos + size > end:
            return
        yield kind, pos + head, pos + size
        pos += size


def _read_moov(path: Path) -> bytes | None:
    """The payload of the top-level ``moov`` box, found by reading box headers only; None without one
    (or when the file is fragmented: its sample tables are in ``moof`` boxes)."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        size = fh.tell()
        pos = 0
        moov = None
        while pos + 8 <= size:
            fh.seek(pos)
            head = fh.read(16)
            if len(head) < 8:
                break
            box_size, kind = struct.unpack_from(">I4s", head, 0)
            skip = 8
            if box_size == 1 and len(head) >= 16:
                box_size, skip = struct.unpack_from(">Q", head, 8)[0], 16
            elif box_size == 0:
                box_size = size - pos
            if box_size < skip:
                return None
            if kind == b"moof":
                return None
            if kind == b"moov":
                fh.seek(pos + skip)
                moov = fh.read(box_size - skip)
            pos += box_size
        return moov


def _tracks(moov: bytes) -> list[dict]:
    """Per ``trak``: its handler type, sample count (``stsz``) and composition offsets (``ctts``)."""
    out = []
    for kind, a, b in _boxes(moov):
        if kind != b"trak":
            continue
        track = {"handler": None, "samples": None, "ctts": None}

        def walk(start: int, stop: int) -> None:
            for k, s, e in _boxes(moov, start, stop):
                if k in _CONTAINERS:
                    walk(s, e)
                elif k == b"hdlr" and e - s >= 12 and track["handler"] is None:  # the media's, not minf's data handler
                    track["handler"] = moov[s + 8:s + 12]
                elif k == b"stsz" and e - s >= 12:
                    track["samples"] = struct.unpack_from(">I", moov, s + 8)[0]
                elif k == b"stz2" and e - s >= 12:
                    track["samples"] = struct.unpack_from(">I", moov, s + 8)[0]
                elif k == b"ctts" and e - s >= 8:
                    version = moov[s]
                    count = struct.unpack_from(">I", moov, s + 4)[0]
                    if e - s < 8 + 8 * count:
                        track["ctts"] = False  # cut short: unusable
                        continue
                    table = np.frombuffer(moov, dtype=">u4", count=2 * count, offset=s + 8).reshape(count, 2)
                    offsets = table[:, 1].astype(np.int64)
                    if version == 1:
                        offsets = table[:, 1].view(">i4").astype(np.int64)
                    track["ctts"] = np.repeat(offsets, table[:, 0].astype(np.int64))

        walk(a, b)
        out.append(track)
    return out


def composition_offsets(path: Path, sample_count: int) -> np.ndarray | None:
    """Composition offset of each sample (decode order), int64 (``sample_count``,), in the track's time
    scale, of the one video track with ``sample_count`` samples; zeros when that track has no ``ctts``
    box. None when the file is not a plain MP4/MOV, is fragmented, or no single video track matches.
    """
    try:
        moov = _read_moov(Path(path))
    except OSError:
        return None
    if moov is None:
        return None
    matches = [t for t in _tracks(moov) if t["handler"] == b"vide" and t["samples"] == sample_count]
    if len(matches) != 1:
        return None
    ctts = matches[0]["ctts"]
    if ctts is None:
        return np.zeros(sample_count, dtype=np.int64)
    if ctts is False or len(ctts) != sample_count:
        return None
    return ctts
