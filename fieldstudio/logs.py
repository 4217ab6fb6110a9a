"""fieldstudio's log file: one rotating file in the platform's log folder (platformdirs' user_log_dir).

``setup_logging()`` is called once by the window (and by ``fieldstudio self-test``); it is safe to call
again. The file is ``fieldstudio.log`` in :func:`fieldstudio.core.paths.log_dir` (``FIELDSTUDIO_LOG_DIR``
overrides it), rotated at 1 MB with 5 old files kept, so a user can send it with a bug report.
Nothing secret goes in: model API keys never reach a log record (DESIGN.md, "Architecture").
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from fieldstudio import __version__
from fieldstudio.core.masking import mask_in_text
from fieldstudio.core.paths import log_dir

LOG_NAME = "fieldstudio.log"
MAX_BYTES = 1_000_000
BACKUPS = 5
_FORMAT = "%(asctime)s %(levelname)-7s %(threadName)s %(name)s: %(message)s"
_handler: logging.Handler | None = None
_path: Path | None = None
_held: _HeldRecords | None = None


def log_path() -> Path:
    """The current log file (it may not exist before the first record is written)."""
    return log_dir() / LOG_NAME


class _MaskingFormatter(logging.Formatter):
    """Formats as usual, then masks the password of any database URL in the line (core.masking)."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_in_text(super().format(record))


class _HeldRecords(logging.Handler):
    """The records of the window's first moments, kept until :func:`setup_logging` opens the file."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def hold_records(level: int = logging.INFO) -> None:
    """Keep log records (``level`` and above) in memory until :func:`setup_logging` opens the log file and
    writes them there first, in order. Does nothing once the file is open.

    The window holds them until it is on screen: opening the file imports the rotating handler (logging.handlers
    brings socket, pickle and queue) and the first line names the platform (``platform.platform()`` reads the
    Python binary for its C library's version), 10-30 ms of a 0.2-0.6 s start.
    """
    global _held
    if _handler is not None or _held is not None:
        return
    _held = _HeldRecords(level)
    root = logging.getLogger()
    root.addHandler(_held)
    root.setLevel(level)
    logging.captureWarnings(True)


def setup_logging(level: int = logging.INFO) -> Path:
    """Send fieldstudio's log records (and Python warnings) to the rotating log file; returns its path.

    Records at ``level`` and above from every logger are written. Calling it again changes nothing
    but the level. If the log folder cannot be written, logging goes to stderr and the intended path
    is still returned (the caller can show it). Records held by :func:`hold_records` are written first.
    """
    global _handler, _path, _held
    root = logging.getLogger()
    if _handler is None:
        import platform
        from logging.handlers import RotatingFileHandler

        try:
            path = log_path()
            handler: logging.Handler = RotatingFileHandler(
                path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
        except OSError as exc:  # read-only home, full disk: keep going, log to stderr
            path = Path(exc.filename or LOG_NAME)
            handler = logging.StreamHandler(sys.stderr)
            print(f"fieldstudio: cannot write the log file ({exc}); logging to stderr", file=sys.stderr)
        handler.setFormatter(_MaskingFormatter(_FORMAT))
        root.addHandler(handler)
        logging.captureWarnings(True)
        _handler, _path = handler, path
        _handler.setLevel(level)
        root.setLevel(level)
        if _held is not None:
            root.removeHandler(_held)
            for record in _held.records:
                if record.levelno >= level:
                    handler.handle(record)
            _held = None
        logging.getLogger(__name__).info(
            "fieldstudio %s, Python %s, %s, frozen=%s", __version__, platform.python_version(),
            platform.platform(), bool(getattr(sys, "frozen", False)))
    root.setLevel(level)
    _handler.setLevel(level)
    return _path


def close_logging() -> None:
    """Detach and close the log file handler (tests, and before a log folder is removed)."""
    global _handler, _path
    if _handler is not None:
        logging.getLogger().removeHandler(_handler)
        _handler.close()
        _handler, _path = None, None
