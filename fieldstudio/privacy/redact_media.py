"""Blurred copies of images and videos for sharing outside fieldstudio (`fieldstudio redact`).

An image is written in its own format with every face blurred (`privacy.blur`). A video is decoded frame by frame,
each frame's faces are blurred, and it is encoded again (H.264 through PyAV, x264 at CRF 18, no B-frames) with
every frame's PTS in the source stream's time base: the copy has the same frames at the same times (frame-exact).
Its audio streams are copied packet by packet (re-muxed, never re-encoded). The source files are only read.

The container: ``.mp4`` for MP4, M4V, MOV and GIF sources, ``.mkv`` for the rest (Matroska takes any time base and
audio codec). A build of FFmpeg without encoders (the slim Linux bundle decodes only) cannot write videos: such a
video fails with the reason and the images still go through.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fieldstudio.core.errors import FieldstudioError, MediaError
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.media import images
from fieldstudio.media.video import error_reason, open_video
from fieldstudio.privacy.blur import blur_faces
from fieldstudio.privacy.faces import FaceDetector, FaceImageTooLarge, shared_detector

VIDEO_SUFFIXES = {".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm", ".gif", ".mpg", ".mpeg", ".ts", ".wmv"}
_MP4_SOURCES = {".mp4", ".m4v", ".mov", ".gif"}
SUFFIX = "_redacted"


class RedactCancelled(FieldstudioError):
    """The user stopped `redact_files`; what was written before stays, the file in progress is removed."""


@dataclass
class Redacted:
    """One copy written: ``source``, ``copy``, ``frames`` (1 for an image), ``faces`` blurred in all of them, and
    ``audio_streams`` copied."""

    source: Path
    copy: Path
    frames: int
    faces: int
    audio_streams: int = 0


@dataclass
class RedactReport:
    """What `redact_files` did: the copies written, the (file, reason) of each file it could not copy, and the
    face detector's version."""

    written: list[Redacted] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)
    detector: str = ""


def copy_path(source: Path, out_dir: Path) -> Path:
    """Where the blurred copy of `source` goes: ``<out_dir>/<stem>_redacted<suffix>`` (videos: .mp4 or .mkv)."""
    suffix = source.suffix.lower()
    if suffix in VIDEO_SUFFIXES:
        suffix = ".mp4" if suffix in _MP4_SOURCES else ".mkv"
    return out_dir / f"{source.stem}{SUFFIX}{suffix}"


def redact_files(paths: Sequence[Path], out_dir: Path, *, detector: FaceDetector | None = None,
                 progress: Progress = lambda done, total: None,
                 cancelled: Cancelled = lambda: False) -> RedactReport:
    """Write a blurred copy of each image and video of `paths` into `out_dir` (made if missing).

    A file that cannot be read or written is listed in ``failed`` with its reason and never stops the others; a copy
    never replaces its source (refused when it would). `progress(done, total)` counts files.
    Raises FaceModelError (no face model: nothing is written) or RedactCancelled.
    """
    detector = detector or shared_detector()
    report = RedactReport(detector=detector.version)
    out_dir.mkdir(parents=True, exist_ok=True)
    for done, source in enumerate(paths):
        progress(done, len(paths))
        if cancelled():
            raise RedactCancelled(f"stopped after {done} of {len(paths)} file(s); the copies written stay")
        source = Path(source)
        target = copy_path(source, out_dir)
        try:
            if target.resolve() == source.resolve():
                raise MediaError(source, "its copy would replace it; choose another output folder")
            suffix = source.suffix.lower()
            if suffix in images.IMAGE_SUFFIXES:
                report.written.append(redact_image(source, target, detector))
            elif suffix in VIDEO_SUFFIXES:
                report.written.append(redact_video(source, target, detector, cancelled=cancelled))
            else:
                raise MediaError(source, "is neither an image nor a video fieldstudio reads")
        except (MediaError, FaceImageTooLarge) as exc:
            report.failed.append((source, str(exc)))
    progress(len(paths), len(paths))
    return report


def redact_image(source: Path, target: Path, detector: FaceDetector) -> Redacted:
    """The image's blurred copy at `target` (upright: EXIF orientation applied). Raises MediaError or
    FaceImageTooLarge."""
    rgb = images.read_image(source)
    boxes = detector.detect(rgb)
    images.write_image(target, blur_faces(rgb, boxes))
    return Redacted(source, target, 1, len(boxes))


def redact_video(source: Path, target: Path, detector: FaceDetector, *,
                 cancelled: Cancelled = lambda: False, frame_done: Callable[[int], None] = lambda n: None) -> Redacted:
    """The video's blurred copy at `target`: the same frames at the same PTS, audio copied.

    Raises MediaError (unreadable source, no encoder, a write that fails; the partial copy is removed),
    FaceImageTooLarge, or RedactCancelled (the partial copy is removed)."""
    import av

    source_container = open_video(source)
    try:
        try:
            written = _encode(source_container, target, detector, cancelled, frame_done)
        except av.error.FFmpegError as exc:
            raise MediaError(source, f"cannot be copied ({error_reason(exc)})") from None
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    finally:
        source_container.close()
    return Redacted(source, target, *written)


def _encoder_name() -> str:
    import av

    for name in ("libx264", "libopenh264", "mpeg4"):
        try:
            av.codec.Codec(name, "w")
            return name
        except Exception:  # noqa: BLE001 - an encoder this FFmpeg build lacks
            continue
    raise MediaError(Path("FFmpeg"), "this installation's FFmpeg only decodes (no H.264 or MPEG-4 encoder), so it "
                     "cannot write a video; redact videos from a pip installation of fieldstudio")


def _encode(container, target: Path, detector: FaceDetector, cancelled: Cancelled,  # noqa: ANN001 - PyAV objects
            frame_done: Callable[[int], None]) -> tuple[int, int, int]:
    import av

    video = container.streams.video[0]
    audio = list(container.streams.audio)
    codec = _encoder_name()
    out = av.open(str(target), "w")
    try:
        stream = out.add_stream(codec, rate=video.average_rate or video.guessed_rate or 25)
        stream.width, stream.height = video.codec_context.width, video.codec_context.height
        stream.pix_fmt = "yuv420p"
        stream.time_base = video.time_base          # every frame keeps its PTS in the source's time base
        stream.codec_context.time_base = video.time_base
        stream.codec_context.max_b_frames = 0       # no reordering: DTS = PTS, no edit list moves the start
        if codec == "libx264":
            stream.codec_context.options = {"crf": "18", "preset": "veryfast"}
        copies = {a.index: out.add_stream_from_template(a) for a in audio}
        frames = faces = 0
        for packet in container.demux(video, *audio):
            if packet.stream.index in copies:
                if packet.dts is not None:
                    packet.stream = copies[packet.stream.index]
                    out.mux(packet)
                continue
            for frame in _decode(video, packet):
                if cancelled():
                    raise RedactCancelled(f"stopped at frame {frames} of {target.name}")
                rgb = frame.to_ndarray(format="rgb24")
                boxes = detector.detect(rgb)
                faces += len(boxes)
                made = av.VideoFrame.from_ndarray(np.ascontiguousarray(blur_faces(rgb, boxes)), format="rgb24")
                made.pts, made.time_base = frame.pts, video.time_base
                out.mux(stream.encode(made))
                frames += 1
                frame_done(frames)
        out.mux(stream.encode(None))
    finally:
        out.close()
    return frames, faces, len(copies)


def _decode(stream, packet):  # noqa: ANN001, ANN202 - PyAV objects
    import av

    try:
        yield from stream.decode(packet)
    except av.error.FFmpegError:        # a damaged packet: skipped, as the frame index skips it
        return
