"""Every keyboard shortcut of the window in one table, and the dialog that lists and edits them.

The window builds its QActions from ``DEFAULTS``; a user's changes are stored in the settings file
(``core.user_settings.SHORTCUTS``: ``shortcuts/<action id>``) and applied at start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QWidget

from fieldstudio.core import user_settings
from fieldstudio.core.user_settings import Setting
from fieldstudio.gui import settings

if TYPE_CHECKING:
    from PySide6.QtWidgets import QKeySequenceEdit

# action id -> (menu text, default keys, tooltip)
DEFAULTS: dict[str, tuple[str, str, str]] = {
    "new_project": ("&New project…", "Ctrl+N", "Create an empty project file"),
    "open_project": ("&Open project…", "Ctrl+O", "Open a .fieldstudio project file"),
    "open_shared": ("Open s&hared project…", "Ctrl+Shift+O", "Open a project on a PostgreSQL server (a URL)"),
    "add_media": ("&Add media…", "Ctrl+I", "Add photos, videos and documents (files or a folder)"),
    "add_folder": ("Add &folder…", "Ctrl+Shift+I", "Add every media file below a folder"),
    "quit": ("&Quit", "Ctrl+Q", "Close the window; everything is already saved"),
    "play": ("Play / pause", "Space", "Play or pause the video"),
    "next_frame": ("Next frame", "Right", "One frame forward"),
    "prev_frame": ("Previous frame", "Left", "One frame back"),
    "next_second": ("Forward 1 s", "Shift+Right", "One second of PTS time forward"),
    "prev_second": ("Back 1 s", "Shift+Left", "One second of PTS time back"),
    "next_10s": ("Forward 10 s", "Ctrl+Right", "Ten seconds forward"),
    "prev_10s": ("Back 10 s", "Ctrl+Left", "Ten seconds back"),
    "shuttle_back": ("Shuttle back (J)", "J", "Play backwards; again: faster"),
    "shuttle_stop": ("Shuttle stop (K)", "K", "Pause"),
    "shuttle_fwd": ("Shuttle forward (L)", "L", "Play forwards; again: faster"),
    "first_frame": ("First frame", "Home", "Go to the video's first frame"),
    "last_frame": ("Last frame", "End", "Go to the video's last frame"),
    "prev_keyframe": ("Previous keyframe of the track", "[",
                      "Go to the previous keyframe of the selected box's or shape's track"),
    "next_keyframe": ("Next keyframe of the track", "]", "Go to the next keyframe of the selected box's or shape's track"),
    "go_to": ("&Go to time or frame…", "Ctrl+G", "Jump to a frame number or a time"),
    "loop_start": ("Loop start here", "Ctrl+[", "Start the loop range at this frame"),
    "loop_end": ("Loop end here", "Ctrl+]", "End the loop range at this frame"),
    "loop_toggle": ("Loop on/off", "Ctrl+L", "Repeat the loop range while playing"),
    "mute": ("Mute", "M", "Mute or unmute the sound"),
    "zoom_in": ("Zoom in", "+", "Zoom in (also Ctrl+wheel or the wheel)"),
    "zoom_out": ("Zoom out", "-", "Zoom out"),
    "zoom_fit": ("Fit to window", "Ctrl+0", "Show the whole image"),
    "zoom_1to1": ("Actual pixels (1:1)", "Ctrl+1", "One image pixel per screen pixel"),
    "timeline_zoom_in": ("Zoom timeline in", "Ctrl+=", "Show less time on the timeline"),
    "timeline_zoom_out": ("Zoom timeline out", "Ctrl+-", "Show more time on the timeline"),
    "next_media": ("Next media", "Ctrl+Down", "Open the next media in the library"),
    "prev_media": ("Previous media", "Ctrl+Up", "Open the previous media in the library"),
    "find": ("Find in document", "Ctrl+F", "Search the document's text"),
    "shortcuts": ("&Keyboard shortcuts…", "F1", "List and change the keyboard shortcuts"),
    "undo": ("&Undo", "Ctrl+Z", "Undo the last annotation edit (it is saved at once)"),
    "redo": ("&Redo", "Ctrl+Shift+Z", "Redo the edit last undone"),
    "select_tool": ("Select / pan", "Esc", "Select and move marks; drag the background to pan"),
    "box_tool": ("&Box tool", "B", "Draw boxes: drag a rectangle on the image"),
    "ruler_tool": ("&Ruler tool", "R", "Measure: drag from one point to another (metres once calibrated)"),
    "polygon_tool": ("&Polygon tool", "P", "Outline an area (a spill, a zone): click each corner; Enter or a "
                     "double-click closes it, Backspace takes the last corner back, Esc stops"),
    "polyline_tool": ("Poly&line tool", "Shift+P", "Draw a line through several points (a walkway edge): click each "
                      "point; Enter or a double-click ends it, Backspace takes the last back"),
    "points_tool": ("P&oints tool", "D", "Mark points: click each one; Enter or a double-click keeps them as one "
                    "mark, Backspace takes the last back"),
    "skeleton_tool": ("S&keleton tool", "Shift+D", "Place the skeleton label's template points in order (a person's "
                      "17 COCO body points unless the label has its own): S skips a hidden one, Enter keeps it"),
    "angle_tool": ("&Angle tool", "A", "Click a point of one arm, the vertex, then a point of the other arm: the angle in "
                   "degrees, on the floor when the floor calibration is in use, else in the image plane"),
    "calibrate": ("&Calibrate…", "C", "Click 2 ends of an object of known length; press C again for 4 floor corners"),
    "toggle_grid": ("Show floor &grid", "Shift+G", "Draw the calibrated floor plane's grid over the image"),
    "ask_label": ("&Ask the label of each new box", "", "A new box opens a label chooser at the pointer: Enter "
                  "keeps the current label, keys 1-9 pick one"),
    "delete_marks": ("&Delete selected", "Delete", "Delete the selected boxes, rulers and shapes"),
    "edit_mark": ("&Edit selected…", "F2", "Label, attributes and track of the selected box"),
    "copy_next": ("Copy to &next frame", "Ctrl+D", "Copy the selected boxes and shapes to the next frame and show it"),
    "make_keyframe": ("Make &keyframe", "Shift+K", "Turn the selected interpolated box or shape into a keyframe; "
                      "with none selected, key the last selected shape's track on this frame (extends it)"),
    "track_forward": ("&Track forward", "T", "Follow the selected box through the next frames (keyframes every "
                      "5 frames; stops when the target is lost or leaves the image)"),
    "track_backward": ("Track &backward", "Shift+T", "Follow the selected box through the frames before this one"),
    "trajectory": ("Tra&jectory of the selected track…", "Ctrl+J", "The selected box's track on the calibrated "
                   "floor: its path drawn, metres walked and speed per frame, a table to export"),
    "segment_start": ("Start segment (&I)", "I", "Start a segment of the current label on this frame"),
    "segment_end": ("End segment (&O)", "O", "End the open segment of the current label on this frame"),
    "event": ("Mark &event (E)", "E", "Mark an event of the current label on this frame"),
    "stopwatch_start": ("Stopwatch &start", "Alt+W", "Start a stopwatch on this frame; the status bar times the "
                        "frames shown after it"),
    "stopwatch_stop": ("Stopwatch st&op", "Alt+Shift+W", "Stop the stopwatch on this frame and keep the time "
                       "between the two frames (from their PTS) in the annotation list"),
    **{f"label_{k}": (f"Label {k}", str(k), f"Use label {k} of the active tool's list (boxes, rulers, segments "
                      "or events) and give it to the selected marks of that kind") for k in range(1, 10)},
    "labels": ("&Labels…", "Ctrl+Shift+L", "Edit the project's labels and their colours"),
    "read_text": ("&Read text here", "Ctrl+Shift+R", "Read the text in the selected box, or in the whole frame, "
                  "by OCR on this machine: copy it, or suggest it as a task's ground truth or a rating's field"),
    "detect_people": ("Detect &people…", "Ctrl+Shift+P", "Propose boxes around the people on the frame shown or a "
                      "frame range (OpenCV's HOG detector, on this machine); accept, reject or edit each (one undo)"),
    "import_annotations": ("Import a&nnotations…", "", "Boxes and tracks from COCO, YOLO, MOT or CVAT files (one undo)"),
    "export_annotations": ("&Export annotations…", "Ctrl+Shift+E", "COCO, YOLO, MOT, CVAT or CSV files"),
}


#: Defaults given up to another action: action id -> its old keys. The dialog stores every row when
#: OK is pressed, so a stored value equal to the old default was not a choice and reads as the new one
#: (the loop range gave [ and ] to the keyframe jumps).
MOVED_DEFAULTS = {"loop_start": "[", "loop_end": "]"}


def shortcut_setting(action_id: str) -> Setting[str]:
    """The user setting holding an action's keys, with the action's default keys."""
    return user_settings.SHORTCUTS.setting(action_id, DEFAULTS[action_id][1])


def _chosen_keys(action_id: str, value: str) -> str:
    return DEFAULTS[action_id][1] if MOVED_DEFAULTS.get(action_id) == value else value


def key_for(action_id: str) -> str:
    """The user's keys for an action (their change, else the default)."""
    return _chosen_keys(action_id, settings.get(shortcut_setting(action_id)))


def make_actions(parent: QWidget) -> dict[str, QAction]:
    """Every action of :data:`DEFAULTS` (id -> QAction, in its order) made by :func:`make_action`, added to
    ``parent``; the user's keys of all of them come from one read of the settings file."""
    ids = list(DEFAULTS)
    values = settings.get_all(shortcut_setting(aid) for aid in ids)
    return {aid: make_action(aid, parent, _chosen_keys(aid, value)) for aid, value in zip(ids, values, strict=True)}


def make_action(action_id: str, parent: QWidget, keys: str | None = None) -> QAction:
    """A QAction with its text, tooltip and shortcut, added to ``parent``: ``keys`` when given, else the user's
    keys read from the settings (:func:`key_for`)."""
    text, _default, tip = DEFAULTS[action_id]
    action = QAction(text, parent)
    action.setObjectName(action_id)
    if keys is None:
        keys = key_for(action_id)
    action.setShortcut(QKeySequence(keys))
    action.setToolTip(f"{tip} ({keys})" if keys else tip)
    action.setStatusTip(tip)
    parent.addAction(action)
    return action


class ShortcutsDialog(QDialog):
    """Lists every action with its keys; a cell edits them, saved when the dialog is accepted."""

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None):
        # imported here, not with the actions the window makes at start: QDialogButtonBox's class and enum types
        # alone are 10-14 ms of a cold start (issue 37)
        from PySide6.QtWidgets import (QDialogButtonBox, QHeaderView, QKeySequenceEdit, QLabel, QTableWidget,
                                       QTableWidgetItem, QVBoxLayout)

        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(560, 640)
        self.actions = actions
        self.table = QTableWidget(len(DEFAULTS), 2)
        self.table.setHorizontalHeaderLabels(["Action", "Keys"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.edits: dict[str, QKeySequenceEdit] = {}
        for row, (aid, (text, _default, tip)) in enumerate(DEFAULTS.items()):
            item = QTableWidgetItem(text.replace("&", "").rstrip("…"))
            item.setToolTip(tip)
            self.table.setItem(row, 0, item)
            edit = QKeySequenceEdit(QKeySequence(key_for(aid)))
            edit.setClearButtonEnabled(True)
            self.table.setCellWidget(row, 1, edit)
            self.edits[aid] = edit
        self.table.setColumnWidth(1, 180)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.RestoreDefaults)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(self.restore_defaults)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Click a cell and press the new keys. Changes apply when you press OK."))
        layout.addWidget(self.table)
        layout.addWidget(buttons)

    def restore_defaults(self) -> None:
        for aid, edit in self.edits.items():
            edit.setKeySequence(QKeySequence(DEFAULTS[aid][1]))

    def accept(self) -> None:
        chosen = {aid: edit.keySequence().toString() for aid, edit in self.edits.items()}
        settings.set_all({shortcut_setting(aid): keys for aid, keys in chosen.items()})
        for aid, keys in chosen.items():
            if aid in self.actions:
                self.actions[aid].setShortcut(QKeySequence(keys))
        super().accept()
