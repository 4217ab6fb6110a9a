"""The scanned-page (needs OCR) flag of PDFs, shown by `fieldstudio info` and the library panel (item 7e)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from fieldstudio.media import library
from fieldstudio.store.project import Project


@pytest.fixture
def scanned_pdf(tmp_path):
    """Three pages: text, a picture only (a scan), text. PyMuPDF itself says page 2 has no text and 1 image."""
    import pymupdf

    scan = tmp_path / "scan.png"
    Image.fromarray(np.full((200, 150, 3), 230, np.uint8)).save(scan)
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Safety rules")
    doc.new_page().insert_image(pymupdf.Rect(50, 50, 350, 450), filename=str(scan))
    doc.new_page().insert_text((72, 72), "Emergency exits")
    path = tmp_path / "site manual.pdf"
    doc.save(path)
    check = pymupdf.open(path)
    assert [p.get_text().strip() == "" and len(p.get_images()) == 1 for p in check] == [False, True, False]
    return path


def test_info_shows_the_pages_that_need_ocr(tmp_path, scanned_pdf):
    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as p:
        library.add_paths(p, [scanned_pdf])
    run = [sys.executable, "-m", "fieldstudio", "info", str(path)]
    text = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "site manual.pdf: 3 pages; scanned, needs OCR: page 2" in text
    data = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True, check=True).stdout)
    assert data["documents"] == [{"file_name": "site manual.pdf", "pages": 3, "needs_ocr_pages": [2], "ocr_read_pages": []}]


def test_library_panel_badges_a_scanned_document(qtbot, tmp_path, scanned_pdf):
    from PySide6.QtCore import Qt

    from fieldstudio.gui.panels.library import MediaListModel

    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as p:
        library.add_paths(p, [scanned_pdf])
    model = MediaListModel(path)
    index = model.index(0, 0)
    assert index.data().splitlines() == ["site manual.pdf", "needs OCR"]
    assert "1 of 3 pages scanned (no text layer): page 2 needs OCR" in index.data(Qt.ItemDataRole.ToolTipRole)
