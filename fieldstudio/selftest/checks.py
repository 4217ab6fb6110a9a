"""``fieldstudio self-test``: does this installation work? One row per check, PASS or FAIL with a detail.

Checks, in order (names for ``--only``):

| name | passes when |
|---|---|
| ``qt`` | the Qt platform plugin loads and a QMainWindow shows (in a child process, so that a plugin that
  cannot load, which makes Qt abort, becomes a FAIL row instead of a crash) |
| ``vlc`` | libVLC plays about one second of the bundled clip through the video callbacks and frames arrive |
| ``frame`` | the clip, added to a temporary project and indexed, gives its exact frame 30 with the PTS and the
  pixel SHA-256 that ffprobe / ffmpeg computed (``fieldstudio/resources/selftest.json``) |
| ``codecs`` | one 6-frame clip per codec and container fieldstudio opens (``sample_data/selftest/codecs/``:
  H.264, HEVC, MPEG-4, MPEG-2, MJPEG, VP8, VP9, AV1, ProRes, GIF) decodes to ffmpeg's frame count and pixels;
  the Linux bundle decodes with FFmpeg builds that hold decoders only (``installers/linux/decoder_ffmpeg.sh``) |
| ``pdf`` | page 1 of the bundled OSHA fact sheet renders at the page size pdfinfo reports and its text holds
  phrases pdftotext extracts |
| ``opencv`` | OpenCV loads (in the Linux bundle a build with only the modules fieldstudio uses,
  ``installers/linux/opencv_minimal.sh``), its CSRT tracker follows a square moved 4 px per frame to within 2 px, and a JPEG round-trips |
| ``project`` | a project is created, written and read back; an empty file is migrated to the newest schema |
| ``demo`` | the demo project is built from ``sample_data/`` and opens in the main window, showing a video frame |

The Qt-based checks (``vlc``, ``demo``) are not run when ``qt`` fails. On Linux without a display the
``offscreen`` platform is used. Everything is written in a temporary folder removed afterwards; the
user's settings and recent projects are not touched.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fieldstudio.core.paths import is_frozen, resources_dir, sample_data_dir

log = logging.getLogger(__name__)

QT_CHECKS = ("qt", "vlc", "demo")
"""Checks that need a QApplication."""


class CheckFailed(Exception):
    """A check ran and found something wrong; the message is the row's detail."""


@dataclass(frozen=True)
class CheckResult:
    """One row of the self-test table. ``seconds`` is the check's wall time."""

    name: str
    title: str
    passed: bool
    detail: str
    seconds: float


@dataclass
class Context:
    """What the checks share: a scratch folder, the expected values, and whether Qt works here."""

    workdir: Path
    expected: dict
    isolate_qt: bool = True
    qt_ok: bool | None = None
    notes: list[str] = field(default_factory=list)

    def sample(self, relative: str) -> Path:
        """A file of ``sample_data/``; raises CheckFailed naming the place looked at when it is missing."""
        path = sample_data_dir() / relative
        if not path.is_file():
            raise CheckFailed(f"{path}: missing (the sample data is not installed)")
        return path


def expected_values() -> dict:
    """The expected values in ``fieldstudio/resources/selftest.json``. Raises CheckFailed when unreadable."""
    path = resources_dir() / "selftest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CheckFailed(f"{path}: cannot be read ({exc})") from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- Qt -------------------------------------------------------------------------------------------------


def _qt_application():  # noqa: ANN202 - QApplication
    from fieldstudio.gui.app import application

    return application()


def _wait(app, condition: Callable[[], bool], timeout_s: float) -> bool:  # noqa: ANN001 - QApplication
    """Process events until ``condition()`` or the timeout; returns the condition's last value."""
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    return condition()


def _self_command() -> list[str]:
    """How to start this fieldstudio's self-test again in a child process."""
    if is_frozen():
        return [sys.executable, "self-test"]
    return [sys.executable, "-m", "fieldstudio.selftest.checks"]


def check_qt(ctx: Context) -> str:
    """The Qt platform plugin loads and a QMainWindow is shown and painted."""
    if ctx.isolate_qt:
        return _check_qt_in_child()
    import PySide6
    from PySide6.QtCore import qVersion
    from PySide6.QtWidgets import QLabel, QMainWindow

    app = _qt_application()
    window = QMainWindow()
    window.setWindowTitle("fieldstudio self-test")
    window.setCentralWidget(QLabel("fieldstudio self-test"))
    window.resize(320, 200)
    window.show()
    try:
        if not _wait(app, lambda: window.isVisible() and window.windowHandle() is not None
                     and window.windowHandle().isExposed(), 5.0):
            raise CheckFailed(f"the window was not shown on the {app.platformName()!r} platform within 5 s")
        pixmap = window.grab()
        if pixmap.isNull() or pixmap.width() < 1:
            raise CheckFailed("the window could not be painted")
        return (f"platform {app.platformName()}, Qt {qVersion()}, PySide6 {PySide6.__version__}, "
                f"window {pixmap.width()}x{pixmap.height()} shown")
    finally:
        window.close()
        window.deleteLater()
        app.processEvents()


def _check_qt_in_child() -> str:
    cmd = [*_self_command(), "--only", "qt", "--no-isolate", "--json"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=dict(os.environ))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CheckFailed(f"the Qt test process did not finish ({exc})") from None
    rows = None
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("["):
            try:
                rows = json.loads(line)
            except ValueError:
                pass
            break
    if rows:
        if rows[0]["passed"] and done.returncode == 0:
            return rows[0]["detail"]
        raise CheckFailed(rows[0]["detail"])
    tail = [ln for ln in done.stderr.splitlines() if ln.strip()][-6:]
    hint = ""
    if sys.platform.startswith("linux"):
        hint = (" (on Linux the xcb platform needs libxcb-cursor0 and libxkbcommon-x11-0; "
                "QT_QPA_PLATFORM=offscreen runs without a display; QT_DEBUG_PLUGINS=1 tells more)")
    raise CheckFailed(f"Qt stopped the process (exit code {done.returncode}){hint}: " + " | ".join(tail))


# -- libVLC ----------------------------------------------------------------------------------------------


def check_vlc(ctx: Context) -> str:
    """libVLC plays about one second of the bundled clip into our buffer through the video callbacks."""
    spec = ctx.expected["vlc"]
    clip = ctx.sample(spec["file"])
    app = _qt_application()
    from fieldstudio.gui.viewer import vlc_playback

    reason = vlc_playback.vlc_unavailable_reason()
    if reason:
        hint = ""
        if sys.platform.startswith("linux") and not is_frozen():
            hint = "; install VLC's library and plugins (Debian/Ubuntu: apt install libvlc5 vlc-plugin-base)"
        raise CheckFailed(reason + hint)
    vlc = vlc_playback.vlc
    width, height = int(spec["width"]), int(spec["height"])
    frames: list = []
    errors: list[str] = []
    playback = vlc_playback.VlcPlayback(clip, (width, height))

    def take() -> None:
        taken = playback.take()
        if taken is not None:
            frames.append(taken[0].copy())  # the image is libVLC's buffer: it changes at the next take

    playback.frame_ready.connect(take)
    playback.error.connect(errors.append)
    try:
        playback.play_from(0.0, muted=True)
        started = None
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and not errors:
            app.processEvents()
            if frames and started is None:
                started = time.monotonic()
            if started is not None and time.monotonic() - started >= float(spec["seconds"]):
                break
            time.sleep(0.005)
        played_ms = playback.player.get_time()
    finally:
        playback.release()
        app.processEvents()
    if errors:
        raise CheckFailed(errors[0])
    if not frames:
        raise CheckFailed("libVLC started but no frame arrived through the video callbacks within 10 s")
    image = frames[-1]
    if (image.width(), image.height()) != (width, height):
        raise CheckFailed(f"frames arrived at {image.width()}x{image.height()}, expected {width}x{height}")
    gray = [image.pixelColor(x, y).value() for x in range(0, width, 40) for y in range(0, height, 30)]
    if max(gray) - min(gray) < 10:
        raise CheckFailed("frames arrived but they are blank (one colour)")
    plugins = os.environ.get("VLC_PLUGIN_PATH") or os.environ.get("PYTHON_VLC_MODULE_PATH") or "system"
    return (f"{len(frames)} frames of {width}x{height} in {spec['seconds']:.1f} s (playback at "
            f"{max(played_ms, 0) / 1000:.2f} s), libVLC {vlc.libvlc_get_version().decode()}, plugins: {plugins}")


# -- exact frame -----------------------------------------------------------------------------------------


def check_frame(ctx: Context) -> str:
    """Add the clip to a temporary project, index it, decode frame N and compare PTS and pixel hash."""
    from fieldstudio.media import library, video_index
    from fieldstudio.media.frames import get_frame
    from fieldstudio.store.project import Project

    spec = ctx.expected["frame"]
    clip = ctx.sample(spec["file"])
    with Project.create(ctx.workdir / "frame.fieldstudio", name="self-test") as project:
        report = library.add_paths(project, [clip])
        if report.unreadable:
            raise CheckFailed(f"{clip.name} could not be added: {report.unreadable[0][1]}")
        failures = video_index.index_videos(project, report.media_ids)
        if failures:
            raise CheckFailed(f"frame index failed: {failures[0][1]}")
        media = library.find_media(project, clip.name)
        if media.sha256 != spec["file_sha256"]:
            raise CheckFailed(f"{clip.name}: file SHA-256 {media.sha256[:12]}, expected {spec['file_sha256'][:12]} "
                              "(the bundled clip is damaged)")
        frame = get_frame(project, media, int(spec["index"]))
    digest = _sha256(frame.rgb.tobytes())
    problems = []
    if list(frame.rgb.shape) != list(spec["shape"]):
        problems.append(f"shape {frame.rgb.shape}, expected {tuple(spec['shape'])}")
    if frame.pts != spec["pts"]:
        problems.append(f"PTS {frame.pts}, expected {spec['pts']}")
    if digest != spec["rgb_sha256"]:
        problems.append(f"pixel SHA-256 {digest[:12]}, expected {spec['rgb_sha256'][:12]}")
    if problems:
        raise CheckFailed(f"frame {spec['index']} of {clip.name}: " + "; ".join(problems))
    import av

    return (f"frame {spec['index']} of {clip.name}: PTS {frame.pts} ({frame.pts_seconds:.3f} s), "
            f"SHA-256 {digest[:12]} as ffmpeg decodes it (PyAV {av.__version__})")


def check_codecs(ctx: Context) -> str:
    """Decode every frame of one small clip per codec and container fieldstudio opens (H.264, HEVC, MPEG-4,
    MPEG-2, MJPEG, VP8, VP9, AV1, ProRes, GIF in MP4, MOV, AVI, MPEG-PS, MPEG-TS, WebM, Matroska) through
    fieldstudio's frame table and FrameReader, and compare the count and the pixel SHA-256 with ffmpeg's decode.

    This is the check for a bundle whose FFmpeg is built with decoders only: a decoder, demuxer or parser left
    out fails here by name."""
    from fieldstudio.media.decoded_table import build_frame_table
    from fieldstudio.media.frame_reader import FrameReader

    spec = ctx.expected["codecs"]
    problems, decoded = [], []
    for name, want in spec["clips"].items():
        clip = ctx.sample(f"{spec['folder']}/{name}")
        try:
            table = build_frame_table(clip)
            reader = FrameReader(clip, table)
            try:
                pixels = b"".join(reader.get(i).tobytes() for i in range(len(table)))
            finally:
                reader.close()
        except Exception as exc:  # noqa: BLE001 - every failure is a finding, named with its clip
            problems.append(f"{name} ({want['codec']}): {exc}")
            continue
        if len(table) != want["frames"]:
            problems.append(f"{name} ({want['codec']}): {len(table)} frames, expected {want['frames']}")
        elif _sha256(pixels) != want["rgb_sha256"]:
            problems.append(f"{name} ({want['codec']}): pixels differ from ffmpeg's decode")
        else:
            decoded.append(name)
    if problems:
        raise CheckFailed(f"{len(problems)} of {len(spec['clips'])} clips: " + "; ".join(problems))
    import av

    return (f"{len(decoded)} of {len(spec['clips'])} clips decode as ffmpeg does "
            f"({', '.join(sorted({w['codec'] for w in spec['clips'].values()}))}; FFmpeg {av.ffmpeg_version_info})")


# -- PDF -------------------------------------------------------------------------------------------------


def check_pdf(ctx: Context) -> str:
    """Render page 1 of the bundled PDF and extract its text through fieldstudio.media.documents."""
    import pymupdf

    from fieldstudio.media import documents

    spec = ctx.expected["pdf"]
    pdf = ctx.sample(spec["file"])
    page = int(spec["page"])
    image = documents.render_page(pdf, page, zoom=1.0)
    want_w, want_h = spec["page_size_pt"]
    h, w = image.shape[:2]
    if abs(w - want_w) > 1 or abs(h - want_h) > 1:
        raise CheckFailed(f"page {page + 1} rendered at {w}x{h} px, expected {want_w}x{want_h} at 72 dpi")
    if int(image.min()) == int(image.max()):
        raise CheckFailed(f"page {page + 1} rendered blank")
    probe = documents.probe_document(pdf)
    text = " ".join(probe.pages[page].text.split())
    missing = [p for p in spec["phrases"] if " ".join(p.split()).lower() not in text.lower()]
    if missing:
        raise CheckFailed(f"page {page + 1} text ({len(text)} characters) lacks: " + "; ".join(missing))
    hits = documents.search_text(pdf, "lockout")
    if not hits:
        raise CheckFailed("searching the PDF for 'lockout' found nothing")
    layout = "on" if getattr(pymupdf, "_get_layout", None) else "off"
    return (f"page {page + 1} rendered {w}x{h}, {len(text)} characters of text, 'lockout' on "
            f"{len(hits)} page(s); PyMuPDF {pymupdf.VersionBind}, layout analysis {layout}")


def check_ocr(ctx: Context) -> str:
    """Read, with the bundled OCR models, a heading of page 1 of the sample PDF (rendered, its text layer unused)."""
    from fieldstudio.media import documents, ocr

    spec = ctx.expected["pdf"]
    zoom = 150 / 72
    image = documents.render_page(ctx.sample(spec["file"]), int(spec["page"]), zoom=zoom)
    # the first heading, "What is the OSHA standard for / control of hazardous energy sources?", in PDF points
    x0, y0, x1, y1 = 120.0, 170.0, 330.0, 205.0
    try:
        lines = ocr.read_text(image, region=(x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom))
    except ocr.OcrUnavailable as exc:
        raise CheckFailed(str(exc)) from None
    text = " ".join(ocr.text_of(lines).split())
    if "hazardous energy" not in text.lower():
        raise CheckFailed(f"the OCR models read {text!r} where the heading says 'control of hazardous energy'")
    return f"read {text!r} ({ocr.engine_version()})"


# -- project ---------------------------------------------------------------------------------------------


def check_project(ctx: Context) -> str:
    """Create, write, read back; migrate an empty SQLite file to the newest schema."""
    from fieldstudio.store.project import Project, head_revision

    head = head_revision()
    value = {"text": "Prüfung ✓", "number": 42.5, "items": [1, 2, 3]}
    path = ctx.workdir / "created.fieldstudio"
    with Project.create(path, name="self-test project") as project:
        project.set_setting("self-test", value)
        integrity = project.integrity_check()
    if integrity != "ok":
        raise CheckFailed(f"{path.name}: integrity check says {integrity}")
    with Project.open(path) as project:
        if project.migrated_from is not None or project.schema_revision() != head:
            raise CheckFailed(f"{path.name}: created at schema {project.schema_revision()}, expected {head}")
        back, name = project.setting("self-test"), project.name
    if back != value or name != "self-test project":
        raise CheckFailed(f"{path.name}: read back {back!r} / {name!r}, expected {value!r} / 'self-test project'")

    old = ctx.workdir / "empty.fieldstudio"
    con = sqlite3.connect(old)
    con.execute("CREATE TABLE scratch (x)")
    con.execute("DROP TABLE scratch")
    con.commit()
    con.close()
    with Project.open(old) as project:
        migrated_to = project.schema_revision()
        backup = project.backup_path
        project.set_setting("self-test", value)
    if migrated_to != head:
        raise CheckFailed(f"{old.name}: migrated to schema {migrated_to}, expected {head}")
    if backup is None or not backup.is_file():
        raise CheckFailed(f"{old.name}: migrated but the copy of the old file was not kept")
    with Project.open(old) as project:
        if project.setting("self-test") != value:
            raise CheckFailed(f"{old.name}: the value written after migrating was not read back")
    return f"created, wrote and read back at schema {head}; an empty file migrated to {head} (old copy kept)"


# -- OpenCV ----------------------------------------------------------------------------------------------


def check_opencv(ctx: Context) -> str:
    """cv2 imports, CSRT follows a textured square moved 4 px right and 2 px down per frame, JPEG round-trips."""
    import numpy as np

    try:
        import cv2
    except ImportError as exc:
        raise CheckFailed(f"OpenCV does not load: {exc}") from exc
    rng = np.random.default_rng(7)
    patch = rng.integers(0, 256, (40, 40, 3), dtype=np.uint8)
    frames = []
    for k in range(12):
        frame = np.full((240, 320, 3), 90, np.uint8)
        x, y = 60 + 4 * k, 50 + 2 * k
        frame[y:y + 40, x:x + 40] = patch
        frames.append(frame)
    tracker = cv2.TrackerCSRT_create()
    tracker.init(frames[0], (60, 50, 40, 40))
    box = None
    for frame in frames[1:]:
        ok, box = tracker.update(frame)
        if not ok:
            raise CheckFailed("CSRT lost the square")
    expected = (60 + 4 * 11, 50 + 2 * 11)
    if abs(box[0] - expected[0]) > 2 or abs(box[1] - expected[1]) > 2:
        raise CheckFailed(f"CSRT ended at {box[:2]}, expected {expected} (within 2 px)")
    ok, jpeg = cv2.imencode(".jpg", frames[-1])
    back = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    if back is None or back.shape != frames[-1].shape:
        raise CheckFailed("a JPEG written by OpenCV does not read back")
    return f"OpenCV {cv2.__version__}: CSRT ended at ({box[0]}, {box[1]}), expected {expected}; JPEG round-trip"


# -- demo in the window ----------------------------------------------------------------------------------


def check_demo(ctx: Context) -> str:
    """Build the demo project and open it in the main window; the first video shows an exact frame."""
    from fieldstudio.demo.project import build_demo
    from fieldstudio.media import library

    app = _qt_application()
    path = ctx.workdir / "demo" / "demo.fieldstudio"
    saved = {k: os.environ.get(k) for k in ("FIELDSTUDIO_CONFIG_DIR", "FIELDSTUDIO_DATA_DIR")}
    os.environ["FIELDSTUDIO_CONFIG_DIR"] = str(ctx.workdir / "config")  # keep recent projects untouched
    os.environ["FIELDSTUDIO_DATA_DIR"] = str(ctx.workdir / "data")
    window = None
    try:
        report = build_demo(path)
        if report.unreadable:
            raise CheckFailed(f"demo media unreadable: {report.unreadable[0][0].name}: {report.unreadable[0][1]}")
        from fieldstudio.gui.main_window import MainWindow

        window = MainWindow(path=path)  # as `fieldstudio P`: the project opens on a worker once shown
        window.show()
        if not _wait(app, window.isVisible, 5.0):
            raise CheckFailed("the main window was not shown within 5 s")
        if not _wait(app, lambda: window.state.project is not None, 30.0):
            raise CheckFailed(f"{path.name}: the window did not finish opening the project within 30 s")
        project = window.state.project
        shown: list[tuple[int, float, bool]] = []
        window.view.video.frame_shown.connect(lambda i, s, exact: shown.append((i, s, exact)))
        clip = ctx.expected["frame"]["file"].rsplit("/", 1)[-1]
        window.state.request_frame(library.find_media(project, clip).id)
        if not _wait(app, lambda: any(exact for _, _, exact in shown), 10.0):
            raise CheckFailed(f"{clip} opened in the window but no exact frame was shown within 10 s")
        title = window.windowTitle()
        return (f"{report.imported_total} media imported; window '{title}' shows frame {shown[-1][0]} of {clip}")
    finally:
        if window is not None:
            window.close()
            window.deleteLater()
            from PySide6.QtCore import QThreadPool

            QThreadPool.globalInstance().waitForDone(10_000)
            app.processEvents()
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def _check_of(module: str, name: str, failure: str) -> Callable[[Context], str]:
    """The check ``name`` of ``fieldstudio.selftest.<module>`` (``face_check.check_faces``: the face detector loads
    and finds a face; ``face_check.check_redaction``: `redact` writes frame-exact copies of videos;
    ``people_check.check_people``: HOG finds the demo's worker), its exception ``failure`` shown as CheckFailed."""
    def run(ctx: Context) -> str:
        import importlib

        checks = importlib.import_module(f"fieldstudio.selftest.{module}")
        try:
            return getattr(checks, name)()
        except getattr(checks, failure) as exc:
            raise CheckFailed(str(exc)) from exc
    return run


CHECKS: dict[str, tuple[str, Callable[[Context], str]]] = {
    "qt": ("Qt platform plugin loads, a window shows", check_qt),
    "vlc": ("libVLC plays 1 s through the video callbacks", check_vlc),
    "frame": ("exact frame decodes and matches its hash", check_frame),
    "codecs": ("every codec and container decodes as ffmpeg does", check_codecs),
    "pdf": ("PDF page renders and its text extracts", check_pdf),
    "ocr": ("OCR models load and read a heading of the sample PDF", check_ocr),
    "opencv": ("OpenCV loads, CSRT tracks, JPEG round-trips", check_opencv),
    "faces": ("the face detector loads and finds a face", _check_of("face_check", "check_faces", "FaceCheckFailed")),
    "redact": ("blurred copies of videos keep every frame's time",
               _check_of("face_check", "check_redaction", "FaceCheckFailed")),
    "people": ("the people detector finds the demo's worker",
               _check_of("people_check", "check_people", "PeopleCheckFailed")),
    "project": ("project created, migrated, written, read back", check_project),
    "demo": ("demo project opens in the main window", check_demo),
}


def _use_offscreen_without_display() -> str | None:
    """On Linux with no X11 or Wayland display, use Qt's offscreen platform; returns a note when it did."""
    if (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
            and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return "no display: using Qt's offscreen platform"
    return None


def run_checks(only: Sequence[str] | None = None, *, isolate_qt: bool = True,
               workdir: Path | None = None) -> list[CheckResult]:
    """Run the named checks (all when ``only`` is empty) and return one result per check, in table order.

    Raises ValueError for an unknown check name. A check that raises is a FAIL whose detail is the
    error; its traceback goes to the log. Scratch files live in ``workdir`` (a temporary folder removed
    afterwards when None).
    """
    names = list(only) if only else list(CHECKS)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"unknown check(s): {', '.join(unknown)}; known: {', '.join(CHECKS)}")
    _use_offscreen_without_display()
    with tempfile.TemporaryDirectory(prefix="fieldstudio-selftest-") as tmp:
        base = Path(workdir) if workdir else Path(tmp)
        results: list[CheckResult] = []
        try:
            ctx = Context(workdir=base, expected=expected_values(), isolate_qt=isolate_qt)
        except CheckFailed as exc:
            return [CheckResult(n, CHECKS[n][0], False, str(exc), 0.0) for n in names]
        for name in [n for n in CHECKS if n in names]:
            title, fn = CHECKS[name]
            started = time.monotonic()
            if name in QT_CHECKS and name != "qt" and ctx.qt_ok is False:
                results.append(CheckResult(name, title, False, "not run: the Qt check failed", 0.0))
                continue
            try:
                detail, passed = fn(ctx), True
            except CheckFailed as exc:
                detail, passed = str(exc), False
            except Exception as exc:  # noqa: BLE001 - any error is this check's FAIL, the others still run
                detail, passed = f"{type(exc).__name__}: {exc}", False
                log.error("self-test %s failed\n%s", name, traceback.format_exc())
            if name == "qt":
                ctx.qt_ok = passed
            log.info("self-test %s: %s (%s)", name, "PASS" if passed else "FAIL", detail)
            results.append(CheckResult(name, title, passed, detail, time.monotonic() - started))
        return results


def results_json(results: Sequence[CheckResult]) -> str:
    """The results as one line of JSON (a list of objects), as ``--json`` prints them."""
    return json.dumps([asdict(r) for r in results], ensure_ascii=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fieldstudio.selftest.checks [--only NAME]... [--no-isolate] [--json]``; returns the exit code."""
    import argparse

    parser = argparse.ArgumentParser(prog="fieldstudio.selftest.checks", description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=list(CHECKS), help="run only this check (repeatable)")
    parser.add_argument("--no-isolate", action="store_true", help="run the Qt check in this process")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    results = run_checks(args.only, isolate_qt=not args.no_isolate)
    if args.json:
        print(results_json(results))
    else:
        for r in results:  # plain lines; ``fieldstudio self-test`` prints the same results as a table
            print(f"{'PASS' if r.passed else 'FAIL'}  {r.title}  {r.seconds:.1f} s  {r.detail}")
        print(f"self-test: {sum(r.passed for r in results)} of {len(results)} checks passed")
    return 0 if results and all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
