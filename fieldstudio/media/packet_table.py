"""The packet table: a first frame table from the container's packets alone (demuxing, no decoding).

Fast enough to open hours of footage at once; the decoded table (``decoded_table.build_frame_table``)
verifies it later and replaces it where they differ (``video_index``). An MP4/MOV is read from its sample
tables (``mp4_boxes``) without a pass over the media data.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from fieldstudio.core.errors import MediaError
from fieldstudio.media.frame_table import FrameTable
from fieldstudio.media.video import open_video


def build_packet_table(
    path: Path,
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> FrameTable:
    """A first frame table from the container's packets alone (demuxing, no decoding): fast enough to
    open hours of footage at once.

    Each video packet with data and a PTS stands for one frame: its PTS and keyframe flag, sorted into
    presentation order. Packets the container marks as discarded (before an edit list's start) are left
    out, as the decoder leaves out their frames. An MP4/MOV is read from its sample tables, confirmed on its
    first packets, without a pass over the data. This is what ffmpeg decodes for an intact file; where it
    is not (frames that do not decode, packets without PTS, duplicated timestamps that the decoder
    resolves otherwise) the decoded table of ``build_frame_table`` differs, and it replaces this one
    once built (``video_index``). Raises MediaError if no packet has a PTS,
    InterruptedError if ``cancelled()`` turns true.
    """
    path = Path(path)
    container = open_video(path)
    try:
        stream = container.streams.video[0]
        fast = _packet_table_from_sample_tables(path, container, stream)
        if fast is not None:
            progress(len(fast), len(fast))
            return fast
        estimate = stream.frames or 0
        pts: list[int] = []
        keys: list[bool] = []
        try:
            for packet in container.demux(stream):
                if not packet.size or packet.pts is None or packet.is_discard:
                    continue
                pts.append(packet.pts)
                keys.append(packet.is_keyframe)
                if len(pts) % 4096 == 0:
                    progress(len(pts), max(estimate, len(pts)))
                    if cancelled():
                        raise InterruptedError("packet indexing cancelled")
        except av.error.FFmpegError:  # a cut file: the packets read so far are the index
            pass
        time_base = Fraction(stream.time_base) if stream.time_base else Fraction(1, 1000)
    finally:
        container.close()
    if not pts:
        raise MediaError(path, "has no video packet with a timestamp (damaged or truncated video)")
    p = np.asarray(pts, dtype=np.int64)
    order = np.argsort(p, kind="stable")
    table = FrameTable(pts=p[order], keyframe=np.asarray(keys, dtype=bool)[order], time_base=time_base)
    progress(len(table), len(table))
    return table


_CHECKED_PACKETS = 240  # packets demuxed to confirm the timestamps read from an MP4's sample tables


def _packet_table_from_sample_tables(path: Path, container: av.container.InputContainer,
                                     stream: av.video.stream.VideoStream) -> FrameTable | None:
    """The packet table of an MP4/MOV from its sample tables alone, without reading the media data: the
    demuxer's index (DTS, keyframe and discard flags) plus the ``ctts`` composition offsets
    (``mp4_boxes``), shifted as the demuxer shifts them. The first packets are demuxed to confirm every
    field; None (demux everything instead) for other containers or when anything disagrees."""
    if "mp4" not in container.format.name.split(","):
        return None
    from fieldstudio.media import mp4_boxes

    try:
        entries = stream.index_entries
        n = len(entries)
        if n == 0:
            return None
        fields = np.fromiter((v for e in entries for v in (e.timestamp, e.flags, e.size, e.pos)), dtype=np.int64,
                             count=4 * n).reshape(n, 4)
    except (AttributeError, av.error.FFmpegError):  # an older PyAV without index entries
        return None
    offsets = mp4_boxes.composition_offsets(path, n)
    if offsets is None:
        return None
    dts, key, discard = fields[:, 0], (fields[:, 1] & 1) != 0, (fields[:, 1] & 2) != 0
    shift = None
    k = 0
    try:
        for packet in container.demux(stream):
            if packet.size == 0:
                continue
            if k >= n or packet.pts is None or packet.dts != dts[k] or packet.is_keyframe != key[k] \
                    or packet.is_discard != discard[k]:
                return None
            if shift is None:
                shift = packet.pts - int(dts[k]) - int(offsets[k])
            if packet.pts != int(dts[k]) + int(offsets[k]) + shift:
                return None
            k += 1
            if k >= min(n, _CHECKED_PACKETS):
                break
    except av.error.FFmpegError:
        return None
    if shift is None:
        return None
    # a sample whose data is not in the file (a cut file whose moov came first) has no packet
    keep = ~discard & (fields[:, 2] > 0) & (fields[:, 3] + fields[:, 2] <= path.stat().st_size)
    pts = (dts + offsets + shift)[keep]
    order = np.argsort(pts, kind="stable")
    time_base = Fraction(stream.time_base) if stream.time_base else Fraction(1, 1000)
    return FrameTable(pts=pts[order], keyframe=key[keep][order], time_base=time_base)
