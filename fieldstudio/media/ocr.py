"""Text read from pixels (OCR) on this machine: PP-OCR's detection and recognition models through RapidOCR.

Qt-free. The models are the ONNX files the ``rapidocr`` wheel carries (``rapidocr/models/``; the bundle keeps
them at the same place), given to RapidOCR by path, so nothing is ever downloaded: a missing or broken file is
:class:`OcrUnavailable`, said in plain words. The engine loads once per process (about 30 MB) and is shared;
one read at a time, because an onnxruntime session is not promised to be re-entrant from several threads.

Coordinates are pixels of the image given, (x0, y0, x1, y1) with the origin at the top-left, y down: the
axis-aligned box around the quadrilateral the detector found.

Speed (issue 34: a page in <= 20 s, a 1080p frame in <= 10 s on two shared cores): the onnxruntime sessions are
made here and handed to RapidOCR (its custom-session hook), with worker threads that sleep between runs instead of
spinning; a rendered page is detected at most ``PAGE_DETECTION_SIDE`` px on its longest side, while a frame or
photo keeps RapidOCR's own sizing (small text in a scene needs every pixel). Recognition always reads the lines
from the full-resolution image.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.media.ocr_columns import reading_order

#: The model files read, in the ``rapidocr`` package's ``models`` folder.
DETECTION_MODEL = "PP-OCRv6_det_small.onnx"
RECOGNITION_MODEL = "PP-OCRv6_rec_small.onnx"

#: Lines read with a lower confidence than this are dropped (RapidOCR's own default is 0.5).
MIN_SCORE = 0.5

#: Largest image read, in pixels; a larger one is refused with the reason rather than read for minutes.
#: RapidOCR scales the detector's input down to 2,000 px on its longest side anyway.
MAX_PIXELS = 50_000_000

#: Smallest side read; below it there is no line of text to find.
MIN_SIDE = 8

#: Longest side, in pixels, of the picture the text detector sees for a rendered document page. A 150-dpi US
#: Letter page (1275 x 1650) becomes 990 x 1280, about 116 dpi, where 10-point body text is still 11 px tall:
#: the words read on the scanned manual page are the same (0.992 of its text layer either way) and detection
#: takes 0.6 of the time. RapidOCR's own sizing would detect on the page as rendered (never shrinking a side
#: above 736 px) and brings a 200-dpi page to 2,000 px.
PAGE_DETECTION_SIDE = 1280


class OcrUnavailable(FieldstudioError):
    """The OCR models cannot be used here: the package or a model file is missing, or a file fails to load."""


@dataclass(frozen=True)
class OcrWord:
    """One word read: its text, the recogniser's confidence (0-1) and its box (x0, y0, x1, y1) in image pixels."""

    text: str
    score: float
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class OcrLine:
    """One line of text read: text, confidence (0-1), box (x0, y0, x1, y1) in image pixels, and its words."""

    text: str
    score: float
    box: tuple[float, float, float, float]
    words: tuple[OcrWord, ...]


_engine = None
_engine_lock = threading.Lock()
_read_lock = threading.Lock()


def models_dir() -> Path:
    """The folder holding the OCR model files (the ``rapidocr`` package's ``models``). Raises OcrUnavailable."""
    try:
        import rapidocr
    except ImportError as exc:
        raise OcrUnavailable(f"OCR is not installed (the rapidocr package cannot be imported: {exc})") from None
    return Path(rapidocr.__file__).parent / "models"


def model_paths() -> dict[str, Path]:
    """``{"detection": path, "recognition": path}``; raises OcrUnavailable naming a missing file."""
    folder = models_dir()
    paths = {"detection": folder / DETECTION_MODEL, "recognition": folder / RECOGNITION_MODEL}
    for role, path in paths.items():
        if not path.is_file():
            raise OcrUnavailable(f"the OCR {role} model is missing ({path})")
    return paths


def engine_version() -> str:
    """What reads the text, as recorded with it: ``rapidocr 3.10.0 PP-OCRv6 small``. Raises OcrUnavailable."""
    try:
        from rapidocr._version import __version__ as version
    except ImportError:
        models_dir()
        version = "unknown"
    return f"rapidocr {version} PP-OCRv6 small"


def _session(path: Path):  # noqa: ANN202 - onnxruntime.InferenceSession
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_cpu_mem_arena = False          # as RapidOCR sets it: the page-sized buffers are not kept
    # Worker threads that spin between runs take the CPU from the decoders, the window and everyone else on a
    # loaded machine and then wait for it themselves (the face detector went from 0.75 s to 0.36 s a frame
    # on 2 loaded cores without it): they sleep instead.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _load() -> dict:
    """``{"scene": RapidOCR, "page": RapidOCR}``, made once per process; both run the same two sessions."""
    global _engine
    with _engine_lock:
        if _engine is None:
            paths = model_paths()
            try:
                from rapidocr import RapidOCR

                sessions = {"Det.session": _session(paths["detection"]), "Rec.session": _session(paths["recognition"])}
                engines = {}
                for kind, sizing in (("scene", {}), ("page", {"Det.limit_type": "max",
                                                              "Det.limit_side_len": PAGE_DETECTION_SIDE})):
                    engine = RapidOCR(params={
                        "Det.model_path": str(paths["detection"]), "Rec.model_path": str(paths["recognition"]),
                        # pages and frames are upright; the angle classifier would cost a third more time
                        "Global.use_cls": False, "Global.return_word_box": True, "Global.log_level": "error",
                        "Global.text_score": MIN_SCORE, **sizing})
                    # RapidOCR's configuration takes plain values only; its sessions are given as objects
                    engine.cfg._set_flag("allow_objects", True)
                    for key, session in sessions.items():
                        section, name = key.split(".")
                        engine.cfg[section][name] = session
                    engines[kind] = engine
            except Exception as exc:  # onnxruntime's errors are plain RuntimeErrors
                raise OcrUnavailable(f"the OCR models fail to load ({str(exc).splitlines()[0][:200]})") from exc
            _engine = engines
        return _engine


def read_text(rgb: np.ndarray, region: tuple[float, float, float, float] | None = None, *,
              page: bool = False) -> list[OcrLine]:
    """Read the text in an image, or in one rectangle of it.

    Args:
        rgb: uint8 array (H, W, 3), RGB.
        region: (x, y, w, h) in image pixels to read (clipped to the image); None reads the whole image.
        page: the image is a rendered document page (body text of a known size): the detector sees it at most
            PAGE_DETECTION_SIDE px long. False (a frame, a photo, a region) keeps every pixel for detection.
    Returns:
        The lines read in reading order (``media.ocr_columns``: columns found by their gutter are read one after
        the other, each top to bottom; otherwise top to bottom, left to right within a row), boxes in pixels of
        ``rgb`` (not of the region). An image with no text gives [].
    Raises:
        ValueError: the image is not (H, W, 3) uint8, or the region lies outside it or is smaller than
            MIN_SIDE pixels, or it is larger than MAX_PIXELS (refused with the reason).
        OcrUnavailable: the models cannot be loaded.
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an RGB uint8 image (H, W, 3), got {rgb.dtype} {rgb.shape}")
    ox = oy = 0
    if region is not None:
        x, y, w, h = region
        x0, y0 = max(int(np.floor(x)), 0), max(int(np.floor(y)), 0)
        x1, y1 = min(int(np.ceil(x + w)), rgb.shape[1]), min(int(np.ceil(y + h)), rgb.shape[0])
        if x1 - x0 < MIN_SIDE or y1 - y0 < MIN_SIDE:
            raise ValueError(f"the region {region} holds less than {MIN_SIDE}x{MIN_SIDE} pixels of the image")
        rgb, ox, oy = rgb[y0:y1, x0:x1], x0, y0
    height, width = rgb.shape[:2]
    if min(height, width) < MIN_SIDE:
        raise ValueError(f"the image ({width}x{height}) is too small to hold text")
    if height * width > MAX_PIXELS:
        raise ValueError(f"the image ({width}x{height}) is larger than the {MAX_PIXELS // 1_000_000} MP "
                         "OCR reads; read a region of it")
    engine = _load()["page" if page else "scene"]
    # RapidOCR takes OpenCV's channel order
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    with _read_lock:
        out = engine(bgr)
    if out.txts is None or out.boxes is None:
        return []
    lines = []
    word_groups = out.word_results if out.word_results and len(out.word_results) == len(out.txts) else None
    for k, (text, score, quad) in enumerate(zip(out.txts, out.scores, out.boxes)):
        words = tuple(OcrWord(str(t), float(s), _shifted(_bounds(q), ox, oy))
                      for t, s, q in (word_groups[k] if word_groups else ()) if str(t).strip())
        box = _shifted(_bounds(quad), ox, oy)
        if not words:
            words = (OcrWord(str(text), float(score), box),)
        lines.append(OcrLine(str(text), float(score), box, _split_words(words)))
    return reading_order(lines)     # RapidOCR gives them top to bottom, left to right within a row


def _bounds(quad) -> tuple[float, float, float, float]:  # noqa: ANN001 - 4 (x, y) points
    points = np.asarray(quad, dtype=float).reshape(-1, 2)
    return (float(points[:, 0].min()), float(points[:, 1].min()), float(points[:, 0].max()), float(points[:, 1].max()))


def _shifted(box: tuple[float, float, float, float], ox: float, oy: float) -> tuple[float, float, float, float]:
    return (box[0] + ox, box[1] + oy, box[2] + ox, box[3] + oy)


def _split_words(words: tuple[OcrWord, ...]) -> tuple[OcrWord, ...]:
    """Words as separated by spaces: a recognised piece holding spaces is cut, its box shared by letter count.

    RapidOCR gives Latin text in space-separated pieces already; a line read as one piece (no word boxes)
    becomes its words with boxes in proportion to their letters, so a search can still mark one word.
    """
    out: list[OcrWord] = []
    for w in words:
        parts = w.text.split()
        if len(parts) <= 1:
            out.append(OcrWord(w.text.strip(), w.score, w.box))
            continue
        x0, y0, x1, y1 = w.box
        total = len(w.text)
        pos = 0
        for part in parts:
            start = w.text.index(part, pos)
            pos = start + len(part)
            out.append(OcrWord(part, w.score, (x0 + (x1 - x0) * start / total, y0,
                                               x0 + (x1 - x0) * pos / total, y1)))
    return tuple(out)


def text_of(lines: list[OcrLine]) -> str:
    """The lines' text in the order given: a line beside the previous one (their heights overlap by half the
    smaller) follows it after a space ("4.2" "bar" read as two pieces of one row), else after a newline."""
    out: list[str] = []
    previous = None
    for line in lines:
        if previous is not None:
            overlap = min(line.box[3], previous.box[3]) - max(line.box[1], previous.box[1])
            smaller = min(line.box[3] - line.box[1], previous.box[3] - previous.box[1])
            out.append(" " if line.box[0] > previous.box[0] and overlap >= 0.5 * smaller else "\n")
        out.append(line.text)
        previous = line
    return "".join(out)
