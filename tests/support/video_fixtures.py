"""Generate small test clips whose frames carry their own index as a barcode, with the ffmpeg CLI.

Each frame is 320x192 (W x H) before rotation: a 12-bit barcode in the top band (bit i is block i,
black = 1), a moving gradient below so the encoder has real motion to code with B-frames.
``read_barcode`` recovers the index from any decoded upright frame, independently of fieldstudio.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

W, H = 320, 192
BITS = 12
BLOCK_W = W // BITS  # 26 px
BAND_H = 48


def barcode_frame(n: int) -> np.ndarray:
    """RGB frame (H, W, 3) whose top band encodes ``n`` and whose corner mark shows its orientation."""
    yy, xx = np.mgrid[0:H, 0:W]
    img = np.empty((H, W, 3), np.uint8)
    img[..., 0] = (xx * 255 // W + 3 * n) % 256
    img[..., 1] = (yy * 255 // H + 5 * n) % 256
    img[..., 2] = 128
    img[:BAND_H] = 255
    for i in range(BITS):
        if (n >> i) & 1:
            img[4 : BAND_H - 4, i * BLOCK_W + 3 : (i + 1) * BLOCK_W - 3] = 0
    img[H - 30 : H, 0:30] = (255, 0, 0)  # red mark at the stored bottom-left corner
    return img


def read_barcode(rgb: np.ndarray, rotation_ccw: int = 0) -> int:
    """Index encoded in an upright frame that was displayed rotated counter-clockwise by ``rotation_ccw``."""
    stored = np.rot90(rgb, k=-(rotation_ccw % 360) // 90)  # undo the display rotation
    gray = stored.astype(float).mean(axis=2)
    n = 0
    for i in range(BITS):
        block = gray[10 : BAND_H - 10, i * BLOCK_W + 8 : (i + 1) * BLOCK_W - 8]
        if block.mean() < 128:
            n |= 1 << i
    return n


def _ffmpeg() -> str:
    exe = shutil.which("ffmpeg")
    if not exe:
        raise RuntimeError("ffmpeg is not installed")
    return exe


def encode(out: Path, frames: int, *, fps: int = 30, args: list[str], input_args: list[str] | None = None,
           filters: str | None = None, numbers: list[int] | None = None) -> Path:
    """Pipe ``frames`` barcode frames into ffmpeg with encoder ``args`` (frame n carries ``numbers[n]`` when
    given, e.g. a number repeated for a static run; n otherwise); returns ``out``."""
    cmd = [_ffmpeg(), "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}",
           "-r", str(fps), *(input_args or []), "-i", "-"]
    if filters:
        cmd += ["-vf", filters]
    cmd += [*args, str(out)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    for n in range(frames):
        proc.stdin.write(barcode_frame(n if numbers is None else numbers[n]).tobytes())
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError(f"ffmpeg failed for {out}")
    return out


X264 = ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-crf", "18"]


def make_all(folder: Path) -> dict[str, Path]:
    """Build every fixture clip in ``folder`` (about 1 MB in total); returns name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    clips = {
        "vfr": encode(folder / "vfr.mp4", 300, filters="setpts='if(lt(N,150),N/30,5+(N-150)/15)/TB'",
                      args=[*X264, "-fps_mode", "passthrough", "-g", "30"]),
        "cfr_bframes": encode(folder / "cfr_bframes.mp4", 300, args=[*X264, "-g", "60", "-bf", "3"]),
        "hevc": encode(folder / "hevc.mp4", 120, args=["-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt",
                                                       "yuv420p", "-x265-params", "log-level=error:keyint=30",
                                                       "-tag:v", "hvc1"]),
        "mpeg4_avi": encode(folder / "mpeg4.avi", 60, args=["-c:v", "mpeg4", "-q:v", "3", "-g", "25"]),
        "mkv": encode(folder / "h264.mkv", 60, args=[*X264, "-g", "20"]),
        "webm": encode(folder / "vp9.webm", 40, args=["-c:v", "libvpx-vp9", "-b:v", "300k", "-deadline",
                                                      "realtime", "-cpu-used", "8", "-g", "20"]),
        "mov": encode(folder / "h264.mov", 60, args=[*X264, "-g", "15", "-bf", "2"]),
        # MPEG-TS seeks by DTS, which B-frames put before the PTS of their keyframe
        "ts": encode(folder / "h264.ts", 90, args=[*X264, "-g", "30", "-bf", "3"]),
    }
    plain = encode(folder / "plain.mp4", 90, args=[*X264, "-g", "30"])
    for deg in (90, 180, 270):  # ffmpeg 5.1 keeps the rotate tag only when remuxing
        out = folder / f"rot{deg}.mp4"
        subprocess.run([_ffmpeg(), "-v", "error", "-y", "-i", str(plain), "-c", "copy",
                        "-metadata:s:v:0", f"rotate={deg}", str(out)], check=True)
        clips[f"rot{deg}"] = out
    return clips


DUPLICATE_PTS = ((122, 123), (149, 150))  # frame pairs sharing one PTS in make_duplicate_pts (150 is a keyframe)


def make_duplicate_pts(folder: Path) -> Path:
    """A 200-frame clip (no B-frames, a keyframe every 30) whose pairs ``DUPLICATE_PTS`` share one PTS.

    ffmpeg's ``setts`` bitstream filter moves frames 122 and 149 onto the PTS of the frame after them
    (their DTS stays, so the file is valid), as variable-frame-rate and edited streams have it.
    """
    folder.mkdir(parents=True, exist_ok=True)
    src = encode(folder / "dup_src.mp4", 200, args=[*X264, "-bf", "0", "-g", "30"])
    moved = "+".join(f"eq(N\\,{a})" for a, _ in DUPLICATE_PTS)
    out = folder / "duplicate_pts.mp4"
    subprocess.run([_ffmpeg(), "-v", "error", "-y", "-i", str(src), "-c", "copy", "-bsf:v",
                    f"setts=pts=if({moved}\\,PTS+DURATION\\,PTS)", str(out)], check=True)
    return out


def ffmpeg_frame(path: Path, n: int) -> np.ndarray:
    """Frame ``n`` (presentation order) as the ffmpeg CLI decodes it: ``-vf select=eq(n\\,N)``, RGB."""
    cmd = [_ffmpeg(), "-v", "error", "-i", str(path), "-vf", f"select=eq(n\\,{n})", "-fps_mode", "passthrough",
           "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    raw = subprocess.run(cmd, check=True, capture_output=True).stdout
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height:stream_side_data=rotation", "-of", "csv=p=0", str(path)],
                           check=True, capture_output=True, text=True).stdout.replace("\n", ",").split(",")
    values = [int(v) for v in probe if v.strip().lstrip("-").isdigit()]
    w, h = values[0], values[1]
    rotation = values[2] if len(values) > 2 else 0
    if rotation % 180:
        w, h = h, w
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def ffprobe_pts(path: Path) -> list[float]:
    """Presentation timestamps in seconds of every decoded video frame, as ffprobe reports them."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "frame=pts_time,best_effort_timestamp_time", "-of", "csv=p=0", str(path)],
                         check=True, capture_output=True, text=True).stdout
    values = []
    for line in out.split():
        parts = [p for p in line.split(",") if p and p != "N/A"]
        values.append(float(parts[0]))
    return sorted(values)
