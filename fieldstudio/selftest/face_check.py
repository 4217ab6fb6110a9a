"""The self-test's check of the privacy gate's face detector: the model file loads in onnxruntime and finds the
shopper's face in frame 0 of the demo's store clip (``sample_data/media/videos/store_aisle_shoppers_from_gif.mp4``,
CC BY 4.0, Intel), a face marked by hand at (275, 74)-(294, 100)."""

from __future__ import annotations

import time

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
