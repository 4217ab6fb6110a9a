"""The log file: records held while the window starts reach the file first, in order, at the file's level."""

from __future__ import annotations

import logging

from fieldstudio import logs


def test_records_held_before_the_file_opens_are_written_first_in_order():
    logs.close_logging()            # an earlier test may have left the handler on another test's log folder
    logs.hold_records()
    log = logging.getLogger("fieldstudio.test.held")
    try:
        log.info("held one")
        log.debug("below the level: not kept")
        log.warning("held two")
        path = logs.setup_logging()
        log.info("after opening")
        logs.hold_records()         # the file is open: nothing is held any more
        log.info("written at once")
    finally:
        logs.close_logging()
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if "fieldstudio.test.held" in line]
    assert [line.rsplit(": ", 1)[1] for line in lines] == ["held one", "held two", "after opening", "written at once"]
    assert not any(isinstance(h, logs._HeldRecords) for h in logging.getLogger().handlers)


_SAID_BEFORE_THE_PAINT = ("import logging\nimport fieldstudio.gui.main_window as mw\nfrom fieldstudio import logs\n"
                          "init = mw.MainWindow.__init__\n"
                          "def made(self, *k, **kw):\n"
                          "    init(self, *k, **kw)\n"
                          "    print('window made', logs._handler is None, flush=True)\n"
                          "    logging.getLogger('fieldstudio.test').warning('said before the paint')\n"
                          "mw.MainWindow.__init__ = made\n")


def _run_the_window(tmp_path, code: str, quit_ms: int):  # noqa: ANN001, ANN202 - pytest's Path; CompletedProcess
    """`fieldstudio` (launch.main) after ``code``, its window closed ``quit_ms`` ms after it is shown; its log
    file in tmp_path/l."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FIELDSTUDIO_QUIT_AFTER_MS": str(quit_ms),
           "FIELDSTUDIO_CONFIG_DIR": str(tmp_path / "c"), "FIELDSTUDIO_DATA_DIR": str(tmp_path / "d"),
           "FIELDSTUDIO_LOG_DIR": str(tmp_path / "l")}
    code += "from fieldstudio import launch\nlaunch.main([])\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)


def test_the_window_opens_its_log_file_once_it_is_shown_with_what_came_before(tmp_path):
    """`fieldstudio` holds its records while the window starts (opening the file is not part of the first paint)
    and writes them once it is on screen: checked on the real window, closed after it is shown."""
    code = ("from PySide6.QtCore import QTimer\nimport fieldstudio.gui.app as a\n"
            "from fieldstudio import logs\n"
            "real = a.run_gui\n"
            "def run(p):\n"
            "    a.application()\n"
            "    QTimer.singleShot(300, lambda: print('shown', logs._handler is not None, flush=True))\n"
            "    return real(p)\n"
            "a.run_gui = run\n") + _SAID_BEFORE_THE_PAINT
    done = _run_the_window(tmp_path, code, 600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["window made True", "shown True"]
    text = (tmp_path / "l" / logs.LOG_NAME).read_text(encoding="utf-8")
    assert "fieldstudio.test: said before the paint" in text and ", Python " in text


def test_a_window_closed_before_its_first_paint_still_writes_what_it_held(tmp_path):
    """The log file opens after the window's first paint (gui/first_paint.py): a window closed before it (the
    smoke test's FIELDSTUDIO_QUIT_AFTER_MS=0, a window never exposed) never makes that call, and what was said
    while it started must reach the file all the same."""
    done = _run_the_window(tmp_path, _SAID_BEFORE_THE_PAINT, 0)
    assert done.returncode == 0, done.stderr
    log_file = tmp_path / "l" / logs.LOG_NAME
    assert log_file.is_file(), done.stderr
    assert "fieldstudio.test: said before the paint" in log_file.read_text(encoding="utf-8")
