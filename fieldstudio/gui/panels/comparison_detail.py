"""The comparison view's detail pane (one answer: full text, raw text, tokens, cost, the judge's explanation,
whether it saw the ground truth's moment (``compare.evidence``), the frames the model saw, each opening the viewer
at that exact frame, as a filmstrip of thumbnails beside the video's timeline: ``filmstrip.py``) and its two dialogs: override a score (value + required reason, history shown) and
promote an answer to ground truth. Widgets only; the reads and writes are ``compare.views``."""

from __future__ import annotations

import getpass
import html
import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from fieldstudio.compare.views import AnswerDetail
from fieldstudio.gui.panels.filmstrip import FrameStrip

if TYPE_CHECKING:
    from fieldstudio.store.project import Project


def default_person() -> str:
    """The login name, offered as the author of an override."""
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some sandboxes
        return ""


def _num(v: Any, fmt: str = "{:,}", unknown: str = "unknown") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return unknown
    return fmt.format(v)


def _value(v: Any) -> str:
    return "unscored" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{float(v):.3g}"


def history_lines(history: list[dict[str, Any]]) -> list[str]:
    """One line per row of a score's chain, oldest first: when, who (the scorer when no person), value, why."""
    out = []
    for h in history:
        when = h["created_at"].strftime("%Y-%m-%d %H:%M") if h.get("created_at") is not None else "?"
        who = h.get("author") or "scorer"
        why = h.get("reason") or h.get("explanation") or ""
        out.append(f"{when}  {who}: {_value(h.get('value'))}  {why}")
    return out


def frame_item(f: dict[str, Any], ev: dict[str, Any]) -> str:
    """One frame sent, as a list item: a ``frame:<media id>:<index>`` link (the pane opens it in the viewer), its
    PTS, the size sent, JPEG quality and bytes, the SHA-256 prefix, and ★ when it lies in the evidence span."""
    e = html.escape
    name = e(str(f.get("file_name") or (f.get("media_id") or "")[:8]))
    index = f.get("frame_index")
    at = f"frame {index}" if index is not None else "image"
    if f.get("media_id") and isinstance(index, int):
        at = f"<a href='frame:{e(str(f['media_id']))}:{index}'>{at}</a>"
    facts = [f"{f['pts_s']:.3f} s" if f.get("pts_s") is not None else None,
             f"{f['width']}×{f['height']} px" if f.get("width") and f.get("height") else None,
             f"JPEG q{f['quality']}" if f.get("quality") is not None else None,
             f"{f['bytes']:,} bytes" if f.get("bytes") is not None else None,
             f"sha256 {str(f['sha256'])[:12]}…" if f.get("sha256") else None,
             f"request {f['request'] + 1}" if isinstance(f.get("request"), int) else None]
    star = " ★ in the evidence" if (f.get("media_id") == ev.get("span_media_id")
                                    and index in (ev.get("frames_in_span") or [])) else ""
    return f"<li>{name}: {at} ({', '.join(x for x in facts if x)}){star}</li>"


def detail_html(d: AnswerDetail) -> str:
    """The detail pane's text as HTML (every value escaped)."""
    e = html.escape
    s = d.score or {}
    parts = [f"<h3>{e(d.external_id)} — {e(d.source)}</h3>",
             f"<p><b>Question</b><br>{e(d.query or '')}</p>",
             f"<p><b>Ground truth</b><br><span style='white-space:pre-wrap'>{e(d.ground_truth or '(none)')}</span>"
             + (f"<br><span style='color:#b06000'>Pending change from annotations, not accepted: "
                f"{e(d.pending_ground_truth)}; accept it in the Tasks tab (the scores then read as stale)</span>"
                if d.pending_ground_truth else "") + "</p>",
             f"<p><b>Answer</b><br><span style='white-space:pre-wrap'>{e(d.answer_text or '(empty)')}</span></p>"]
    if d.error:
        parts.append(f"<p><b>Error</b><br>{e(d.error)}</p>")
    score = _value(s.get("value")) if d.score else "no score"
    if s.get("stale_reason"):               # an earlier verdict: never shown as the current one
        score = (f"stale, was {score} ({e(s['stale_reason'])}); left out of every summary until scored again "
                 "(Score…)")
    who = f" (set by {e(s['author'])})" if s.get("author") else ""
    parts.append(f"<p><b>Score</b> ({e(d.scorer or 'no scorer')}): {score}{who}<br>"
                 f"<b>Explanation</b>: {e(s.get('explanation') or '—')}</p>")
    if s.get("judge_raw"):
        parts.append(f"<p><b>Judge's reply</b><br><span style='white-space:pre-wrap'>{e(s['judge_raw'])}</span>"
                     f"<br>judge cost: {_num(s.get('judge_cost_usd'), '${:.4f}')}</p>")
    parts.append("<p><b>Tokens</b>: prompt " + _num(d.prompt_tokens) + ", completion " + _num(d.completion_tokens)
                 + (f", reasoning {_num(d.reasoning_tokens)}" if d.reasoning_tokens is not None else "")
                 + (f", cached {_num(d.cached_tokens)}" if d.cached_tokens is not None else "")
                 + f"<br><b>Cost</b>: {_num(d.cost_usd, '${:.4f}')}"
                 + f"<br><b>Latency</b>: {_num(d.latency_s, '{:.2f} s')}</p>")
    ev = d.evidence or {}
    if ev:
        colour = {"saw": "#1b5e20", "never saw": "#b00020"}.get(ev.get("status"), "#555555")
        span = f"<br>Ground truth at {e(ev['span'])}" if ev.get("span") else ""
        parts.append(f"<p><b>Evidence</b>: <span style='color:{colour}'>{e(ev.get('text') or '')}</span>{span}</p>")
    if d.cuts:              # frames thinned or re-encoded to the provider's limits (inference.runs.request_limits)
        parts.append("<p><b>Cut to the provider's limits</b>: " + "<br>".join(e(c) for c in d.cuts) + "</p>")
    if d.frames:
        parts.append(f"<p><b>Frames the model saw</b> ({len(d.frames)}; click one to open it in the viewer)</p>"
                     f"<ul>{''.join(frame_item(f, ev) for f in d.frames)}</ul>")
    else:
        parts.append("<p><b>Frames the model saw</b>: not recorded</p>")
    if d.inputs:
        rows = []
        for i in d.inputs:
            rng = ""
            if i.get("start_s") is not None or i.get("end_s") is not None:
                rng = f" {_num(i.get('start_s'), '{:.2f}', '…')}–{_num(i.get('end_s'), '{:.2f}', '…')} s"
            missing = "" if i.get("media_id") else " (media not in the project)"
            rows.append(f"<li>{e(i['name'])}{rng}{missing}</li>")
        parts.append(f"<p><b>Task inputs</b></p><ul>{''.join(rows)}</ul>")
    if d.raw_text and d.raw_text != d.answer_text:
        parts.append(f"<p><b>Raw text</b><br><span style='white-space:pre-wrap'>{e(d.raw_text)}</span></p>")
    if len(d.history) > 1:
        parts.append("<p><b>Score history</b></p><ul>" + "".join(f"<li>{e(x)}</li>" for x in history_lines(d.history))
                     + "</ul>")
    return "".join(parts)


class AnswerDetailPane(QWidget):
    """Shows one ``AnswerDetail``; its buttons emit ``open_media``, ``override``, ``promote``."""

    open_media = Signal()
    open_frame = Signal(str, int)   # media id, frame index: a frame the model saw, clicked
    override = Signal()
    promote = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.detail: AnswerDetail | None = None
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(self._link_clicked)
        self.text.setPlaceholderText("Click a cell to see the answer, its score and the evidence.")
        self.filmstrip = FrameStrip()
        self.filmstrip.open_frame.connect(self.open_frame)
        self.open_button = QPushButton("Open media at time range")
        self.open_button.setToolTip("Show the task's media at the first frame the model saw")
        self.override_button = QPushButton("Override score…")
        self.override_button.setToolTip("Set this answer's score yourself, with a reason (the history is kept)")
        self.promote_button = QPushButton("Promote to ground truth")
        self.promote_button.setToolTip("Make this answer the task's ground truth (the old one is kept)")
        self.open_button.clicked.connect(self.open_media)
        self.override_button.clicked.connect(self.override)
        self.promote_button.clicked.connect(self.promote)
        buttons = QHBoxLayout()
        for b in (self.open_button, self.override_button, self.promote_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filmstrip)
        layout.addWidget(self.text, 1)
        layout.addLayout(buttons)
        self.show_detail(None)

    def show_detail(self, detail: AnswerDetail | None, *, has_media: bool = False, scorer: str | None = None,
                    matcher_note: str | None = None, flagged: bool = False, project: Project | None = None) -> None:
        """Fill the pane (None clears it); buttons are enabled only when they can act. ``matcher_note``: what
        the deterministic matchers say beside the judge (``flagged``: they disagree, shown first). ``project``:
        where the filmstrip reads its thumbnails (None: the frames are listed without pictures)."""
        self.detail = detail
        self.filmstrip.show_answer(project, detail)
        note = ""
        if detail is not None and matcher_note:
            colour = "#8a4b00" if flagged else "#555555"
            note = (f"<p style='color:{colour}'><b>{'⚑ Check by hand' if flagged else 'Matcher audit'}</b>: "
                    f"{html.escape(matcher_note)}</p>")
        self.text.setHtml((note + detail_html(detail)) if detail is not None else "")
        self.open_button.setEnabled(detail is not None and has_media)
        self.override_button.setEnabled(detail is not None and bool(scorer))
        self.promote_button.setEnabled(detail is not None and bool((detail.raw_text or "").strip()))


    def _link_clicked(self, url: QUrl) -> None:
        kind, _, rest = url.toString().partition(":")
        media_id, _, index = rest.rpartition(":")
        if kind == "frame" and media_id and index.isdigit():
            self.open_frame.emit(media_id, int(index))


class OverrideDialog(QDialog):
    """New score (or "not scorable"), a required reason and the author; the score's history below."""

    def __init__(self, detail: AnswerDetail, scale: float, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("override_dialog")
        self.setWindowTitle(f"Override score — {detail.external_id}, {detail.source}")
        current = (detail.score or {}).get("value")
        self.value = QDoubleSpinBox()
        self.value.setRange(0.0, scale)
        self.value.setDecimals(2 if scale <= 1 else 1)
        self.value.setSingleStep(0.05 * scale)
        self.value.setValue(0.0 if current is None else float(current))
        self.unscorable = QCheckBox("not scorable (no value)")
        self.unscorable.toggled.connect(lambda on: self.value.setEnabled(not on))
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("why (required)")
        self.person = QLineEdit(default_person())
        self.person.setPlaceholderText("your name (required)")
        self.history = QTextBrowser()
        lines = history_lines(detail.history) or (["no score yet under " + (detail.scorer or "?")]
                                                  if detail.score is None else [])
        self.history.setPlainText("\n".join(lines))
        self.history.setMaximumHeight(110)
        form = QFormLayout()
        form.addRow("Current", QLabel(_value(current) if detail.score else "no score"))
        form.addRow(f"New score (0–{scale:g})", self.value)
        form.addRow("", self.unscorable)
        form.addRow("Reason", self.reason)
        form.addRow("Your name", self.person)
        form.addRow("History", self.history)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.reason.textChanged.connect(self._check)
        self.person.textChanged.connect(self._check)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self._check()

    def _check(self) -> None:
        ok = bool(self.reason.text().strip()) and bool(self.person.text().strip())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def chosen_value(self) -> float | None:
        """The new score, None for "not scorable"."""
        return None if self.unscorable.isChecked() else float(self.value.value())


class PromoteDialog(QDialog):
    """Confirm promoting an answer to ground truth: old and new text, an optional reason, the author."""

    def __init__(self, detail: AnswerDetail, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("promote_dialog")
        self.setWindowTitle(f"Promote to ground truth — {detail.external_id}")
        old = QTextBrowser()
        old.setPlainText(detail.ground_truth or "(none)")
        new = QTextBrowser()
        new.setPlainText(detail.raw_text or "")
        for box in (old, new):
            box.setMaximumHeight(90)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("why (optional)")
        self.person = QLineEdit(default_person())
        form = QFormLayout()
        form.addRow("Ground truth now", old)
        form.addRow(f"Answer of {detail.source}", new)
        form.addRow("Reason", self.reason)
        form.addRow("Your name", self.person)
        form.addRow("", QLabel("Scores are not recomputed until you score again."))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.person.textChanged.connect(lambda t: self.buttons.button(QDialogButtonBox.StandardButton.Ok)
                                        .setEnabled(bool(t.strip())))
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.person.text().strip()))
