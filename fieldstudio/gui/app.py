"""Start the window: ``fieldstudio``, ``fieldstudio open P``, ``fieldstudio P`` and ``fieldstudio demo``."""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import shlex
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QtMsgType, Qt, QTimer, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from fieldstudio.gui.first_paint import after_first_paint
from fieldstudio.logs import hold_records, log_path, setup_logging
from fieldstudio.store.location import project_ref

log = logging.getLogger(__name__)


GUI_SWITCH_INTERVAL_S = 0.001
MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024
TRIM_THRESHOLD_BYTES = 32 * 1024 * 1024
HEAP_ARENAS = 2


def bound_the_heap() -> bool:
    """On glibc, give large buffers back to the system when freed; True when set (False elsewhere).

    A decoded 4K picture is 12-25 MB. glibc maps such a buffer on its own, but after the first one is freed it
    raises its mmap threshold to that size, so the next ones come from heaps that never shrink, one heap per
    thread that allocates (the decoder's, libVLC's, Qt's: up to 8 per core). Playing 4K then held 800-950 MB
    resident, 1080p about 420 MB. A fixed 1 MB threshold (every frame buffer mapped alone, returned at once) and
    two heaps kept 4K under 530 MB.

    The threshold is 4 MB, above a 1080p picture (3.1 MB decoded, 3.2 MB as a scrubbing preview fitted in the view)
    and below a 4K one (12.4 MB decoded): at 1 MB every 1080p buffer was a new mapping, and the exact frame after a
    quick drag of the playhead took 6,700 more page faults (26 MB of new pages, ~15 ms) than after a release alone;
    from the heap they are reused. Freed memory at a heap's top is given back beyond 32 MB (glibc's default, 128 KB,
    gave every freed picture back to be faulted in again by the next).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8  # <malloc.h>
        return bool(libc.mallopt(m_mmap_threshold, MMAP_THRESHOLD_BYTES) and libc.mallopt(m_arena_max, HEAP_ARENAS)
                    and libc.mallopt(m_trim_threshold, TRIM_THRESHOLD_BYTES))
    except (OSError, AttributeError):  # another C library (musl): its allocator returns memory by itself
        return False


def start_collector() -> None:
    """Turn Python's cyclic garbage collector on (``launch.main`` held it off during the window's imports), with
    every object alive now (the modules, the window) set aside in its permanent generation (``gc.freeze``).

    A full collection walks every tracked object and holds the interpreter lock meanwhile; with the 200,000 objects
    of the window's modules in the walk, one took 200-350 ms on two loaded cores, in whichever thread allocated,
    and the window's thread waited that long (issue 37). What is set aside lives for the whole session anyway;
    reference counting still frees it, only its reference cycles are never looked for."""
    gc.freeze()
    gc.enable()


def application() -> QApplication:
    """The QApplication (created once), named so that settings and the window manager know it."""
    app = QApplication.instance()
    if app is None:
        # Background threads (indexing, thumbnails, runs) run Python too; the window's thread gives up the GIL
        # at every SQLite or decoder call and then waits up to the switch interval to get it back (5 ms by
        # default), so a query of twenty such calls stalled the window for 100 ms. 1 ms keeps it responsive.
        sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
        bound_the_heap()  # before the decoder's and libVLC's threads make their own heaps
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
        app.setApplicationName("fieldstudio")
        app.setOrganizationName("fieldstudio")
    return app


_showing_crash = False


def crash_hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """``sys.excepthook`` of the window: log the traceback and tell the user where the log is.

    The window keeps running (Qt returns to its event loop after a failed slot); a second error while
    the dialog is open is only logged. Ctrl+C keeps Python's default behaviour.
    """
    from PySide6.QtWidgets import QMessageBox

    global _showing_crash
    if issubclass(exc_type, KeyboardInterrupt):
        sys.__excepthook__(exc_type, exc, tb)
        return
    log.critical("unexpected error\n%s", "".join(traceback.format_exception(exc_type, exc, tb)).rstrip())
    setup_logging()  # the dialog names the log file: it is open from here on, with the records held before
    if _showing_crash or QApplication.instance() is None:
        return
    _showing_crash = True
    try:
        box = QMessageBox(QMessageBox.Icon.Critical, "fieldstudio: unexpected error",
                          f"Something went wrong: {exc_type.__name__}: {exc}\n\n"
                          "Your work up to the last edit is saved. The details are in the log file:\n"
                          f"{log_path()}")
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        show = box.addButton("Show logs", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Close)
        box.exec()
        if box.clickedButton() is show:
            from fieldstudio.gui.logs_menu import show_logs

            show_logs()
    except Exception:  # noqa: BLE001 - the hook itself must never raise
        log.exception("the error dialog failed")
    finally:
        _showing_crash = False


_QT_LEVELS = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
              QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
              QtMsgType.QtFatalMsg: logging.CRITICAL}


_platform_notes: list[str] = []
"""Qt's platform-plugin messages (category ``qt.qpa.*``) so far: the reason behind a later fatal message."""


def _qt_message(kind: QtMsgType, context: object, message: str) -> None:
    logging.getLogger("qt").log(_QT_LEVELS.get(kind, logging.WARNING), "%s", message)
    if str(getattr(context, "category", "") or "").startswith("qt.qpa"):
        _platform_notes.append(message)
    if kind == QtMsgType.QtFatalMsg:
        # Qt aborts right after this handler returns (exit 134, "Aborted"): say why on the terminal instead
        print(f"error: {platform_failure(_platform_notes, message)}", file=sys.stderr, flush=True)
        setup_logging()  # records held until the first paint (hold_records) reach the file
        logging.shutdown()
        os._exit(2)


def _advice() -> str:
    """What to do without a usable display, naming the command that was run."""
    args = " ".join(shlex.quote(a) for a in sys.argv[1:]) or "open"
    return (f"run it in a desktop session, or under a virtual display: `xvfb-run fieldstudio {args}`; "
            "`fieldstudio demo --no-gui` builds the demo without a window, and every other command works "
            "without one (`fieldstudio --help`)")


def _library_missing(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return True
    return False


def platform_failure(notes: list[str], fatal: str) -> str:
    """One line: why Qt could not start its platform plugin, from its own messages (``notes``: the
    ``qt.qpa`` warnings before the ``fatal`` message), and what to do. A library is named only when it
    cannot be loaded here (Qt's xcb plugin mentions xcb-cursor on every failure, installed or not)."""
    display = next((n for n in notes if "could not connect to display" in n.lower()), None)
    plugin = next((n for n in notes if "could not find the qt platform plugin" in n.lower()), None)
    if display is not None:
        what = f"Qt {display.strip()} (DISPLAY={os.environ.get('DISPLAY', '')!r} names no running X server)"
    elif plugin is not None:
        what = (f"{plugin.strip()} (QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', '')!r}; "
                "use xcb, wayland or offscreen)")
    else:
        what = "Qt could not start a platform plugin: " + (notes[-1] if notes else fatal.split(".")[0]).strip()
    if any("xcb-cursor" in n for n in notes) and _library_missing("libxcb-cursor.so.0"):
        what += "; the library libxcb-cursor0 is missing (Debian/Ubuntu: sudo apt-get install libxcb-cursor0)"
    return f"cannot open the window: {what}. To fix: {_advice()}"


def _thread_exception(args: threading.ExceptHookArgs) -> None:
    name = args.thread.name if args.thread is not None else "?"
    log.critical("unexpected error in thread %s", name, exc_info=(args.exc_type, args.exc_value, args.exc_traceback))


def install_crash_hook(*, open_log_file: bool = True) -> None:
    """Log to the platform's log folder and show unexpected errors in a dialog instead of vanishing.

    Qt's own messages (warnings about plugins, fonts, ...) and errors in other threads go to the log too.
    ``open_log_file=False`` holds the records in memory (``logs.hold_records``) until the caller calls
    ``logs.setup_logging`` (the window does once it is on screen); an error or a fatal Qt message opens it.
    """
    if open_log_file:
        setup_logging()
    else:
        hold_records()
    sys.excepthook = crash_hook
    threading.excepthook = _thread_exception
    qInstallMessageHandler(_qt_message)


def display_problem() -> str | None:
    """Why the window cannot open on this machine, or None.

    On Linux and the BSDs Qt needs an X11 or Wayland display (``DISPLAY`` / ``WAYLAND_DISPLAY``) unless a
    platform is chosen with ``QT_QPA_PLATFORM`` (``offscreen`` for tests); without one, Qt aborts the
    process with nothing but "Aborted" on the terminal.
    """
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    if any(os.environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
        return None
    return ("cannot open the window: there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set). "
            f"To fix: {_advice()}")


def run_gui(path: Path | None = None) -> int:
    """Open the main window on ``path`` (a project file) or on the welcome screen; returns the exit code.

    The window is shown first and opens the project once on screen (see ``MainWindow``); a project that
    cannot be opened is explained in a message box over the welcome screen. Without a display (see
    :func:`display_problem`) it says so on stderr and returns 2 instead of letting Qt abort; when a display
    is named but unusable (no X server at ``DISPLAY``, an unknown ``QT_QPA_PLATFORM``), Qt's own fatal
    message reaches the handler of :func:`install_crash_hook`, which prints one line
    (:func:`platform_failure`) and exits the process with code 2.
    """
    problem = display_problem()
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    install_crash_hook(open_log_file=False)  # opened once the window is on screen: see hold_records
    app = application()
    from fieldstudio.gui.main_window import MainWindow

    window = MainWindow(path=project_ref(path) if path is not None else None)
    window.show()
    after_first_paint(window, start_collector)  # held off by launch.main while the window's modules were imported
    after_first_paint(window, setup_logging)  # 10-30 ms (see hold_records): after the window is on screen
    quit_ms = os.environ.get("FIELDSTUDIO_QUIT_AFTER_MS")
    if quit_ms:  # smoke test of an installation: show the window, then close it as a user would
        QTimer.singleShot(int(quit_ms), window.close)
    code = app.exec()
    setup_logging()  # a window closed before its first paint never opened the log: what it held is written now
    return code
