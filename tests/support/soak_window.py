"""The soak run of the real window, run by tests/gui/test_main_window_soak.py in a child process (a crash must not
take pytest down with it): ``python -m pytest tests/support/soak_window.py`` with FIELDSTUDIO_SOAK_SEED,
FIELDSTUDIO_SOAK_ACTIONS and FIELDSTUDIO_SOAK_PROJECT (a copy of the demo project) in the environment.

Random user actions, as a person does them with the mouse and the keyboard: draw, move and delete
boxes; draw rulers; start and end segments, mark events; undo and redo; zoom in and out; pan; step
frames; switch media and tabs; play and pause, shuttle (J/K/L), change the speed, zoom while playing.
Afterwards every edit the undo history holds as done is
in the project file (read again with sqlite3 after the window closed), and PRAGMA integrity_check is ok.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from fieldstudio.annotations import edits
from fieldstudio.gui.main_window import MainWindow
from fieldstudio.store.edits import EditGroup
from fieldstudio.store.project import Project
from tests.support.gui_support import no_label_chooser

SEED = int(os.environ.get("FIELDSTUDIO_SOAK_SEED", "1"))
ACTIONS = int(os.environ.get("FIELDSTUDIO_SOAK_ACTIONS", "1000"))
PROJECT = Path(os.environ.get("FIELDSTUDIO_SOAK_PROJECT", "demo.fieldstudio"))

KEY = Qt.Key
CTRL, SHIFT, ALT = (Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier,
                    Qt.KeyboardModifier.AltModifier)


def _annotatable(w: MainWindow) -> bool:
    m = w.state.media
    return m is not None and m.kind in ("image", "video") and w.modes.currentIndex() == 0 \
        and w.view.stack.currentWidget() is w.view.media_page


def _image_point(w: MainWindow, rng: random.Random) -> tuple[float, float]:
    m = w.state.media
    return rng.uniform(0, m.width or 100), rng.uniform(0, m.height or 100)


def _drag(w: MainWindow, qtbot, a: tuple[float, float], b: tuple[float, float]) -> None:  # noqa: ANN001
    vp = w.view.canvas.viewport()
    pa, pb = w.view.canvas.mapFromScene(QPointF(*a)), w.view.canvas.mapFromScene(QPointF(*b))
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=pa)
    for t in (0.34, 0.67, 1.0):
        qtbot.mouseMove(vp, QPoint(round(pa.x() + (pb.x() - pa.x()) * t), round(pa.y() + (pb.y() - pa.y()) * t)))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=pb)


def _key(w: MainWindow, qtbot, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:  # noqa: ANN001
    qtbot.keyClick(w.view.canvas, key, modifier)


def _draw(w, qtbot, rng, tool_key):  # noqa: ANN001, ANN202
    if not _annotatable(w):
        return "skipped"
    _key(w, qtbot, tool_key)
    x, y = _image_point(w, rng)
    _drag(w, qtbot, (x, y), (x + rng.uniform(8, 120), y + rng.uniform(8, 90)))
    _key(w, qtbot, KEY.Key_Escape)
    return "drawn"


def _move_box(w, qtbot, rng):  # noqa: ANN001, ANN202
    if not _annotatable(w):
        return "skipped"
    from fieldstudio.gui.viewer.overlay import BoxItem

    boxes = [i for i in w.view.canvas.scene().items() if isinstance(i, BoxItem) and i.annotation_id]
    if not boxes:
        return "no box"
    box = rng.choice(boxes)
    r = box.sceneBoundingRect()
    c = (r.center().x(), r.center().y())
    _drag(w, qtbot, c, (c[0] + rng.uniform(-40, 40), c[1] + rng.uniform(-30, 30)))
    return "moved"


def _delete(w, qtbot, rng):  # noqa: ANN001, ANN202
    if not _annotatable(w):
        return "skipped"
    from fieldstudio.gui.viewer.overlay import BoxItem, RulerItem

    marks = [i for i in w.view.canvas.scene().items() if isinstance(i, (BoxItem, RulerItem))
             and getattr(i, "annotation_id", None)]
    if not marks:
        return "nothing"
    for item in w.view.canvas.scene().selectedItems():
        item.setSelected(False)
    rng.choice(marks).setSelected(True)
    _key(w, qtbot, KEY.Key_Delete)
    return "deleted"


ACTIONS_TABLE = [
    (8, "box", lambda w, q, r: _draw(w, q, r, KEY.Key_B)),
    (4, "ruler", lambda w, q, r: _draw(w, q, r, KEY.Key_R)),
    (5, "move box", _move_box),
    (3, "delete", _delete),
    (3, "segment start", lambda w, q, r: _key(w, q, KEY.Key_I)),
    (3, "segment end", lambda w, q, r: _key(w, q, KEY.Key_O)),
    (2, "event", lambda w, q, r: _key(w, q, KEY.Key_E)),
    (6, "undo", lambda w, q, r: _key(w, q, KEY.Key_Z, CTRL)),
    (4, "redo", lambda w, q, r: _key(w, q, KEY.Key_Z, CTRL | SHIFT)),
    (4, "zoom in", lambda w, q, r: _key(w, q, KEY.Key_Plus)),
    (4, "zoom out", lambda w, q, r: _key(w, q, KEY.Key_Minus)),
    (2, "fit", lambda w, q, r: _key(w, q, KEY.Key_0, CTRL)),
    (3, "pan", lambda w, q, r: (_key(w, q, KEY.Key_Escape), _annotatable(w) and _drag(
        w, q, _image_point(w, r), _image_point(w, r)))),
    (8, "next frame", lambda w, q, r: _key(w, q, KEY.Key_Right)),
    (5, "previous frame", lambda w, q, r: _key(w, q, KEY.Key_Left)),
    (2, "forward 1 s", lambda w, q, r: _key(w, q, KEY.Key_Right, SHIFT)),
    (2, "next media", lambda w, q, r: _key(w, q, KEY.Key_Down, CTRL)),
    (1, "previous media", lambda w, q, r: _key(w, q, KEY.Key_Up, CTRL)),
    (2, "another tab", lambda w, q, r: w.modes.setCurrentIndex(r.randrange(1, w.modes.count()))),
    (3, "media tab", lambda w, q, r: w.modes.setCurrentIndex(0)),
    (2, "play or pause", lambda w, q, r: _key(w, q, KEY.Key_Space)),
    (2, "play a while", lambda w, q, r: _play_a_while(w, q, r)),
    (2, "shuttle forward", lambda w, q, r: _key(w, q, KEY.Key_L)),
    (1, "shuttle back", lambda w, q, r: _key(w, q, KEY.Key_J)),
    (2, "shuttle stop", lambda w, q, r: _key(w, q, KEY.Key_K)),
    (1, "speed", lambda w, q, r: w.view.transport.speed.setCurrentIndex(r.randrange(w.view.transport.speed.count()))),
]

PLAYED = {"pictures": 0, "plays": 0}  # pictures libVLC played into the canvas during "play a while"


def _play_a_while(w, qtbot, rng):  # noqa: ANN001, ANN202
    """Play a video for a moment (zooming now and then while it plays): played pictures reach the canvas."""
    if not _annotatable(w) or w.state.media.kind != "video" or w.view.video is None:
        return "skipped"
    if not w.view.video.playing:
        _key(w, qtbot, KEY.Key_Space)
    if rng.random() < 0.3:
        _key(w, qtbot, rng.choice((KEY.Key_Plus, KEY.Key_Minus)))
    qtbot.wait(400)
    if w.view.video.playing and w.view.video._vlc is not None:
        PLAYED["plays"] += 1
        PLAYED["pictures"] += w.view.video.playback_stats()["shown"]
    return "played"


def _expected(stack, baseline: set[str]) -> tuple[set[str], dict[str, list]]:
    """Replay the done part of the viewer's undo history: the live annotation ids and moved geometries."""
    live, geometry = set(baseline), {}

    def apply(edit) -> None:  # noqa: ANN001
        if isinstance(edit, EditGroup):
            for e in edit.edits:
                apply(e)
        elif isinstance(edit, edits.CreateAnnotation):
            live.add(edit.annotation_id)
        elif isinstance(edit, edits.DeleteAnnotations):
            live.difference_update(edit.annotation_ids)
        elif isinstance(edit, edits.UpdateAnnotation) and "geometry" in edit.changes:
            geometry[edit.annotation_id] = edit.changes["geometry"]

    for i in range(stack.index()):
        apply(stack.command(i).edit)
    return live, geometry


def test_soak(qtbot):
    rng = random.Random(SEED)
    con = sqlite3.connect(PROJECT)
    baseline = {r[0] for r in con.execute("SELECT id FROM annotation WHERE NOT deleted")}
    con.close()
    w = MainWindow(Project.open(PROJECT))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    w.annotator.confirm_open_segments = lambda: True
    no_label_chooser(w)
    assert w.library.select(w.library.visible_ids()[0])
    weights = [a[0] for a in ACTIONS_TABLE]
    done: dict[str, int] = {}
    for step in range(ACTIONS):
        _weight, name, act = rng.choices(ACTIONS_TABLE, weights)[0]
        print(f"step {step}: {name}", file=sys.stderr, flush=True)  # the last line names a crash's action
        act(w, qtbot, rng)
        done[name] = done.get(name, 0) + 1
        qtbot.wait(rng.choice((0, 1, 5, 20)))
        if step % 50 == 49 and w.view.loader is not None:
            qtbot.waitUntil(w.view.loader.idle, timeout=10000)
    if w.view.video is not None and w.view.video.playing:
        w.view.video.pause()
    live, geometry = _expected(w.annotator.undo_stack, baseline)
    history = w.annotator.undo_stack.count()
    w.close()
    w.state.project.close() if w.state.project is not None else None
    con = sqlite3.connect(PROJECT)
    stored = {r[0] for r in con.execute("SELECT id FROM annotation WHERE NOT deleted")}
    moved = {r[0]: (json.loads(r[1]), r[2], r[3]) for r in con.execute(
        "SELECT a.id, a.geometry, m.width, m.height FROM annotation a JOIN media m ON m.id = a.media_id")
        if r[0] in geometry}
    integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
    con.close()
    print(json.dumps({"seed": SEED, "actions": done, "history": history, "live": len(live),
                      "stored": len(stored), "played": PLAYED}), flush=True)
    assert integrity == "ok"
    assert PLAYED["pictures"] > 0 or PLAYED["plays"] == 0, "libVLC played, but no picture reached the canvas"
    assert stored == live, f"lost: {sorted(live - stored)[:5]}, unexpected: {sorted(stored - live)[:5]}"
    for aid, g in geometry.items():  # the last move of each box, as the store keeps it: inside the image
        stored_g, width, height = moved[aid]
        if len(g) == 2:  # a ruler's two ends (a drag that caught a ruler's handle): kept as moved
            assert [c for pt in stored_g for c in pt] == pytest.approx([c for pt in g for c in pt]), aid
            continue
        x1, y1, x2, y2 = min(g[0], g[2]), min(g[1], g[3]), max(g[0], g[2]), max(g[1], g[3])
        inside = [min(max(x1, 0), width), min(max(y1, 0), height), min(max(x2, 0), width), min(max(y2, 0), height)]
        assert stored_g == pytest.approx(inside), aid
