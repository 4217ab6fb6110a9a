"""The window reads a scanned manual's page in the background after the indexes (issue 34 item 2): the status line
says so, the library's "needs OCR" badge goes, and the document view's search finds and highlights OCR'd words."""

from __future__ import annotations

import os

from fieldstudio.gui.main_window import MainWindow
from fieldstudio.media import documents, library
from fieldstudio.store.project import Project
from tests.support.gui_support import media_id
from tests.support.scanned_manual import MANUAL, scan_first_page


def test_a_scanned_page_is_read_in_the_background_and_searchable(qtbot, tmp_path):
    pdf, _ = scan_first_page(tmp_path)
    path = tmp_path / "scans.fieldstudio"
    with Project.create(path, name="scans") as p:
        library.add_paths(p, [pdf])
    w = MainWindow(Project.open(path))
    qtbot.addWidget(w)
    w.resize(1280, 860)
    w.show()
    try:
        mid = media_id(w, pdf.name)
        assert w.library.select(mid)
        qtbot.waitUntil(lambda: w.state.media is not None and w.state.media.id == mid, timeout=5000)
        doc = w.view.document
        assert doc.find("hazardous energy") == 0   # nothing to find before OCR: the page is a picture
        lines = []
        w.session.indexer.text_changed.connect(lambda text, _paused: lines.append(text))
        read = []
        w.session.indexer.page_read.connect(read.append)
        qtbot.waitUntil(lambda: bool(read), timeout=120000)
        assert read == [mid]
        assert any(t.startswith("Reading text (OCR): scanned lockout.pdf page 1") for t in lines)
        qtbot.waitUntil(lambda: 0 in doc.ocr_words, timeout=5000)
        # the original's own text layer finds the phrase on page 1; the OCR'd scan finds it there too
        assert documents.search_text(MANUAL, "hazardous energy")[0][0] == 0
        n = doc.find("hazardous energy")
        assert n >= 6 and doc.page == 0 and doc.canvas._highlights
        assert "(page 1)" in doc.hit_label.text()
        assert w.time_label.text() == "text read by OCR"
        qtbot.waitUntil(lambda: "needs OCR" not in w.library.model.index(0, 0).data(), timeout=5000)
        shots = os.environ.get("FS_SHOTS")
        if shots:
            doc.canvas.set_zoom(0.6)
            doc.canvas.center_on(doc.current_hit()[1])
            qtbot.wait(100)
            w.grab().save(os.path.join(shots, "ocr_page_search_hit.png"))
    finally:
        w.close()
