"""Blurred copies of images and videos for sharing outside fieldstudio (`fieldstudio redact`).

An image is written in its own format with every face blurred (`privacy.blur`). A video is decoded frame by frame,
each frame's faces are found on the frame turned upright (its display matrix applied) and blurred, and it is encoded
again with every frame's PTS kept: the copy has the same frames at the same times (frame-exact), the source's
display matrix (rotation tag), and its audio streams copied packet by packet (re-muxed, never re-encoded). The source
files are only read.

The encoder is the first this FFmpeg build has (`ENCODERS`): H.264 (x264 at CRF 18, as PyAV's wheel ships it), else
FFmpeg's own MPEG-4 Part 2 at quantiser 2 (the Linux bundle's FFmpeg, whose only encoders are FFmpeg's native
MPEG-4 and MJPEG). MPEG-4 Part 2 cannot count time in units finer than 1/65535 s, so a video whose frame times
need finer units (a variable rate at 1/90000) goes to MJPEG there (every frame a JPEG at quality 2); with neither
the video is refused with the reason. No encoder reorders frames (no B-frames), so DTS = PTS.

The container: ``.mp4`` for MP4, M4V, MOV and GIF sources, ``.mkv`` for the rest (Matroska takes any time base and
audio codec).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import gcd
from pathlib import Path

import numpy as np

from fieldstudio.core.box_overlap import box_iou
from fieldstudio.core.errors import FieldstudioError, MediaError
from fieldstudio.core.progress import Cancelled, Progress
from fieldstudio.media import images
from fieldstudio.media.video import error_reason, open_video
from fieldstudio.privacy.blur import blur_faces
from fieldstudio.privacy.faces import FaceDetector, FaceImageTooLarge, shared_detector

VIDEO_SUFFIXES = {".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm", ".gif", ".mpg", ".mpeg", ".ts", ".wmv"}
_MP4_SOURCES = {".mp4", ".m4v", ".mov", ".gif"}
SUFFIX = "_redacted"
# in the order `redact` prefers them: H.264 (PyAV's wheel), then FFmpeg's native encoders (the Linux bundle)
ENCODERS = ("libx264", "libopenh264", "mpeg4", "mjpeg")
_MPEG4_MAX_DEN = 65535          # MPEG-4 Part 2 writes the time base's denominator in 16 bits
_QP2LAMBDA = 118                # FFmpeg's FF_QP2LAMBDA: a quantiser q is global_quality q * 118


class RedactCancelled(FieldstudioError):
    """The user stopped `redact_files`; what was written before stays, the file in progress is removed."""


@dataclass
class Redacted:
    """One copy written: ``source``, ``copy``, ``frames`` (1 for an image), ``faces`` blurred in all of them,
    ``audio_streams`` copied, the video ``encoder`` (FFmpeg's name; "" for an image) and the display ``rotation``
    kept (degrees counter-clockwise, 0 when none); ``damage``: why the source decodes only partly (a truncated
    JPEG: the copy holds the part that decodes), else None."""

    source: Path
    copy: Path
    frames: int
    faces: int
    audio_streams: int = 0
    encoder: str = ""
    rotation: int = 0
    damage: str | None = None


@dataclass
class RedactReport:
    """What `redact_files` did: the copies written, the (file, reason) of each file it could not copy, the face
    detector's version, the output folder when `redact_files` had to create it (else None), and the (taken name,
    name written) of each copy whose first name was already in the output folder."""

    written: list[Redacted] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)
    detector: str = ""
    created_folder: Path | None = None
    renamed: list[tuple[str, str]] = field(default_factory=list)


class OutFolderRefused(FieldstudioError):
    """The output folder of `redact_files` is a file, an original or one that holds an original, or a source does
    not exist: nothing was written and no folder made."""


def copy_path(source: Path, out_dir: Path) -> Path:
    """Where the blurred copy of `source` goes: ``<out_dir>/<stem>_redacted<suffix>`` (videos: .mp4 or .mkv)."""
    suffix = source.suffix.lower()
    if suffix in VIDEO_SUFFIXES:
        suffix = ".mp4" if suffix in _MP4_SOURCES else ".mkv"
    return out_dir / f"{source.stem}{SUFFIX}{suffix}"


def free_path(target: Path) -> Path:
    """`target`, or when a file of that name exists, the first free ``<stem>_2<suffix>``, ``_3``, ... beside it:
    a copy never overwrites a file."""
    n = 2
    free = target
    while free.exists():
        free = target.with_name(f"{target.stem}_{n}{target.suffix}")
        n += 1
    return free


def refuse_out_folder(paths: Sequence[Path], out_dir: Path) -> None:
    """Raise OutFolderRefused when `out_dir` (symbolic links and ``..`` resolved) is one of `paths`, an existing
    file, or the folder of one of `paths` (blurred copies beside the originals are easy to mistake for them and to
    share the wrong one), or when one of `paths` does not exist (checked before any folder is made)."""
    out = out_dir.resolve()
    for source in paths:
        resolved = Path(source).resolve()
        if out == resolved:
            raise OutFolderRefused(f"--out {out_dir} is one of the originals: give a folder for the copies")
        if out == resolved.parent:
            raise OutFolderRefused(f"--out {out_dir} is the folder of the original {Path(source).name}: "
                                   "choose a folder that holds no original")
    if out_dir.exists() and not out_dir.is_dir():
        raise OutFolderRefused(f"--out {out_dir} is a file; give a folder")
    missing = [str(p) for p in paths if not Path(p).is_file()]
    if missing:
        raise OutFolderRefused(f"{missing[0]} does not exist or is not a file"
                               + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "") + ": nothing written")


def redact_files(paths: Sequence[Path], out_dir: Path, *, detector: FaceDetector | None = None,
                 progress: Progress = lambda done, total: None,
                 cancelled: Cancelled = lambda: False) -> RedactReport:
    """Write a blurred copy of each image and video of `paths` into `out_dir` (created if missing, and then
    reported in ``created_folder``).

    A file that cannot be read or written is listed in ``failed`` with its reason and never stops the others; a copy
    never overwrites a file (a taken name gets the first free ``_2``, ``_3`` suffix, listed in ``renamed``).
    `progress(done, total)` counts files.
    Raises OutFolderRefused (`out_dir` holds an original: nothing is written), FaceModelError (no face model:
    nothing is written) or RedactCancelled.
    """
    refuse_out_folder(paths, out_dir)
    detector = detector or shared_detector()
    report = RedactReport(detector=detector.version)
    if not out_dir.exists():
        out_dir.mkdir(parents=True)
        report.created_folder = out_dir
    for done, source in enumerate(paths):
        progress(done, len(paths))
        if cancelled():
            raise RedactCancelled(f"stopped after {done} of {len(paths)} file(s); the copies written stay")
        source = Path(source)
        wanted = copy_path(source, out_dir)
        target = free_path(wanted)
        try:
            suffix = source.suffix.lower()
            if suffix in images.IMAGE_SUFFIXES:
                report.written.append(redact_image(source, target, detector))
            elif suffix in VIDEO_SUFFIXES:
                report.written.append(redact_video(source, target, detector, cancelled=cancelled))
            else:
                raise MediaError(source, "is neither an image nor a video fieldstudio reads")
        except (MediaError, FaceImageTooLarge) as exc:
            report.failed.append((source, str(exc)))
            continue
        if target != wanted:
            report.renamed.append((wanted.name, target.name))
    progress(len(paths), len(paths))
    return report


def redact_image(source: Path, target: Path, detector: FaceDetector) -> Redacted:
    """The image's blurred copy at `target` (upright: EXIF orientation applied), with the damage of a truncated JPEG
    (``images.jpeg_damage``). Raises MediaError or FaceImageTooLarge."""
    rgb = images.read_image(source)
    boxes = detector.detect(rgb)
    images.write_image(target, blur_faces(rgb, boxes))
    damage = images.jpeg_damage(source) if source.suffix.lower() in (".jpg", ".jpeg") else None
    return Redacted(source, target, 1, len(boxes), damage=damage)


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
    frames, faces, audio_streams, encoder, rotation = written
    return Redacted(source, target, frames, faces, audio_streams, encoder, rotation)


def available_encoders() -> list[str]:
    """The names of `ENCODERS` that this FFmpeg build (PyAV's) can encode with, in order of preference."""
    import av

    names = []
    for name in ENCODERS:
        try:
            av.codec.Codec(name, "w")
        except Exception:  # noqa: BLE001 - an encoder this FFmpeg build lacks
            continue
        names.append(name)
    return names


def choose_encoder(time_base: Fraction, pts: Sequence[int], available: Sequence[str]) -> tuple[str, Fraction]:
    """The encoder for a video stream in `time_base` whose frames have the PTS `pts`, and the codec time base it
    encodes in (each PTS is then a whole number of those units: frame-exact).

    The first of `available` wins; MPEG-4 Part 2 only when a time base with a denominator of at most 65535 holds
    every PTS exactly (the source's, or a multiple of it by the PTS' greatest common divisor). Raises MediaError
    when no encoder can write the stream."""
    step = 0
    for p in pts:
        step = gcd(step, abs(p))
    coarse = time_base * (step or 1)
    for name in available:
        if name != "mpeg4":
            return name, time_base
        if time_base.denominator <= _MPEG4_MAX_DEN:
            return name, time_base
        if coarse.denominator <= _MPEG4_MAX_DEN and coarse.numerator <= _MPEG4_MAX_DEN:
            return name, coarse
    if not available:
        raise MediaError(Path("FFmpeg"), "this installation's FFmpeg has no video encoder (H.264, MPEG-4 or MJPEG), "
                         "so it cannot write a video")
    raise MediaError(Path("FFmpeg"), f"the frame times (time base {time_base}) need units finer than 1/65535 s, "
                     "which MPEG-4 Part 2 cannot write, and this FFmpeg has no H.264 or MJPEG encoder")


def _video_facts(path: Path) -> tuple[list[int], list[int] | None, int]:
    """The first video stream's packet PTS (read without decoding), and the display matrix (9 int32, None when
    there is none) and rotation (degrees counter-clockwise, 0-359) of its first frame.

    Read before the copy is written: the container's header, which carries the matrix, goes out with the first
    packet muxed, and an audio packet may come before the first video frame decodes."""
    container = open_video(path)
    matrix, rotation, pts = None, 0, []
    try:
        video = container.streams.video[0]
        first = None
        for packet in container.demux(video):
            if packet.pts is not None:
                pts.append(packet.pts)
            if first is None:
                first = next(iter(_decode(video, packet)), None)
                if first is not None:
                    matrix = _display_matrix(first)
                    rotation = int(round(first.rotation)) % 360 if matrix is not None else 0
    finally:
        container.close()
    return pts, matrix, rotation


def _display_matrix(frame) -> list[int] | None:  # noqa: ANN001 - a PyAV VideoFrame
    """The frame's display matrix (9 int32 in FFmpeg's layout), or None when it has none."""
    for side in frame.side_data.keys():     # PyAV 18's container iterates its values as keys
        if side.type.name == "DISPLAYMATRIX":
            return np.frombuffer(bytes(side), "<i4").tolist()
    return None


def _find_and_blur(rgb: np.ndarray, rotation: int, detector: FaceDetector) -> tuple[np.ndarray, int]:
    """`rgb` (coded orientation) with its faces blurred and how many: found on the picture as the display shows it
    (turned `rotation` degrees counter-clockwise, a multiple of 90) and, when it is turned, on the coded picture too
    (a detector misses faces lying on their side: a tag that turns upright faces sideways would leave them all).
    The union is blurred, a face found both ways (IoU >= 0.5) counted once."""
    turns = (rotation // 90) % 4
    upright = np.ascontiguousarray(np.rot90(rgb, turns))
    boxes = list(detector.detect(upright))
    if turns:
        height, width = rgb.shape[:2]
        for coded in detector.detect(np.ascontiguousarray(rgb)):
            shown = _turned(coded, turns, width, height)
            if all(box_iou(_xyxy(shown), _xyxy(k)) < _SAME_FACE_IOU for k in boxes):
                boxes.append(shown)
    return np.ascontiguousarray(np.rot90(blur_faces(upright, boxes), -turns)), len(boxes)


_SAME_FACE_IOU = 0.5


def _xyxy(box: FaceBox) -> tuple[float, float, float, float]:
    return box.x0, box.y0, box.x1, box.y1


def _turned(box: FaceBox, turns: int, width: int, height: int) -> FaceBox:
    """`box` of a `width` x `height` picture, in the picture turned `turns` x 90° counter-clockwise (as np.rot90):
    one turn takes the point (x, y) to (y, width - x)."""
    for _ in range(turns):
        box = replace(box, x0=box.y0, y0=width - box.x1, x1=box.y1, y1=width - box.x0)
        width, height = height, width
    return box


def _encode(container, target: Path, detector: FaceDetector, cancelled: Cancelled,  # noqa: ANN001 - PyAV objects
            frame_done: Callable[[int], None]) -> tuple[int, int, int, str, int]:
    import av

    video = container.streams.video[0]
    audio = list(container.streams.audio)
    pts, matrix, rotation = _video_facts(Path(container.name))
    codec, codec_time_base = choose_encoder(Fraction(video.time_base), pts, available_encoders())
    out = av.open(str(target), "w")
    try:
        stream = out.add_stream(codec, rate=video.average_rate or video.guessed_rate or 25)
        stream.width, stream.height = video.codec_context.width, video.codec_context.height
        stream.pix_fmt = "yuvj420p" if codec == "mjpeg" else "yuv420p"
        stream.time_base = video.time_base          # every frame keeps its PTS in the source's time base
        stream.codec_context.time_base = codec_time_base
        stream.codec_context.max_b_frames = 0       # no reordering: DTS = PTS, no edit list moves the start
        if matrix is not None:
            stream.set_display_matrix(matrix)
        if codec == "libx264":
            stream.codec_context.options = {"crf": "18", "preset": "veryfast"}
        elif codec in ("mpeg4", "mjpeg"):           # a fixed quantiser of 2: near the source's quality
            stream.codec_context.options = {"flags": "+qscale", "global_quality": str(2 * _QP2LAMBDA)}
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
                rgb, found = _find_and_blur(frame.to_ndarray(format="rgb24"), rotation, detector)
                faces += found
                made = av.VideoFrame.from_ndarray(rgb, format="rgb24")
                made.pts = int(Fraction(frame.pts) * Fraction(video.time_base) / codec_time_base)
                made.time_base = codec_time_base
                out.mux(stream.encode(made))
                frames += 1
                frame_done(frames)
        out.mux(stream.encode(None))
    finally:
        out.close()
    return frames, faces, len(copies), codec, rotation
def _decode(stream, packet):  # noqa: ANN001, ANN202 - PyAV objects
    import av

    try:
        yield from stream.decode(packet)
    except av.error.FFmpegError:        # a damaged packet: skipped, as the frame index skips it
        return
