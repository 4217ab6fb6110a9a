"""The self-test's checks of the privacy gate: the face detector's model file loads in onnxruntime and finds the
shopper's face in frame 0 of the demo's store clip (``sample_data/media/videos/store_aisle_shoppers_from_gif.mp4``,
CC BY 4.0, Intel), a face marked by hand at (275, 74)-(294, 100); and `fieldstudio redact` writes a blurred copy of
a video with this installation's FFmpeg (the Linux bundle's keeps only its native MPEG-4 and MJPEG encoders)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from fieldstudio.core.paths import sample_data_dir


class FaceCheckFailed(Exception):
    """The face check failed; the message says what (the self-test shows it as the check's FAIL row)."""


CLIP = "media/videos/store_aisle_shoppers_from_gif.mp4"
#: The centre of the face marked by hand in frame 0 (x, y, pixels).
FACE_CENTRE = (284.5, 87.0)


def check_faces() -> str:
    """CenterFace loads and finds the marked face. Raises FaceCheckFailed naming what went wrong."""
    from fieldstudio.privacy.faces import FaceDetector, FaceModelError

    try:
        started = time.perf_counter()
        detector = FaceDetector()
    except FaceModelError as exc:
        raise FaceCheckFailed(str(exc)) from exc
    loaded_s = time.perf_counter() - started
    import av

    path = sample_data_dir() / CLIP
    try:
        with av.open(str(path)) as container:
            frame = next(container.decode(container.streams.video[0])).to_ndarray(format="rgb24")
    except (OSError, StopIteration, av.error.FFmpegError) as exc:
        raise FaceCheckFailed(f"{path}: frame 0 does not decode ({exc})") from exc
    started = time.perf_counter()
    boxes = detector.detect(frame)
    found_s = time.perf_counter() - started
    x, y = FACE_CENTRE
    hit = [b for b in boxes if b.x0 <= x <= b.x1 and b.y0 <= y <= b.y1]
    if not hit:
        raise FaceCheckFailed(f"{detector.version} found {len(boxes)} face(s) in frame 0 of {path.name}, none at "
                          f"({x:g}, {y:g})")
    return (f"{detector.version}: the face at ({x:g}, {y:g}) found (score {hit[0].score:.2f}); loaded in "
            f"{loaded_s:.2f} s, {found_s:.2f} s for the frame")


#: Clips of the codecs self-check (6 frames each) that `check_redaction` copies: an MP4 in 1/10240 and an MPEG-TS in
#: 1/90000 (which MPEG-4 Part 2 can only write by coarsening the time base to the frames' own step).
REDACT_CLIPS = ("selftest/codecs/h264.mp4", "selftest/codecs/h264.ts")


def _pts_seconds(path: Path) -> list[float]:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return [round(float(f.pts * stream.time_base), 6) for f in container.decode(stream)]


def check_redaction() -> str:
    """`redact` writes a copy of each of `REDACT_CLIPS` whose frames decode at the source's times. Raises
    FaceCheckFailed naming the clip and what differs (no encoder, a frame lost or moved)."""
    from fieldstudio.core.errors import MediaError
    from fieldstudio.privacy.faces import FaceDetector, FaceModelError
    from fieldstudio.privacy.redact_media import copy_path, redact_video

    try:
        detector = FaceDetector()
    except FaceModelError as exc:
        raise FaceCheckFailed(str(exc)) from exc
    done = []
    with tempfile.TemporaryDirectory(prefix="fieldstudio-redact-") as folder:
        for relative in REDACT_CLIPS:
            source = sample_data_dir() / relative
            try:
                copy = redact_video(source, copy_path(source, Path(folder)), detector)
            except MediaError as exc:
                raise FaceCheckFailed(f"{source.name}: {exc}") from exc
            want, got = _pts_seconds(source), _pts_seconds(copy.copy)
            if got != want:
                raise FaceCheckFailed(f"{source.name}: the copy's frames are at {got} s, the source's at {want} s")
            done.append(f"{source.name} -> {copy.copy.suffix[1:]} ({copy.encoder}, {copy.frames} frames)")
    return "copies keep every frame at its time: " + ", ".join(done)
