"""fieldstudio's log file: one rotating file in the platform's log folder (platformdirs' user_log_dir).

``setup_logging()`` is called once by the window (and by ``fieldstudio self-test``); it is safe to call
again. The file is ``fieldstudio.log`` in :func:`fieldstudio.core.paths.log_dir` (``FIELDSTUDIO_LOG_DIR``
overrides it), rotated at 1 MB with 5 old files kept, so a user can send it with a bug report.
Nothing secret goes in: model API keys never reach a log record (DESIGN.md, "Architecture").
"""

from __future__ import annotations

import logging
import logging.handlers
import platform
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


def log_path() -> Path:
    """The current log file (it may not exist before the first record is written)."""
    return log_dir() / LOG_NAME


class _MaskingFormatter(logging.Formatter):
    """Formats as usual, then masks the password of any database URL in the line (core.masking)."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_in_text(super().format(record))


def setup_logging(level: int = logging.INFO) -> Path:
    """Send fieldstudio's log records (and Python warnings) to the rotating log file; returns its path.

    Records at ``level`` and above from every logger are written. Calling it again changes nothing
    but the level. If the log folder cannot be written, logging goes to stderr and the intended path
    is still returned (the caller can show it).
    """
    global _handler, _path
    root = logging.getLogger()
    if _handler is None:
        try:
            path = log_path()
            handler: logging.Handler = logging.handlers.RotatingFileHandler(
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
