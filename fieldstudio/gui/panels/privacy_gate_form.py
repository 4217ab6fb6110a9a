"""The privacy gate's part of the model profile form: the mode, the LAN ranges counted as local, and a note saying
what the gate does for the endpoint typed (``blur faces`` is the default for an endpoint not on this machine)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QLineEdit, QWidget

from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.privacy import gate

_LABELS = {gate.BLUR_FACES: "Blur faces", gate.LOCAL_ONLY: "Local only", gate.SEND_AS_IS: "Send as is"}


class PrivacyGateForm:
    """Four form rows: "Privacy gate" (a choice), "Also blur whole people" (with blur faces), "LAN ranges" and the
    note. Until the user picks a mode, the choice
    follows the endpoint's default (`gate.default_mode`) as the base URL is typed."""

    def __init__(self, parent: QWidget | None = None):
        self.mode = QComboBox(parent)
        self.mode.setObjectName("privacy_gate")
        for mode, label in _LABELS.items():
            self.mode.addItem(label, mode)
            self.mode.setItemData(self.mode.count() - 1, gate.MODES[mode], 3)      # Qt.ToolTipRole
        self.bodies = QCheckBox("Also blur whole people", parent)
        self.bodies.setObjectName("privacy_bodies")
        self.bodies.setToolTip("With blur faces: also blur every person OpenCV's HOG people detector finds (boxes "
                               "and the detector's version kept with each answer; HOG misses people seen from "
                               "above or partly hidden)")
        self.ranges = QLineEdit(parent)
        self.ranges.setObjectName("lan_ranges")
        self.ranges.setPlaceholderText("counted as local, e.g. 192.168.1.0/24, 10.0.0.0/8")
        self.note = QLabel(parent)
        self.note.setObjectName("privacy_note")
        self.note.setWordWrap(True)
        self._url = ""
        self._chosen = False
        self.mode.activated.connect(self._picked)
        self.ranges.textChanged.connect(lambda _text: self._follow())
        self.bodies.toggled.connect(lambda _on: self._follow())

    def add_rows(self, form: QFormLayout) -> None:
        """Put the three rows at the end of `form`."""
        form.addRow("Privacy gate", self.mode)
        form.addRow("", self.bodies)
        form.addRow("LAN ranges", self.ranges)
        form.addRow("", self.note)

    def show_profile(self, profile: ModelProfile | None) -> None:
        """Show a stored profile's gate (None: a new profile, whose gate follows the base URL until picked)."""
        self._chosen = profile is not None and profile.privacy is not None
        self._url = profile.base_url if profile else ""
        self.ranges.setText(", ".join(profile.lan_ranges) if profile else "")
        self.bodies.setChecked(bool(profile and profile.privacy_bodies))
        self._select(profile.privacy_mode if profile else gate.default_mode(""))
        self._follow()

    def url_changed(self, url: str) -> None:
        """The base URL typed: a gate not picked by the user becomes that endpoint's default."""
        self._url = url.strip()
        self._follow()

    def blur_bodies(self) -> bool:
        """Whether the profile saved also blurs whole people (only with blur faces)."""
        return self.bodies.isChecked() and self.mode.currentData() == gate.BLUR_FACES

    def values(self) -> tuple[str, list[str]]:
        """(the mode, the LAN ranges) for the profile saved."""
        return self.mode.currentData(), [r.strip() for r in self.ranges.text().replace(";", ",").split(",")
                                         if r.strip()]

    def _picked(self, _index: int) -> None:
        self._chosen = True
        self._follow()

    def _select(self, mode: str) -> None:
        self.mode.setCurrentIndex(max(0, self.mode.findData(mode)))

    def _follow(self) -> None:
        ranges = self.values()[1]
        default = gate.default_mode(self._url or "http://unset.invalid", ranges)
        if not self._chosen:
            self._select(default)
        where = "on this machine or a listed LAN range" if default == gate.SEND_AS_IS else "not on this machine"
        note = (f"This endpoint is {where}: the default is {_LABELS[default].lower()}. "
                f"{_LABELS[self.mode.currentData()]}: {gate.MODES[self.mode.currentData()]}.")
        blurring = self.mode.currentData() == gate.BLUR_FACES
        self.bodies.setEnabled(blurring)
        if blurring:
            note += (" The boxes blurred are kept with each answer; " + (
                "whole people are blurred too." if self.bodies.isChecked() else "people's bodies are not blurred."))
        self.note.setText(note)
