"""The profile editor shows and saves a profile's overall deadline and reply size cap."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt

from fieldstudio.gui.panels.model_profiles import ModelProfilesDialog
from fieldstudio.inference import profiles


def _new_profile_form(qtbot) -> ModelProfilesDialog:
    """The profiles dialog on screen with New clicked (keep it referenced while its editor is used)."""
    dialog = ModelProfilesDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.mouseClick(dialog.editor.new_button, Qt.MouseButton.LeftButton)
    return dialog


def test_deadline_and_reply_cap_are_edited_and_saved(qtbot):
    dialog = _new_profile_form(qtbot)
    editor = dialog.editor
    assert editor.deadline.value() == profiles.DEFAULT_DEADLINE_S          # the defaults a new profile gets
    assert editor.max_reply.value() * 1000 == profiles.DEFAULT_MAX_REPLY_BYTES
    qtbot.keyClicks(editor.name, "slow-server")
    qtbot.keyClicks(editor.base_url, "http://127.0.0.1:9/v1")
    qtbot.keyClicks(editor.model_id, "m")
    for box, typed in ((editor.deadline, "45"), (editor.max_reply, "250")):
        box.selectAll()
        qtbot.keyClicks(box.lineEdit(), typed)
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    saved = profiles.get_profile("slow-server")
    assert (saved.deadline_s, saved.max_reply_bytes) == (45.0, 250_000)
    assert "deadline_s" in profiles.profiles_path().read_text()


def test_cost_per_hour_and_request_size_are_edited_and_saved(qtbot):
    dialog = _new_profile_form(qtbot)
    editor = dialog.editor
    assert editor.max_request.text() == "no limit" and editor.cost_per_hour.text() == ""
    qtbot.keyClicks(editor.name, "local-gpu")
    qtbot.keyClicks(editor.base_url, "http://127.0.0.1:9/v1")
    qtbot.keyClicks(editor.model_id, "m")
    editor.price_in.clear()
    editor.price_out.clear()
    qtbot.keyClicks(editor.cost_per_hour, "1.8")
    editor.max_request.selectAll()
    qtbot.keyClicks(editor.max_request.lineEdit(), "20000")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    saved = profiles.get_profile("local-gpu")
    assert (saved.cost_per_hour_usd, saved.max_request_bytes) == (1.8, 20_000_000)


def test_the_privacy_gate_defaults_to_blur_faces_off_this_machine_and_is_saved(qtbot):
    dialog = _new_profile_form(qtbot)
    editor = dialog.editor
    qtbot.keyClicks(editor.name, "hosted")
    qtbot.keyClicks(editor.base_url, "https://api.example.com/v1")
    qtbot.keyClicks(editor.model_id, "vlm")
    assert editor.privacy.mode.currentData() == "blur-faces"
    assert "not on this machine: the default is blur faces" in editor.privacy.note.text()
    editor.base_url.clear()
    qtbot.keyClicks(editor.base_url, "http://192.168.1.7:8000/v1")
    assert editor.privacy.mode.currentData() == "blur-faces"          # a LAN address is local once it is listed
    qtbot.keyClicks(editor.privacy.ranges, "192.168.1.0/24")
    assert editor.privacy.mode.currentData() == "send-as-is"
    editor.privacy.mode.setCurrentIndex(editor.privacy.mode.findData("local-only"))
    editor.privacy.mode.activated.emit(editor.privacy.mode.currentIndex())   # as the user's pick
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    saved = profiles.get_profile("hosted")
    assert (saved.privacy, saved.lan_ranges) == ("local-only", ["192.168.1.0/24"])
    editor.select("hosted")
    assert editor.privacy.mode.currentData() == "local-only" and editor.privacy.ranges.text() == "192.168.1.0/24"


def test_a_lan_range_as_wide_as_the_internet_is_not_saved(qtbot):
    dialog = _new_profile_form(qtbot)
    editor = dialog.editor
    for field, typed in ((editor.name, "wide"), (editor.base_url, "http://192.168.1.7:8000/v1"),
                         (editor.model_id, "vlm"), (editor.privacy.ranges, "0.0.0.0/0")):
        qtbot.keyClicks(field, typed)
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert "Not saved" in editor.result.toPlainText() and "'0.0.0.0/0' is not a private" in editor.result.toPlainText()
    assert "wide" not in {p.name for p in profiles.load_profiles()}


def test_also_blurring_whole_people_is_a_blur_faces_choice_and_is_saved(qtbot):
    dialog = _new_profile_form(qtbot)
    editor = dialog.editor
    qtbot.keyClicks(editor.name, "hosted-bodies")
    qtbot.keyClicks(editor.base_url, "https://api.example.com/v1")
    qtbot.keyClicks(editor.model_id, "vlm")
    assert editor.privacy.bodies.isEnabled() and not editor.privacy.bodies.isChecked()
    assert "people's bodies are not blurred" in editor.privacy.note.text()
    qtbot.mouseClick(editor.privacy.bodies, Qt.MouseButton.LeftButton)
    assert "whole people are blurred too" in editor.privacy.note.text()
    if shots := os.environ.get("FS_SHOTS"):
        from PySide6.QtWidgets import QScrollArea

        dialog.findChild(QScrollArea).ensureWidgetVisible(editor.privacy.note)
        dialog.grab().save(f"{shots}/profile_blur_bodies.png")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert profiles.get_profile("hosted-bodies").privacy_bodies is True
    editor.select("hosted-bodies")
    assert editor.privacy.bodies.isChecked()
    editor.privacy.mode.setCurrentIndex(editor.privacy.mode.findData("send-as-is"))
    editor.privacy.mode.activated.emit(editor.privacy.mode.currentIndex())
    assert not editor.privacy.bodies.isEnabled() and not editor.privacy.blur_bodies()   # nothing to blur
