"""Behaviour coding in the window: Annotate ▸ Ethogram…, coding by key, the Behaviour dock and the lanes.

While Annotate ▸ Code behaviours by key is on, a key of the ethogram pressed on the Media tab (no Ctrl / Alt, not
in a text field) is taken before the window's shortcuts: a subject's key makes it the current subject (again:
no focal subject), a behaviour's key records it through ``annotations.behaviour.coding.code_behaviour`` on the
frame on screen: paused or stepped, ``ViewState.video_frame()`` (the exact frame whose PTS the status bar shows);
while libVLC plays, first the frame of the picture drawn last (``VideoController.played_frame``: libVLC's pictures
carry no PTS, so it is the frame the playback clock had reached when that picture was drawn; the state's frame
follows it only every 0.1 s), marked "clock"; then that picture, kept at the key press, is matched to the exact
frames around the estimate on a worker and the event moved to the frame it shows
(``gui.played_frame_correction``, a separate undo step "Frame corrected"). A behaviour with
modifiers asks for one in a small menu at the pointer when it starts or is recorded (Esc: none). Each key is one
undoable edit on the viewer's undo stack. Keys that are not in the ethogram keep their usual meaning.

The lanes: one per subject under the timeline's label lanes, state events as bars and point events as ticks in
their behaviour's colour (rows added where a subject's states overlap).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QCursor
from PySide6.QtWidgets import (QAbstractSpinBox, QApplication, QComboBox, QDockWidget, QLineEdit, QMenu,
                               QPlainTextEdit, QTextEdit)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.imaging import rgb_from_qimage
from fieldstudio.gui.played_frame_correction import PlayedFrameCorrection

if TYPE_CHECKING:
    from fieldstudio.gui.panels.behaviour_panel import BehaviourPanel
    from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
    from fieldstudio.annotations.behaviour.coding import KeyRecord
    from fieldstudio.annotations.behaviour.ethogram import Behaviour, Ethogram
    from fieldstudio.gui.timeline import Lane

_TYPING = (QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit)
# measured by benchmarks/bench_behaviour.py (a barcode clip, the frame read back from the picture on show)
PLAYING_BOUND = ("The ethogram's keys record behaviours on the frame shown. Paused or stepping: exactly that frame. "
                 "While the video plays, libVLC's pictures carry no time stamp: the event is recorded at once on the "
                 "playback clock's frame, then moved to the frame whose pixels match the picture that was on show "
                 "(searched 12 frames either side; a separate undo step \"Frame corrected\"). Where no frame "
                 "matches clearly, it stays on the clock's frame, shown \"(clock)\" in the Events list")
MAX_RECENT_CODERS = 10


def behaviour_lanes(events: list[BehaviourEvent], ethogram: Ethogram, last_frame: int) -> list[Lane]:
    """The timeline's lanes of ``events``: one per subject (in the ethogram's order, then by name), each state
    event a bar and each point event a tick in its behaviour's colour; overlapping states of a subject take
    further rows (a running state reaches ``last_frame``)."""
    by_subject = events_by_subject(events)
    return [lane for subject in subject_order(by_subject, ethogram)
            for lane in subject_lanes(subject, by_subject[subject], ethogram, last_frame)]


def events_by_subject(events: list[BehaviourEvent]) -> dict[str, list[BehaviourEvent]]:
    """``events`` grouped by subject, each group in the order given."""
    out: dict[str, list[BehaviourEvent]] = {}
    for e in events:
        out.setdefault(e.subject, []).append(e)
    return out


def subject_order(subjects, ethogram: Ethogram) -> list[str]:  # noqa: ANN001 - Iterable[str]
    """The subjects in the lanes' order: the ethogram's, then the others by name."""
    order = {s.name: n for n, s in enumerate(ethogram.subjects)}
    return sorted(subjects, key=lambda s: (order.get(s, len(order)), s))


def subject_lanes(subject: str, mine: list[BehaviourEvent], ethogram: Ethogram, last_frame: int,
                  made: dict | None = None) -> list[Lane]:
    """The lanes of one subject's events ``mine`` (see ``behaviour_lanes``). ``made``: the markers made before,
    {event id: (the event object, its marker)}, kept by the caller for one ethogram: an event object met again
    (``is``, as events are frozen) reuses its marker (a key press lays out a subject's thousand events again and
    changes one; a frozen dataclass costs about 2 us to make), and the markers made now are put in it."""
    from fieldstudio.gui.timeline import EventMarker, Lane, SegmentMarker, pack_rows

    colour = {b.name: b.colour for b in ethogram.behaviours}
    made = {} if made is None else made
    bars, ticks_ = [], []
    for e in mine:
        hit = made.get(e.id)
        if hit is not None and hit[0] is e:
            marker = hit[1]
        elif e.type == "point":
            marker = EventMarker(e.frame_index, colour.get(e.behaviour, "#9aa0a6"), e.behaviour)
            made[e.id] = (e, marker)
        else:
            # a bar covers its frames up to the one it stops on, which is where the next state of the subject starts
            marker = SegmentMarker(e.frame_index, None if e.is_open else max(e.frame_index, e.end_frame_index - 1),
                                   colour.get(e.behaviour, "#9aa0a6"), e.behaviour)
            made[e.id] = (e, marker)
        (ticks_ if e.type == "point" else bars).append(marker)
    rows = pack_rows(bars, last_frame)
    ticks = tuple(ticks_)
    return [Lane(subject or "no subject", "#000000", i, tuple(row), ticks if i == 0 else (),
                 heading=subject or "no subject") for i, row in enumerate(rows or [[]])]


class BehaviourCoding(QObject):
    """The window's behaviour coding: the menu entries, the key filter, the Behaviour dock and the lanes.

    ``coding`` (Annotate ▸ Code behaviours by key), ``subject`` (the current subject, "" for none) and ``coder``
    (who the events are recorded for: the dock's Coder chooser, ``choose_coder``) are what the keys use.
    ``choose_modifiers(behaviour)`` asks for a modifier (tests replace it).
    """

    def __init__(self, window):  # noqa: ANN001 - MainWindow
        super().__init__(window)
        self.window, self.state = window, window.state
        self.subject = ""
        self._coder: str | None = None
        self._panel: BehaviourPanel | None = None  # built with the first project, not during the cold start
        self._follow_pending = False  # a project was shown and the dock and lanes have not followed it yet
        self.dock = QDockWidget("Behaviour", window)
        self.dock.setObjectName("behaviour_dock")
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        window.tabifyDockWidget(window.properties_dock, self.dock)
        window.properties_dock.raise_()
        self._ethogram: Ethogram | None = None
        self.coding_action = QAction("&Code behaviours by key", window)
        self.coding_action.setCheckable(True)
        self.coding_action.setToolTip(PLAYING_BOUND)
        self.coding_action.toggled.connect(self.set_coding)
        self._add_menu(window.annotate_menu)
        self.state.events.media.connect(lambda _m: self.follow())
        self.state.events.project.connect(self._project_changed)
        # an edit re-reads only the events it touched (annotations.edits.annotation_ids_of), an edit that does not
        # say (the ethogram, a batch) everything
        window.annotator.edited.connect(self._edited)
        window.annotator.marks.markers_changed.connect(lambda *_a: self.show_lanes())
        self._lanes: dict[str, list[Lane]] | None = None  # per subject, None: to be laid out again
        self._markers: dict = {}  # subject_lanes' markers made, for the ethogram read (emptied with it)
        self._read_back: KeyRecord | None = None  # the key press being pushed: its events as its commit stored them
        self.correction = PlayedFrameCorrection(window)
        window.view_menu.addAction(self.dock.toggleViewAction())

    def _add_menu(self, menu: QMenu) -> None:
        menu.addSeparator()
        for text, tip, slot in (
                ("&Ethogram…", "Behaviours (key, colour, state or point, exclusive group, modifiers) and subjects",
                 self.edit_ethogram),
                (None, None, None),
                ("Import &BORIS events…", "BORIS's tabular events (CSV / TSV) onto the video shown, as one coder's",
                 self.import_events_dialog),
                ("Export behaviour e&vents…", "The video's events as BORIS's tabular events (.csv, .tsv), the sheet "
                 "BORIS imports into an observation (.xlsx) or ELAN's tab-delimited text (.txt)",
                 self.export_events_dialog),
                ("Time &budget", "The Behaviour dock's time budget of the video shown",
                 lambda: self.show_tab(1)),
                ("Compare &coders…", "Cohen's kappa per time slice and events matched within a tolerance",
                 lambda: self.show_tab(2))):
            if text is None:
                menu.addAction(self.coding_action)
                continue
            action = menu.addAction(text)
            action.setToolTip(tip)
            # triggered(bool) would arrive as the slots' optional `path` (False): each is called with nothing
            action.triggered.connect(lambda _checked=False, slot=slot: slot())

    @property
    def panel(self) -> BehaviourPanel:
        """The Behaviour dock's panel (built on first use)."""
        if self._panel is None:
            from fieldstudio.gui.panels.behaviour_panel import BehaviourPanel

            self._panel = BehaviourPanel(self.window.annotator.apply_or_raise)
            self._panel.open_frame.connect(self.state.request_frame)
            self._panel.status.connect(self.window.notify)
            self._panel.coder_chosen.connect(self.choose_coder)
            self.dock.setWidget(self._panel)
        return self._panel

    # --- state -----------------------------------------------------------------------------------
    def ethogram(self) -> Ethogram:
        from fieldstudio.annotations.behaviour import ethogram as eth

        if self._ethogram is None:
            self._ethogram = eth.load(self.state.project) if self.state.project is not None else eth.Ethogram()
        return self._ethogram

    def _project_changed(self, _project: object) -> None:
        self.correction.close()
        self._ethogram = None
        self.subject = ""
        self.coding_action.setChecked(False)  # coding is a choice made on one project's ethogram
        # the dock (built with the first project, behind the Properties tab) and the lanes follow in the next turn of
        # the event loop, unless a media shown first made them follow: the same turn as the other parts made the
        # slice that shows a 500-video project 40-70 ms of the GUI thread's time at load 3-5 (issue 37)
        self._follow_pending = True
        self._lanes = None  # an edit meanwhile reads everything again (the dock still shows the last project's)
        QTimer.singleShot(0, self, lambda: self._follow_pending and self.follow())

    def follow(self) -> None:
        """The media, project or ethogram changed: the dock and the lanes read everything again."""
        self._follow_pending = False
        self._ethogram = None
        self._lanes = None
        self._markers = {}
        if self.state.project is None and self._panel is None:
            return
        self.panel.choose(self.coder)  # before reading: the table and the lanes show this coder's events
        self.panel.set_video(self.state.project, self.state.media)
        self.show_lanes()
        self._offer_coders()
        self._describe()

    def _edited(self, edit: object) -> None:
        """An edit was done, undone or redone: the events it touched are read again, and the lanes of their
        subjects laid out again (a key press with thousands of events coded stays within a frame's time)."""
        from fieldstudio.annotations.edits import annotation_ids_of

        ids = annotation_ids_of(edit)
        if ids is None or self._panel is None or self._lanes is None:
            self.follow()
            return
        key = self._read_back
        subjects = self.panel.update_events(ids, key.events if key is not None and key.edit is edit else None)
        if not subjects:
            return
        mine = events_by_subject(self.panel.coder_events_of(subjects))
        for subject in subjects:
            self._lanes.pop(subject, None)
            if subject in mine:
                self._lanes[subject] = subject_lanes(subject, mine[subject], self.ethogram(), self._last_frame(),
                                                     self._markers)
        self.show_lanes()

    def _last_frame(self) -> int:
        media = self.state.media
        return max((media.frame_count or 1) - 1, 0) if media is not None else 0

    def show_lanes(self) -> None:
        """The lanes under the timeline: laid out per subject once, then only a changed subject's again."""
        timeline = self.window.view.timeline
        media = self.state.media
        if self.state.project is None or media is None or media.kind != "video" or self._panel is None:
            timeline.set_behaviour_lanes([])
            return
        if self._lanes is None:
            by_subject = events_by_subject(self.panel.coder_events)
            self._lanes = {s: subject_lanes(s, mine, self.ethogram(), self._last_frame(), self._markers)
                           for s, mine in by_subject.items()}
        order = subject_order(self._lanes, self.ethogram())
        timeline.set_behaviour_lanes([lane for s in order for lane in self._lanes[s]])

    def set_coding(self, on: bool) -> None:
        if self.coding_action.isChecked() != on:
            self.coding_action.setChecked(on)
            return
        # the window-wide key filter only while coding: installed for good, every event of the application
        # went through Python, and the first ones made PySide create ~66 enum types (5-7 ms of the cold start)
        if on:
            QApplication.instance().installEventFilter(self)
        else:
            QApplication.instance().removeEventFilter(self)
        self._describe()
        if on and not any(b.key for b in self.ethogram().behaviours):
            self.window.notify("the ethogram has no behaviour with a key yet: Annotate ▸ Ethogram…")
        elif on:
            self.window.notify("coding behaviours: " + ", ".join(f"{b.key} {b.name}" for b in self.ethogram()
                                                                 .behaviours if b.key))

    @property
    def coder(self) -> str:
        """Who the keys record events for: the Coder chooser's name (the one chosen last, kept in the user's
        settings), else ``$FIELDSTUDIO_USER`` or the login name (read when first needed: the store is not
        imported during the window's cold start)."""
        if self._coder is None:
            from fieldstudio.core import user_settings
            from fieldstudio.gui import settings
            from fieldstudio.store.changes import current_user

            recent = settings.get(user_settings.CODERS)
            self._coder = recent[0] if recent else current_user()
        return self._coder

    def choose_coder(self, name: str) -> None:
        """The Behaviour dock's Coder chooser: the keys record ``name``'s events from now on (kept first among the
        recent coders); the keys go back to the video."""
        from fieldstudio.core import user_settings
        from fieldstudio.gui import settings

        name = name.strip()
        if not name:
            self._offer_coders()
            return
        self._coder = name
        recent = [name, *[c for c in settings.get(user_settings.CODERS) if c != name]][:MAX_RECENT_CODERS]
        settings.set(user_settings.CODERS, recent)
        self._offer_coders()
        self._lanes = None  # the lanes show the chosen coder's events
        self.show_lanes()
        self._describe()
        self.window.notify(f"coder: {name} (the keys record {name}'s events)")
        self.window.view.canvas.setFocus()

    def _offer_coders(self) -> None:
        from fieldstudio.core import user_settings
        from fieldstudio.gui import settings

        if self._panel is None:
            return
        names = list(dict.fromkeys([self.coder, *settings.get(user_settings.CODERS), *self.panel.video_coders]))
        self.panel.offer_coders(names, self.coder)

    @property
    def coding(self) -> bool:
        return self.coding_action.isChecked()

    def _describe(self) -> None:
        if self.state.project is None:
            if self._panel is not None:
                self._panel.set_coding_line("")
            return
        self.panel.set_coding_line(
            f"Keys {'code behaviours' if self.coding else 'do not code (Annotate ▸ Code behaviours by key)'}"
            f" · subject: {self.subject or 'none'} · coder: {self.coder}")

    def show_tab(self, index: int) -> None:
        self.dock.show()
        self.dock.raise_()
        self.panel.tabs.setCurrentIndex(index)
        if index == 1:
            self.panel.show_budget()

    # --- keys ------------------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) or not self.coding:
            return False
        item = self._key_item(event)
        if item is None:
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the key comes as a key press instead of triggering the window's shortcut
            return True
        self.press(event.text())
        return True

    def _key_item(self, event: QEvent):  # noqa: ANN202 - Behaviour | Subject | None
        mods = event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                                    | Qt.KeyboardModifier.MetaModifier)
        text = event.text()
        if mods or len(text) != 1 or not text.isprintable() or text.isspace():
            return None
        if self.window.modes.currentIndex() != 0 or QApplication.activeModalWidget() is not None:
            return None
        focus = QApplication.focusWidget()
        if isinstance(focus, _TYPING) or (isinstance(focus, QComboBox) and focus.isEditable()):
            return None
        if not self.window.isActiveWindow() and QApplication.activeWindow() is not None:
            return None
        media = self.state.media
        if self.state.project is None or media is None or media.kind != "video":
            return None
        return self.ethogram().by_key(text)

    def press(self, key: str) -> str | None:
        """What the key ``key`` does while coding (the frame is the one on screen now); the message shown."""
        from fieldstudio.annotations.behaviour import coding
        from fieldstudio.annotations.behaviour.ethogram import Subject

        # taken before a modifier menu opens: the frame of the key press; while libVLC plays, the picture drawn
        # last (the state's frame follows it only every 0.1 s)
        frame = self.state.video_frame()
        video = getattr(self.window.view, "video", None)
        played = video.played_frame() if video is not None and video.playing else None
        picture = None
        if played is not None and frame is not None:
            frame = played
            shown = self.window.view.canvas.video_item.image()  # libVLC's picture on show
            picture = None if shown.isNull() else rgb_from_qimage(shown)
        media, project = self.state.media, self.state.project
        item = self.ethogram().by_key(key)
        if item is None or frame is None or media is None or project is None:
            return None
        if isinstance(item, Subject):
            self.subject = "" if self.subject == item.name else item.name
            self._describe()
            message = f"subject: {self.subject or 'none (no focal subject)'}"
            self.window.notify(message)
            return message
        modifiers: tuple[str, ...] = ()
        if item.modifiers and coding.starts_or_records(project, item, media.id, subject=self.subject,
                                                       coder=self.coder):
            modifiers = self.choose_modifiers(item)
        try:
            # one store session and one commit: the check, the insert and the read-back of what it touched
            key = coding.record_key(project, self.ethogram(), media.id, item.name, frame, subject=self.subject,
                                    modifiers=modifiers, coder=self.coder,
                                    found="clock" if picture is not None else "")
        except FieldstudioError as exc:
            self.window.notify(str(exc))
            return str(exc)
        edit, message = key.edit, key.message
        self._read_back = key
        try:
            self.window.annotator.push_done(edit)  # the dock takes the events read back (``_edited``)
        finally:
            self._read_back = None
        if picture is not None:
            self.correction.submit(project, media, edit, frame, picture)
        self.window.notify(message)
        return message

    def choose_modifiers(self, behaviour: Behaviour) -> tuple[str, ...]:
        """A menu of ``behaviour``'s modifiers at the pointer: the one chosen, or none (Esc or "(none)")."""
        menu = QMenu(self.window)
        menu.setObjectName("modifier_chooser")
        for n, name in enumerate(behaviour.modifiers, start=1):
            action = menu.addAction(f"&{n}  {name}" if n < 10 else name)
            action.setData(name)
        menu.addSeparator()
        menu.addAction("(none)").setData("")
        chosen = menu.exec(QCursor.pos())
        return (chosen.data(),) if chosen is not None and chosen.data() else ()

    # --- dialogs ---------------------------------------------------------------------------------
    def edit_ethogram(self) -> None:
        """Annotate ▸ Ethogram…"""
        from fieldstudio.gui.ethogram_dialog import edit_ethogram

        if self.state.project is None:
            self.window.notify("open a project first")
            return
        if edit_ethogram(self.window, self.state.project, self.window.annotator.apply_or_raise):
            self.follow()

    def import_events_dialog(self, path: str | None = None) -> None:
        """Annotate ▸ Import BORIS events…: onto the video shown, as the events of a coder named after the file
        (``obs_bob.csv``: coder ``obs_bob``), so they can be compared with the window's own coder."""
        from pathlib import Path

        from PySide6.QtWidgets import QFileDialog

        from fieldstudio.annotations.behaviour import observations

        media = self.state.media
        if self.state.project is None or media is None or media.kind != "video":
            self.window.notify("show the video the events belong to first")
            return
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.window, "BORIS tabular events", "",
                                                  "BORIS events (*.csv *.tsv *.txt);;All files (*)")
            if not path:
                return
        coder = Path(path).stem
        try:
            report = observations.import_events(self.state.project, media.id, Path(path), coder=coder)
            if report.edit is not None:
                self.window.annotator.apply_or_raise(report.edit)
        except FieldstudioError as exc:
            self.window.notify(str(exc))
            return
        self.window.notify(f"coder {coder}: " + "; ".join(report.lines()))
        self.follow()

    def export_events_dialog(self, path: str | None = None) -> None:
        """Annotate ▸ Export behaviour events…: the chosen coder's (one observation per file); the format follows
        the suffix (.csv, .tsv: BORIS's tabular events; .xlsx: the sheet BORIS imports; .txt: ELAN)."""
        from pathlib import Path

        from PySide6.QtWidgets import QFileDialog

        from fieldstudio.annotations.behaviour import observations

        media = self.state.media
        if self.state.project is None or media is None or media.kind != "video":
            self.window.notify("show the video whose events to export first")
            return
        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self.window, "Export behaviour events", f"{Path(media.file_name).stem}.csv",
                "BORIS tabular events (*.csv);;BORIS tabular events (*.tsv);;"
                "BORIS sheet for Import observations (*.xlsx);;ELAN tab-delimited text (*.txt)")
            if not path:
                return
        suffix = Path(path).suffix.lower()
        fmt = {".tsv": "boris-tsv", ".xlsx": "boris-xlsx", ".txt": "elan"}.get(suffix, "boris-csv")
        try:
            written, running = observations.export_events(self.state.project, media.id, Path(path), fmt,
                                                           coder=self.coder)
        except (FieldstudioError, OSError) as exc:
            self.window.notify(str(exc))
            return
        self.window.notify(f"{written} event(s) of {self.coder} written to {Path(path).name}"
                           + (f"; {running} running state(s) left out" if running else ""))
