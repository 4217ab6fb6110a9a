"""Text in a frame or a photo, read by OCR on this machine: "Read text here" in the viewer and the agent's
read-text tool call it (a box of the frame, or the whole frame).

Qt-free. The frame is the exact frame of the frame table (``media.frames``), upright, full resolution; the box and
the lines' boxes are in its pixels, as annotations are.
"""

from __future__ import annotations

from dataclasses import dataclass

from fieldstudio.media import ocr
from fieldstudio.media.frames import get_frame
from fieldstudio.store.project import Project


@dataclass(frozen=True)
class FrameText:
    """What OCR read in one frame: the text (lines joined by newlines), the lines with their boxes, and where.

    media_id, frame_index: the frame read (0 for a photo); box: (x, y, w, h) in its pixels, None for the whole
    frame; engine: what read it (``ocr.engine_version()``).
    """

    text: str
    lines: tuple[ocr.OcrLine, ...]
    media_id: str
    frame_index: int
    box: tuple[float, float, float, float] | None
    engine: str

    def record(self) -> dict:
        """JSON-ready: ``{"media_id", "frame_index", "box", "text", "engine", "lines": [{"text", "score", "box"}]}``."""
        return {"media_id": self.media_id, "frame_index": self.frame_index,
                "box": None if self.box is None else [round(v, 1) for v in self.box], "text": self.text,
                "engine": self.engine,
                "lines": [{"text": ln.text, "score": round(ln.score, 4), "box": [round(v, 1) for v in ln.box]}
                          for ln in self.lines]}


def read_frame_text(project: Project, media_id: str, frame_index: int = 0,
                    box: tuple[float, float, float, float] | None = None) -> FrameText:
    """Read the text of frame ``frame_index`` of a video (0 for a photo), in ``box`` (x, y, w, h) or everywhere.

    Raises:
        MediaError: the media cannot be decoded, or has no such frame (IndexError from the frame table as well).
        ValueError: the box lies outside the frame or is too small to hold text; the frame is too large.
        OcrUnavailable: the OCR models cannot be loaded.
    """
    frame = get_frame(project, media_id, frame_index)
    lines = ocr.read_text(frame.rgb, region=box)
    return FrameText(ocr.text_of(lines), tuple(lines), media_id, frame_index, box, ocr.engine_version())
