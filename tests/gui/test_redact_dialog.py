"""File ▸ Redact media for sharing writes the blurred copies in the background and says what it wrote."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QMessageBox

from fieldstudio.media.images import read_image
from tests.support.face_photos import MARKED_FACES, lbp_faces, overlaps, write_sample


def test_the_menu_entry_writes_blurred_copies_and_reports_them(empty_window, qtbot, tmp_path, monkeypatch):
    photo = write_sample(tmp_path, "astronaut")
    out = tmp_path / "shared"
    out.mkdir()
    told: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(photo)], ""))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: told.append(text))
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: told.append("FAILED " + text))
    action = empty_window.findChild(type(empty_window.actions["quit"]), "redact_action")
    action.trigger()
    qtbot.waitUntil(lambda: bool(told), timeout=30_000)
    assert told[0].startswith(f"1 blurred copy written to {out} (face detector centerface sha256:")
    assert "astronaut_redacted.png: 1 face(s) blurred in 1 frame(s)" in told[0]
    copy = read_image(out / "astronaut_redacted.png")
    assert not any(overlaps(f, MARKED_FACES["astronaut"][0]) for f in lbp_faces(copy))
