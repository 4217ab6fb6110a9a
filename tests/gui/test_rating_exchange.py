"""File ▸ Rating packages: a set exported from one project and merged into another through the dialogs."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from fieldstudio.demo.project import build_demo
from fieldstudio.gui import rating_exchange
from fieldstudio.store.project import Project

pytestmark = pytest.mark.gui


def _count(path, sql: str) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def test_export_all_ratings_then_merge_into_an_empty_project_twice(qtbot, tmp_path, monkeypatch):
    src = tmp_path / "demo.fieldstudio"
    build_demo(src)
    # human ratings of the demo set, counted straight from the file (machine raters are named "scorer:...")
    human = _count(src, "SELECT count(*) FROM rating WHERE rater NOT LIKE 'scorer:%' AND rater NOT LIKE 'model:%'")
    items = _count(src, "SELECT count(*) FROM rating_item")
    package = tmp_path / "pkg.zip"
    answers = iter(["PPE proof of work (demo)", rating_exchange.ALL])
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: (next(answers), True))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(package), ""))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(package), ""))
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text, *a, **k: shown.append(text))
    monkeypatch.setattr(QMessageBox, "critical", lambda _p, _t, text, *a, **k: shown.append("ERROR " + text))

    with Project.open(src) as project:
        assert rating_exchange.export_dialog(None, project) is not None
        # waited for on what it shows: the worker may finish before a wait for its signal is connected
        qtbot.waitUntil(lambda: len(shown) == 1, timeout=60000)
    assert shown[0].startswith(f"Wrote {package}") and f"{items} item(s), {human} rating(s)" in shown[0]

    dst = tmp_path / "rater.fieldstudio"
    reloads = []
    with Project.create(dst) as project:
        for round_ in (1, 2):
            assert rating_exchange.import_dialog(None, project, lambda: reloads.append(1)) is not None
            qtbot.waitUntil(lambda r=round_: len(reloads) == r and len(shown) == r + 1, timeout=60000)
    first, second = shown[1], shown[2]
    assert "(new set)" in first and f"items: {items} added" in first and f"ratings: {human} added" in first
    # merging the same package again changes nothing
    assert f"items: 0 added, {items} already here" in second and f"{human} unchanged" in second
    assert _count(dst, "SELECT count(*) FROM rating") == human
