"""Frame indexing of a project's videos in the background, one video at a time, with a status-bar line.

Every video first gets its packet index (demuxing only: a long video opens at once), then its decoded
index, which verifies the packet index and replaces it where they differ (``video_index.index_next_video``).
The video on screen goes first at each stage. When every index is done, the scanned document pages are read by OCR,
one per step (``media.document_ocr``, ``page_read`` tells the library and the document view), then the thumbnails an
interrupted ``add`` left unmade are made (``inventory.unfinished_media``) and ``thumbnails_made`` tells the library. The work runs on a ``gui.workers`` worker, on a thread of lower CPU
priority than the window's; pausing cancels the video in progress, which starts again on resume.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable

from PySide6.QtCore import QObject, QThreadPool, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from fieldstudio.gui import workers

log = logging.getLogger(__name__)


#: The indexing thread's nice value (Linux): under a full CPU the window's own thread goes first, so
#: scrolling and playback stay smooth while hours of footage index (issue 21).
INDEXING_NICE = 10


def _index_next_gently(project, prefer, done: threading.Event, **kwargs):  # noqa: ANN001, ANN202
    """``video_index.index_next_video`` on a thread of lower CPU priority than the window's; sets ``done`` once
    it no longer uses the project (here, not through a queued signal: ``stop`` waits on the GUI thread)."""
    try:
        return _index_next(project, prefer, **kwargs)
    finally:
        done.set()


def _index_next(project, prefer, **kwargs):  # noqa: ANN001, ANN202
    from fieldstudio.media import video_index

    if hasattr(os, "setpriority") and hasattr(threading, "get_native_id"):
        try:  # raising a thread's own nice value needs no privilege; the pool's thread keeps it
            current = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            if current < INDEXING_NICE:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), INDEXING_NICE)
        except OSError:
            pass
    ocr_skip, reading = kwargs.pop("ocr_skip", None), kwargs.pop("reading", None)
    step = video_index.index_next_video(project, prefer, **kwargs)
    if step is None and ocr_skip is not None:  # every index done: the scanned pages, one per step
        step = _read_next_page(project, ocr_skip, reading)
    if step is None:   # and then the thumbnails an interrupted add left unmade
        from fieldstudio.media import inventory, thumbnails

        missing = inventory.unfinished_media(project).without_thumbnail
        if missing:
            return ThumbnailsMade(thumbnails.make_thumbnails(project, missing, cancelled=kwargs["cancelled"]), missing)
    return step


def _read_next_page(project, skip, reading):  # noqa: ANN001, ANN202
    from fieldstudio.media import document_ocr, ocr

    try:
        done = document_ocr.read_next_page(
            project, skip, started=lambda page, left: reading(f"{page.file_name} page {page.page_number + 1}", left))
    except ocr.OcrUnavailable as exc:
        return OcrStopped(str(exc))
    return None if done is None else PageReadStep(done)


class PageReadStep:
    """The indexer's step after the videos: one scanned page read by OCR (``read``: document_ocr.PageRead)."""

    def __init__(self, read):  # noqa: ANN001
        self.read = read


class OcrStopped(str):
    """OCR cannot run here (the reason): the indexer reads no more pages until the project is opened again."""


class ThumbnailsMade(int):
    """The indexer's last step: how many missing thumbnails it made (the library shows them); ``media_ids``: the
    media it made them for (some may have failed: those rows are drawn again for nothing)."""

    media_ids: tuple[str, ...] = ()

    def __new__(cls, made: int, media_ids: Iterable[str] = ()):  # noqa: ANN204 - int subclass
        self = super().__new__(cls, made)
        self.media_ids = tuple(media_ids)
        return self


class IndexingStatus(QWidget):
    """The status bar's indexing line: what is being indexed, how far, and a Pause/Resume button."""

    def __init__(self, indexer: BackgroundIndexer, parent: QWidget | None = None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel("")
        self.label.setObjectName("indexing_label")
        self.label.setToolTip("Frame indexing of the project's videos, one at a time in the background: the packet "
                              "index first (from the container, so each video opens at once), then the decoded "
                              "index that verifies it")
        self.button = QToolButton()
        self.button.setObjectName("indexing_pause")
        self.button.setAutoRaise(True)
        self.button.clicked.connect(lambda: indexer.resume() if indexer.paused else indexer.pause())
        lay.addWidget(self.label)
        lay.addWidget(self.button)
        indexer.text_changed.connect(self._show)
        self._show("", False)

    def _show(self, text: str, paused: bool) -> None:
        self.label.setText(text)
        self.button.setText("Resume" if paused else "Pause")
        self.button.setToolTip("Resume indexing" if paused else "Pause indexing (the video in progress starts again "
                               "on resume)")
        self.setVisible(bool(text))


class BackgroundIndexer(QObject):
    """Indexes the videos of one project in the background until every one is ready (or failed).

    Signals: ``text_changed(text, paused)`` for the status line (empty when there is nothing to do);
    ``indexed(step)`` with the ``video_index.IndexStep`` of each video done.
    """

    text_changed = Signal(str, bool)
    indexed = Signal(object)
    thumbnails_made = Signal(object)  # ThumbnailsMade: how many (an int) and for which media (``media_ids``)
    page_read = Signal(str)  # media id of a document whose scanned page OCR has just read
    _started = Signal(str, str, bool)  # from the worker thread: media id, file name, packet stage
    _reading = Signal(str, int)  # from the worker thread: "file page N" read by OCR now, pages left

    def __init__(self, project, parent: QObject | None = None):  # noqa: ANN001 - Project
        super().__init__(parent)
        self.project = project
        self.paused = False
        self.prefer: str | None = None
        self._worker: workers.Worker | None = None
        self._idle = threading.Event()
        self._idle.set()
        self._stopped = False
        self._current = ("", True)  # file name, packet stage
        self._counts: dict[str, int] = {}
        self._percent = 0
        self._started.connect(self._on_started)
        self._reading.connect(self._on_reading)
        self._ocr_skip: set[tuple[str, int]] | None = set()  # pages that failed; None: OCR cannot run here
        # a pool of its own: its thread keeps the lower priority, and other work never waits behind indexing
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)

    # --- control ---------------------------------------------------------------------------------
    def start(self) -> None:
        """Index whatever needs it (again after new videos were added); a no-op while paused or busy."""
        if self._stopped or self.paused or self._worker is not None or self.project.read_only:
            return
        self._idle.clear()
        worker = workers.Worker(_index_next_gently, self.project, self.prefer, self._idle, started=self._started.emit,
                                ocr_skip=None if self._ocr_skip is None else set(self._ocr_skip),
                                reading=self._reading.emit)
        worker.signals.progress.connect(self._on_progress)
        worker.signals.result.connect(self._on_result)
        worker.signals.error.connect(self._on_error)
        self._worker = workers.start(worker, self._pool)

    def pause(self) -> None:
        """Stop after the next check of the video in progress; it starts again from its beginning on resume."""
        self.paused = True
        if self._worker is not None:
            self._worker.cancel()
        self._emit_text()

    def resume(self) -> None:
        self.paused = False
        self.start()
        self._emit_text()

    def stop(self, timeout_s: float = 15.0, *, wait: bool = True) -> threading.Event:
        """Cancel the work and wait for the worker to let go of the project (before it is closed); returns the
        event set once it has. ``wait`` False: return at once (the caller closes the project on a worker, after
        that event: a video's check in progress took up to 400 ms to end, on the GUI thread)."""
        self._stopped = True
        # a stopped indexer starts no more work; its status line stays (on the welcome screen, or until the next
        # project's replaces it) and held it, so the project closed was kept with its engines
        self.project = None
        if self._worker is not None:
            self._worker.cancel()
        if wait and not self._idle.wait(timeout_s):
            log.warning("background indexing did not stop within %.0f s", timeout_s)
        return self._idle

    # --- results ---------------------------------------------------------------------------------
    def _on_started(self, _media_id: str, file_name: str, packets: bool) -> None:
        self._current, self._percent = (file_name, packets), 0
        self._emit_text()

    def _on_reading(self, what: str, left: int) -> None:
        self._current, self._percent = (what, None), 0
        self._emit_text()

    def _on_progress(self, done: int, total: int) -> None:
        percent = int(100 * done / total) if total else 0
        if percent != self._percent:
            self._percent = percent
            self._emit_text()

    def _on_result(self, step) -> None:  # noqa: ANN001 - video_index.IndexStep or None
        self._worker = None
        if self._stopped:
            return
        if isinstance(step, ThumbnailsMade):
            if step:
                self.thumbnails_made.emit(step)
            step = None
        if isinstance(step, OcrStopped):
            log.warning("scanned pages are not read: %s", step)
            self._ocr_skip = None
            self.start()  # the thumbnails may still be due
            return
        if isinstance(step, PageReadStep):
            if step.read.error:
                log.warning("OCR of %s page %d: %s", step.read.page.file_name, step.read.page.page_number + 1,
                            step.read.error)
                self._ocr_skip.add((step.read.page.media_id, step.read.page.page_number))
            else:
                self.page_read.emit(step.read.page.media_id)
            self.start()
            return
        if step is None:  # nothing left
            self._current = ("", True)
            self._emit_text(done=True)
            return
        self._counts = step.counts
        if step.status != "interrupted":
            self.indexed.emit(step)
        if step.error:
            log.warning("indexing %s: %s", step.file_name, step.error)
        self.start()

    def _on_error(self, message: str) -> None:
        self._worker = None
        log.error("background indexing stopped: %s", message)
        self.text_changed.emit(f"indexing stopped: {message}", False)

    def _emit_text(self, *, done: bool = False) -> None:
        c = self._counts
        total = sum(c.values())
        if done or (not self.paused and not self._current[0]):
            self.text_changed.emit("", False)
            return
        name, packets = self._current
        if packets is None:  # a scanned page being read
            self.text_changed.emit("Indexing paused" if self.paused else f"Reading text (OCR): {name}", self.paused)
            return
        counts = (f"{c.get('packets', 0) + c.get('ready', 0)} of {total} videos viewable, "
                  f"{c.get('ready', 0)} verified") if total else ""
        if self.paused:
            self.text_changed.emit("Indexing paused" + (f": {counts}" if counts else ""), True)
            return
        stage = "packet index" if packets else "decoded index (verifying)"
        self.text_changed.emit(f"Indexing: {counts + ' · ' if counts else ''}{name}: {stage} {self._percent} %", False)
