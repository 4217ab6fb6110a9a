"""A video file through PyAV: opening it, reading its stream facts, and the decode loop every reader shares.

``probe_video`` reads what the library stores of a new video (upright size, display rotation, codec, time
base, audio, duration) and decodes its first frame to prove it readable. ``open_video`` opens a file with the
errors a user can act on (empty, missing, not a video, no video stream); ``decoded_frames`` decodes a stream
packet by packet as the ffmpeg command line does, so that the frame tables (``packet_table``,
``decoded_table``) and exact frame access (``frame_reader``) count the frames ffmpeg counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import av

from fieldstudio.core.errors import MediaError

VIDEO_SUFFIXES = {".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm", ".mpg", ".mpeg", ".ts", ".gif"}


@dataclass(frozen=True)
class VideoProbe:
    """Container and stream facts of a video, read without decoding the whole stream.

    ``width`` x ``height`` are upright pixels (rotation applied); ``rotation`` is the display
    rotation in degrees counter-clockwise (0, 90, 180, 270); ``frame_count_estimate`` comes from the
    container and is only a hint for progress bars.
    """

    width: int
    height: int
    codec: str
    format: str
    duration_s: float | None
    time_base: Fraction
    rotation: int
    has_audio: bool
    avg_fps: float | None
    frame_count_estimate: int | None


def open_video(path: Path) -> av.container.InputContainer:
    """Open a video file with PyAV. Raises MediaError naming the file when it is empty, missing, not a
    readable video or has no video stream; the caller closes the container."""
    path = Path(path)
    try:
        if path.stat().st_size == 0:
            raise MediaError(path, "is empty (0 bytes)")
        container = av.open(str(path), metadata_errors="ignore")
    except MediaError:
        raise
    except FileNotFoundError as exc:
        raise MediaError(path, "no longer exists") from exc
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise MediaError(path, f"is not a readable video ({error_reason(exc)})") from exc
    if not container.streams.video:
        container.close()
        raise MediaError(path, "has no video stream")
    return container


def error_reason(exc: BaseException) -> str:
    """The short reason of a PyAV or OS error, without the file name FFmpeg appends."""
    text = getattr(exc, "strerror", None) or str(exc)
    return text.split(": '")[0].strip()


def frame_pts(frame: av.VideoFrame) -> int | None:
    """A decoded frame's presentation timestamp in its stream's time base: the PTS, else the DTS, else None."""
    value = frame.pts if frame.pts is not None else frame.dts
    return int(value) if value is not None else None


@dataclass
class DecodeLog:
    """What ``decoded_frames`` met: video packets with data, and the text of each decoding error."""

    packets: int = 0
    errors: list[str] = field(default_factory=list)


def decoded_frames(container: av.container.InputContainer, stream: av.video.stream.VideoStream,
                   log: DecodeLog | None = None,
                   until: Callable[[av.Packet], bool] | None = None) -> Iterator[av.VideoFrame]:
    """Decode ``stream`` packet by packet as the ffmpeg CLI does: a packet that fails to decode (the cut
    last packet of a truncated file) is skipped, and the decoder is always flushed, so the frames it still
    holds (B-frame reordering) come out. ``until(packet)`` true stops demuxing before that packet."""
    log = log if log is not None else DecodeLog()
    flushed = False
    try:
        for packet in container.demux(stream):
            if until is not None and until(packet):
                break
            flushed = packet.size == 0  # the demuxer's last, empty packet flushes the decoder
            log.packets += not flushed
            try:
                yield from stream.decode(packet)
            except av.error.FFmpegError as exc:
                log.errors.append(error_reason(exc))
    except av.error.FFmpegError as exc:  # the demuxer itself gave up
        log.errors.append(error_reason(exc))
    if not flushed:
        try:
            yield from stream.decode(None)
        except av.error.FFmpegError as exc:
            log.errors.append(error_reason(exc))


def _rotation_of(frame: av.VideoFrame) -> int:
    return int(round((frame.rotation or 0) / 90.0)) * 90 % 360


def probe_video(path: Path) -> VideoProbe:
    """Read a video's stream facts and decode its first frame to prove it is readable.

    Raises MediaError naming the file when it is empty, not a video, has no video stream, or its
    first frame cannot be decoded.
    """
    path = Path(path)
    container = open_video(path)
    try:
        stream = container.streams.video[0]
        try:
            first = next(container.decode(stream))
        except (StopIteration, av.error.FFmpegError) as exc:
            raise MediaError(path, "no frame can be decoded (damaged or truncated video)") from exc
        rotation = _rotation_of(first)
        w, h = first.width, first.height
        if rotation in (90, 270):
            w, h = h, w
        duration = None
        if stream.duration is not None and stream.time_base:
            duration = float(stream.duration * stream.time_base)
        elif container.duration:
            duration = container.duration / av.time_base
        rate = stream.average_rate or stream.guessed_rate
        return VideoProbe(
            width=w,
            height=h,
            codec=stream.codec_context.name,
            format=container.format.name,
            duration_s=duration,
            time_base=Fraction(stream.time_base) if stream.time_base else Fraction(1, 1000),
            rotation=rotation,
            has_audio=bool(container.streams.audio),
            avg_fps=float(rate) if rate else None,
            frame_count_estimate=stream.frames or None,
        )
    finally:
        container.close()
