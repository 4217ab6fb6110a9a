"""A real clip with known events, made by the ffmpeg command line, its tasks, and a fake model that reports what
it sees in the frames it is sent (issue 33's "done when": sampling sweeps, evidence coverage, temporal IoU).

The clip: 300 frames at 5 frames/s (60.0 s, frame i at i / 5 s), 64x48 grey; a red square fills the middle in
frames 100-149 (20.0-29.8 s) and a blue one in frames 180-195 (36.0-39.0 s). Its two tasks ask when each square
is visible; their ground truths are those ranges at millisecond precision, so each task's evidence is exactly
those frames.

`seeing_model` is a responder for the fake OpenAI-compatible server: it decodes every image sent, reads the
``timestamp: HH:MM:SS`` written before it, and answers ``from A to B`` (the first and last timestamps at which it
saw the square asked about), or ``from 00:00:00 to 00:00:01`` when it saw none. A chunk description request
(``chunked``) gets ``seen from A to B`` / ``not seen``, and the final request of ``chunked`` (no image) is answered
from those descriptions.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

from fieldstudio.store.project import Project
from tests.support.fake_openai import RecordedRequest, Reply
from tests.support.run_fixtures import add_media, add_task, decode_rgb, jpeg_of

FPS, FRAMES, W, H = 5, 300, 64, 48
RED_FRAMES = (100, 149)
BLUE_FRAMES = (180, 195)
RED_TRUTH = "from 00:00:20.000 to 00:00:29.800"
BLUE_TRUTH = "from 00:00:36.000 to 00:00:39.000"
NOT_SEEN_ANSWER = "from 00:00:00 to 00:00:01"


def frame_picture(i: int) -> np.ndarray:
    """Frame ``i`` as RGB: grey, with the red or blue square in the middle when it is visible."""
    rgb = np.full((H, W, 3), 128, np.uint8)
    if RED_FRAMES[0] <= i <= RED_FRAMES[1]:
        rgb[12:36, 16:48] = (230, 20, 20)
    elif BLUE_FRAMES[0] <= i <= BLUE_FRAMES[1]:
        rgb[12:36, 16:48] = (20, 20, 230)
    return rgb


def make_event_clip(folder: Path) -> Path:
    """Encode the clip with ffmpeg (H.264, yuv420p, 5 frames/s) into ``folder/squares.mp4``."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise RuntimeError("ffmpeg is not installed")
    out = folder / "squares.mp4"
    frames = b"".join(frame_picture(i).tobytes() for i in range(FRAMES))
    subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}",
                    "-r", str(FPS), "-i", "-", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", str(out)],
                   input=frames, check=True)
    return out


def add_event_tasks(project: Project, clip: Path) -> dict[str, str]:
    """Add the clip (indexed) and its two tasks; returns {"red": task id, "blue": task id, "media": media id}."""
    media_id = add_media(project, clip)[clip.name]
    red = add_task(project, "When is the red square visible?", [(clip.name, media_id)], external_id="red",
                   answer_type="time_range", ground_truth=RED_TRUTH)
    blue = add_task(project, "When is the blue square visible?", [(clip.name, media_id)], external_id="blue",
                    answer_type="time_range", ground_truth=BLUE_TRUTH)
    return {"red": red, "blue": blue, "media": media_id}


def _colour(url: str) -> str | None:
    r, g, b = (int(v) for v in decode_rgb(jpeg_of(url))[H // 2, W // 2])
    if r > 150 and g < 90 and b < 90:
        return "red"
    if b > 150 and r < 90 and g < 90:
        return "blue"
    return None


def _texts(request: RecordedRequest) -> str:
    out = []
    for m in request.body["messages"]:
        content = m["content"]
        out += [content] if isinstance(content, str) else [p.get("text", "") for p in content if p["type"] == "text"]
    return "\n".join(out)


def seeing_model(request: RecordedRequest) -> Reply:
    """The fake model's reply to one request (module docstring)."""
    texts = _texts(request)
    asked = "red" if "red square" in texts else "blue"
    seen: list[str] = []
    images = 0
    for m in request.body["messages"]:
        if isinstance(m["content"], str):
            continue
        stamp = None
        for part in m["content"]:
            if part["type"] == "text" and part["text"].startswith("timestamp: "):
                stamp = part["text"][len("timestamp: "):]
            elif part["type"] == "image_url":
                images += 1
                if _colour(part["image_url"]["url"]) == asked:
                    seen.append(stamp)
    if images and "Do not answer the task yet" in texts:     # a chunk description request (strategy chunked)
        return Reply(text=f"seen from {seen[0]} to {seen[-1]}" if seen else "not seen")
    if images:
        return Reply(text=f"from {seen[0]} to {seen[-1]}" if seen else NOT_SEEN_ANSWER)
    found = re.findall(r"seen from (\d\d:\d\d:\d\d) to (\d\d:\d\d:\d\d)", texts)
    return Reply(text=f"from {found[0][0]} to {found[-1][1]}" if found else NOT_SEEN_ANSWER)
