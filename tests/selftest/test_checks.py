"""`fieldstudio self-test`, the resource and sample-data locations, the log file and the crash dialog.

Expected values come from independent tools: the frame hash and PTS from ffmpeg/ffprobe, the page size
and phrases from pdfinfo/pdftotext (fieldstudio/resources/selftest.json records the commands); here
they are recomputed with the ffmpeg command line where that is cheap.
"""

from __future__ import annotations

import glob
import hashlib
import logging
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from fieldstudio.cli import selftest as cli_selftest
from fieldstudio.core import paths
from fieldstudio.selftest import checks as selftest
from fieldstudio.store.schema_revisions import head_revision

ROOT = Path(__file__).resolve().parents[2]


def _cli() -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def version() -> None:  # a second command, so that typer keeps "self-test" as a sub-command
        pass

    cli_selftest.register(app)
    return app


def test_expected_frame_hash_is_what_ffmpeg_decodes():
    """The stored pixel hash is the SHA-256 of the rgb24 frame the ffmpeg CLI decodes as n=30."""
    spec = selftest.expected_values()["frame"]
    clip = paths.sample_data_dir() / spec["file"]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(clip), "-vf", f"select=eq(n\\,{spec['index']})",
                          "-vsync", "0", "-frames:v", "1", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"],
                         capture_output=True, check=True).stdout
    assert len(raw) == 270 * 480 * 3
    assert hashlib.sha256(raw).hexdigest() == spec["rgb_sha256"]
    assert hashlib.sha256(clip.read_bytes()).hexdigest() == spec["file_sha256"]


def test_headless_checks_pass_with_values_from_the_tools():
    results = selftest.run_checks(["frame", "pdf", "project"])
    assert [r.name for r in results] == ["frame", "pdf", "project"]
    assert all(r.passed for r in results), [(r.name, r.detail) for r in results]
    frame, pdf, project = results
    assert "PTS 30720 (2.500 s)" in frame.detail          # ffprobe: 31st frame pts 30720, time base 1/12288
    assert "rendered 612x792" in pdf.detail               # pdfinfo: 612 x 792 pts, at 72 dpi
    assert head_revision() in project.detail              # the newest migration script


def test_frame_check_fails_on_a_wrong_hash(tmp_path):
    expected = selftest.expected_values()
    expected["frame"]["rgb_sha256"] = "0" * 64
    ctx = selftest.Context(workdir=tmp_path, expected=expected)
    with pytest.raises(selftest.CheckFailed, match="pixel SHA-256 8f8dc898b38e, expected 000000000000"):
        selftest.check_frame(ctx)


def test_pdf_check_fails_when_a_phrase_is_missing(tmp_path):
    expected = selftest.expected_values()
    expected["pdf"]["phrases"] = ["control of hazardous energy sources", "no such phrase in the fact sheet"]
    with pytest.raises(selftest.CheckFailed, match="lacks: no such phrase"):
        selftest.check_pdf(selftest.Context(workdir=tmp_path, expected=expected))


def test_a_failing_check_gives_exit_code_1_and_a_fail_row(monkeypatch):
    def broken(ctx):
        raise selftest.CheckFailed("the project file could not be written (simulated)")

    monkeypatch.setitem(selftest.CHECKS, "project", ("project created, migrated, written, read back", broken))
    result = CliRunner().invoke(_cli(), ["self-test", "--only", "project", "--only", "pdf"])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert any("PASS" in ln and "PDF page renders" in ln for ln in lines), result.output
    assert any("FAIL" in ln and "could not be written (simulated)" in ln for ln in lines), result.output
    assert "1 of 2 checks passed" in result.output


def test_an_unexpected_exception_is_a_fail_row_not_a_crash(monkeypatch):
    monkeypatch.setitem(selftest.CHECKS, "pdf", ("pdf", lambda ctx: 1 / 0))
    results = selftest.run_checks(["pdf"])
    assert not results[0].passed and results[0].detail == "ZeroDivisionError: division by zero"


def test_all_passing_gives_exit_code_0_and_json(monkeypatch):
    result = CliRunner().invoke(_cli(), ["self-test", "--only", "project", "--json"])
    assert result.exit_code == 0, result.output
    assert '"passed": true' in result.output


def test_unknown_check_is_an_error():
    result = CliRunner().invoke(_cli(), ["self-test", "--only", "nosuch"])
    assert result.exit_code == 2
    assert "unknown check(s): nosuch" in result.output


def test_qt_check_runs_in_a_child_process():
    results = selftest.run_checks(["qt"])
    assert results[0].passed, results[0].detail
    assert results[0].detail.startswith("platform offscreen, Qt 6.")


def test_qt_child_that_aborts_is_a_fail_and_skips_the_qt_checks(monkeypatch):
    script = ("import sys; sys.stderr.write('qt.qpa.plugin: Could not load the Qt platform plugin \"xcb\"\\n');"
              "sys.exit(134)")
    monkeypatch.setattr(selftest, "_self_command", lambda: [sys.executable, "-c", script])
    results = selftest.run_checks(["qt", "vlc", "demo"])
    assert [r.passed for r in results] == [False, False, False]
    assert "exit code 134" in results[0].detail and 'platform plugin "xcb"' in results[0].detail
    assert results[1].detail == results[2].detail == "not run: the Qt check failed"


@pytest.mark.gui
@pytest.mark.slow
def test_vlc_and_demo_checks_pass_in_process(qapp, tmp_path, monkeypatch):
    from fieldstudio.gui.viewer.vlc_playback import vlc_unavailable_reason

    if vlc_unavailable_reason():
        pytest.skip(f"libVLC is not installed here: {vlc_unavailable_reason()}")
    config = tmp_path / "config"
    monkeypatch.setenv("FIELDSTUDIO_CONFIG_DIR", str(config))
    results = selftest.run_checks(["vlc", "demo"], isolate_qt=False)
    assert all(r.passed for r in results), [(r.name, r.detail) for r in results]
    assert "frames of 480x270" in results[0].detail
    assert "fieldstudio demo" in results[1].detail
    assert not (config / "window.ini").exists()  # the user's recent projects were not touched


# -- where the files are -------------------------------------------------------------------------------


def test_prompts_are_package_data():
    prompts = paths.resources_dir() / "prompts"
    assert prompts == ROOT / "fieldstudio" / "resources" / "prompts"
    assert (prompts / "judge_numbers.txt").is_file() and (prompts / "strategy_industryeqa.txt").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    globs = package_data["fieldstudio"]
    for f in [*prompts.glob("*.txt"), paths.resources_dir() / "selftest.json"]:
        rel = f.relative_to(ROOT / "fieldstudio").as_posix()
        assert any(Path(rel).match(g) for g in globs), rel


def test_every_sample_data_file_is_in_the_wheel_data_files():
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = set()
    for dest, patterns in data_files.items():
        for pattern in patterns:
            for f in glob.glob(str(ROOT / pattern)):
                shipped.add((dest, Path(f).relative_to(ROOT).as_posix()))
    for f in (ROOT / "sample_data").rglob("*"):
        if f.is_file():
            rel = f.relative_to(ROOT)
            want = ("share/fieldstudio/" + rel.parent.as_posix(), rel.as_posix())
            assert want in shipped, f"{rel} is not in [tool.setuptools.data-files]"


def test_sample_data_found_in_a_bundle_and_by_override(tmp_path, monkeypatch):
    assert paths.sample_data_dir() == ROOT / "sample_data"
    bundle = tmp_path / "bundle"
    (bundle / "sample_data" / "media").mkdir(parents=True)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    assert paths.sample_data_dir() == bundle / "sample_data"
    assert paths.install_root() == bundle
    other = tmp_path / "elsewhere"
    (other / "media").mkdir(parents=True)
    monkeypatch.setenv("FIELDSTUDIO_SAMPLE_DATA", str(other))
    assert paths.sample_data_dir() == other


def test_sample_data_found_in_a_wheel_prefix(tmp_path, monkeypatch):
    prefix = tmp_path / "venv"
    (prefix / "share" / "fieldstudio" / "sample_data" / "media").mkdir(parents=True)
    monkeypatch.setattr(paths, "_PACKAGE_DIR", tmp_path / "site-packages" / "fieldstudio")
    monkeypatch.setattr(paths, "_data_prefixes", lambda: [str(prefix)])
    assert paths.sample_data_dir() == prefix / "share" / "fieldstudio" / "sample_data"


# -- logs and the crash dialog --------------------------------------------------------------------------


def test_log_file_in_the_log_folder(tmp_path, monkeypatch):
    from fieldstudio import logs

    monkeypatch.setenv("FIELDSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    logs.close_logging()
    try:
        path = logs.setup_logging()
        assert path == tmp_path / "logs" / "fieldstudio.log" == logs.log_path()
        assert logs.setup_logging() == path  # a second call adds no second handler
        logging.getLogger("fieldstudio.test").warning("a line for the log")
        text = path.read_text(encoding="utf-8")
        assert text.count("a line for the log") == 1
        assert "fieldstudio 0." in text
    finally:
        logs.close_logging()


@pytest.mark.gui
def test_crash_hook_logs_the_traceback_and_names_the_log(qapp, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from fieldstudio import logs
    from fieldstudio.gui import app as app_module

    shown: list[str] = []

    class Box(QMessageBox):
        def exec(self) -> int:  # noqa: A003 - Qt name
            shown.append(self.text())
            return 0

    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox", Box)  # the hook imports it when it shows a box
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)  # restored after the test
    monkeypatch.setenv("FIELDSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    logs.close_logging()
    try:
        app_module.install_crash_hook()
        assert sys.excepthook is app_module.crash_hook
        try:
            raise RuntimeError("simulated failure in a slot")
        except RuntimeError as exc:
            app_module.crash_hook(type(exc), exc, exc.__traceback__)
        log_file = tmp_path / "logs" / "fieldstudio.log"
        assert "RuntimeError: simulated failure in a slot" in log_file.read_text(encoding="utf-8")
        assert "Traceback" in log_file.read_text(encoding="utf-8")
        assert len(shown) == 1 and str(log_file) in shown[0] and "simulated failure" in shown[0]

        def worker():
            raise ValueError("simulated failure in a thread")

        t = threading.Thread(target=worker, name="export-worker")
        t.start()
        t.join()
        text = log_file.read_text(encoding="utf-8")
        assert "unexpected error in thread export-worker" in text and "ValueError: simulated failure" in text
    finally:
        monkeypatch.setattr(sys, "excepthook", sys.__excepthook__)
        logs.close_logging()


@pytest.mark.gui
def test_show_logs_opens_the_log_folder(qapp, tmp_path, monkeypatch):
    from fieldstudio.gui import logs_menu

    opened = []
    monkeypatch.setenv("FIELDSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setattr(logs_menu.QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    logs_menu.show_logs()
    assert opened == [str(tmp_path / "logs")]


def test_ocr_check_reads_the_heading_and_fails_without_models(monkeypatch, tmp_path):
    from fieldstudio.media import ocr

    (result,) = selftest.run_checks(["ocr"])
    assert result.passed and "hazardous energy" in result.detail and "rapidocr" in result.detail
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "models_dir", lambda: tmp_path)
    (result,) = selftest.run_checks(["ocr"])
    assert not result.passed and "detection model is missing" in result.detail
