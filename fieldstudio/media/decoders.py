"""What decodes, resizes and encodes the frames fieldstudio sends to models, and the versions of each library.

A frame sent to a model is made in three steps: PyAV (over FFmpeg's libav* libraries) decodes it to RGB24,
OpenCV resizes it (``cv2.INTER_AREA``) and encodes it as JPEG (``cv2.imencode``); a photo is read by OpenCV
(reduced decoding for large ones) after Pillow read its EXIF orientation. The same pixels from other versions
of these libraries may give other bytes, so a reproducibility record keeps these versions with every frame.
"""

from __future__ import annotations

import platform
import sys
from typing import Any

FRAME_RECIPE = {
    "video_decode": "PyAV (FFmpeg libavcodec), frame converted to rgb24 by libswscale",
    "image_decode": "OpenCV imdecode (reduced decoding above the longest side), EXIF orientation read by Pillow",
    "resize": "OpenCV resize, INTER_AREA, longest side at most max_side",
    "encode": "OpenCV imencode .jpg at the recorded quality",
}
"""How a frame sent to a model is made, step by step (``inference.inputs.FrameEncoder.encode``)."""


def decoder_versions() -> dict[str, Any]:
    """The versions of everything that decodes, resizes and encodes a frame on this machine.

    Returns a dict: ``pyav`` (``av.__version__``), ``ffmpeg`` (the FFmpeg release PyAV was built with, or None
    when PyAV does not say), ``libav`` (each libav* library as "major.minor.micro"), ``opencv``
    (``cv2.__version__``), ``pillow``, ``numpy``, ``python`` and ``platform``. Never raises: a library that
    cannot be imported is recorded as None.
    """
    out: dict[str, Any] = {"python": platform.python_version(), "platform": f"{sys.platform}-{platform.machine()}"}
    try:
        import av

        out["pyav"] = av.__version__
        out["ffmpeg"] = getattr(av, "ffmpeg_version_info", None)
        out["libav"] = {name: ".".join(str(n) for n in version)
                        for name, version in sorted(av.library_versions.items())}
    except ImportError:  # pragma: no cover - PyAV is a dependency; recorded rather than crashing a check
        out.update(pyav=None, ffmpeg=None, libav=None)
    for key, module in (("opencv", "cv2"), ("pillow", "PIL"), ("numpy", "numpy")):
        try:
            out[key] = __import__(module).__version__
        except ImportError:  # pragma: no cover
            out[key] = None
    return out


__all__ = ["FRAME_RECIPE", "decoder_versions"]
