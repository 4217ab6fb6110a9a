"""OCR of scanned pages (issue 34 item 2): a real manual's page, its text layer dropped, becomes searchable; the
words read are checked against the words of the original's own text layer, by text and by position."""

from __future__ import annotations

import collections
import re
import statistics

import pytest

from fieldstudio.media import document_ocr, inventory, library, ocr
from fieldstudio.store.project import Project
from tests.support.scanned_manual import scan_first_page


def _norm(text: str) -> str:
    return re.sub(r"[^\w]", "", text).casefold()


@pytest.fixture(scope="module")
def ocr_project(tmp_path_factory):
    """A project holding the scanned page, read once by ``read_pages``: (project, media id, report, layer words)."""
    folder = tmp_path_factory.mktemp("ocr")
    pdf, layer_words = scan_first_page(folder)
    p = Project.create(folder / "p.fieldstudio")
    media_id = library.add_paths(p, [pdf]).media_ids[0]
    waiting = document_ocr.pages_to_read(p)
    steps = []
    report = document_ocr.read_pages(p, progress=lambda done, total: steps.append((done, total)))
    yield p, media_id, waiting, report, steps, layer_words
    p.close()


def test_the_scanned_page_waits_for_ocr_then_is_read(ocr_project):
    p, media_id, waiting, report, steps, _ = ocr_project
    assert [(w.media_id, w.page_number) for w in waiting] == [(media_id, 0)]
    assert steps == [(0, 1), (1, 1)]
    assert not report.failed and [r.page.page_number for r in report.read] == [0]
    assert document_ocr.pages_to_read(p) == []
    pages, engine = document_ocr.ocr_pages_of(p, media_id)
    assert pages == [0] and engine.startswith("rapidocr ") and "PP-OCRv6" in engine
    summary = inventory.document_summaries(p)[0]
    assert (summary.needs_ocr_pages, summary.ocr_read_pages) == ([], [1])


def test_words_read_match_the_original_text_layer(ocr_project):
    p, media_id, _, report, _, layer_words = ocr_project
    words = document_ocr.page_words(p, media_id)[0]
    assert report.read[0].words == len(words)
    truth = collections.Counter(n for n in (_norm(t) for t, _ in layer_words) if n)
    read = collections.Counter(n for n in (_norm(w.text) for w in words) if n)
    common = sum((truth & read).values())
    assert common / sum(truth.values()) >= 0.95      # recall of the text layer's words
    assert common / sum(read.values()) >= 0.95       # and few words that are not there
    # position: words that occur once on both sides lie where the text layer puts them (PDF points)
    layer_box = {_norm(t): b for t, b in layer_words}
    read_box = {_norm(w.text): w.box for w in words}
    once = [t for t in truth if truth[t] == 1 and read[t] == 1]
    assert len(once) >= 50
    errors = [max(abs(layer_box[t][i] - read_box[t][i]) for i in range(4)) for t in once]
    assert statistics.median(errors) <= 3.0 and max(errors) <= 10.0


def test_search_finds_a_phrase_where_the_original_text_layer_has_it(ocr_project):
    from fieldstudio.media import documents
    from tests.support.scanned_manual import MANUAL

    p, media_id, _, _, _, _ = ocr_project
    hits = document_ocr.search_words(document_ocr.page_words(p, media_id), "Hazardous ENERGY")
    assert [page for page, _ in hits] == [0]
    # the original PDF's own search (its text layer): a rectangle per line part of each hit
    original = [r for page, rects in documents.search_text(MANUAL, "hazardous energy") if page == 0 for r in rects]
    assert len(original) >= 5

    def overlaps(a, b) -> bool:
        return min(a[2], b[2]) - max(a[0], b[0]) > 0 and min(a[3], b[3]) - max(a[1], b[1]) > 0

    found = [r for r in hits[0][1]]
    matched = [o for o in original if any(overlaps(o, r) for r in found)]
    assert len(matched) >= 0.8 * len(original)           # most of the text layer's hits are found
    assert all(any(overlaps(r, o) for o in original) for r in found)  # and nothing where it has none
    assert document_ocr.search_words(document_ocr.page_words(p, media_id), "no such phrase anywhere") == []


def test_the_page_text_is_the_document_text_models_get(ocr_project):
    from fieldstudio.inference.inputs import document_text
    from fieldstudio.media.library import find_media

    p, media_id, _, _, _, _ = ocr_project
    text = document_text(p, find_media(p, media_id))
    assert "lockout" in text.casefold() and "hazardous energy" in text.casefold()


def test_missing_models_refuse_and_leave_the_page_waiting(tmp_path, monkeypatch):
    pdf, _ = scan_first_page(tmp_path)
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "models_dir", lambda: tmp_path / "no models")
    with Project.create(tmp_path / "p.fieldstudio") as p:
        library.add_paths(p, [pdf])
        with pytest.raises(ocr.OcrUnavailable, match="detection model is missing"):
            document_ocr.read_pages(p)
        assert len(document_ocr.pages_to_read(p)) == 1


def test_a_missing_file_is_reported_and_the_others_go_on(tmp_path):
    pdf, _ = scan_first_page(tmp_path)
    with Project.create(tmp_path / "p.fieldstudio") as p:
        library.add_paths(p, [pdf])
        pdf.unlink()
        report = document_ocr.read_pages(p)
        assert not report.read and "missing" in report.failed[0].error
        assert len(document_ocr.pages_to_read(p)) == 1


def test_read_text_of_a_region_gives_boxes_in_the_whole_image():
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (640, 240), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=40)
    draw.text((40, 30), "VALVE 12", fill="black", font=font)
    draw.text((340, 150), "PUMP 7", fill="black", font=font)
    rgb = np.asarray(image)
    lines = ocr.read_text(rgb, region=(320, 120, 320, 120))
    assert [ln.text.replace(" ", "") for ln in lines] == ["PUMP7"]
    x0, y0, x1, y1 = lines[0].box
    assert 320 <= x0 < 360 and 140 <= y0 < 170 and x1 > 420
    assert [w.text for w in lines[0].words] == ["PUMP", "7"]
    with pytest.raises(ValueError, match="less than"):
        ocr.read_text(rgb, region=(636, 0, 40, 40))


def test_the_sessions_sleep_between_runs_are_made_once_and_a_page_is_detected_smaller(monkeypatch):
    import numpy as np
    from rapidocr.inference_engine.onnxruntime import OrtInferSession

    engines = ocr._load()
    assert ocr._load() is engines
    sessions = [engines[kind]._load_det_model().session.session for kind in ("page", "scene")]
    assert sessions[0] is sessions[1]
    assert sessions[0].get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"
    shapes = []
    run = OrtInferSession.__call__
    monkeypatch.setattr(OrtInferSession, "__call__", lambda self, batch: shapes.append(batch.shape) or run(self, batch))
    rgb = np.full((1650, 1275, 3), 255, np.uint8)  # a 150-dpi Letter page as document_ocr renders it
    rgb[800:830, 200:900] = 0
    ocr.read_text(rgb, page=True)
    ocr.read_text(rgb)
    detected = [s for s in shapes if s[2] > 48]  # the recogniser's batches are 48 px tall
    assert [max(s[2:]) for s in detected] == [ocr.PAGE_DETECTION_SIDE, 1664]


def _in_layer_order(lines: list[str], layer: str) -> tuple[int, int]:
    """(consecutive pairs of `lines` that the text layer has in the same order, pairs compared): each line that
    the layer holds once (its first 24 letters and digits) is placed where the layer has it."""
    places = []
    for line in lines:
        key = re.sub(r"[^a-z0-9]", "", line.casefold())[:24]
        if len(key) >= 12 and layer.count(key) == 1:
            places.append(layer.index(key))
    return sum(b > a for a, b in zip(places, places[1:])), len(places) - 1


def test_a_two_column_page_is_read_column_after_column(ocr_project):
    # the fact sheet's page 1 is set in two columns; its text layer (the PDF's own content order) reads the left
    # column, then the right: the text models get must follow it, where reading rows across the gutter does not
    from sqlalchemy import select

    from fieldstudio.store.models import DocumentPage, OcrWord

    p, media_id, _, _, _, layer_words = ocr_project
    layer = re.sub(r"[^a-z0-9]", "", " ".join(w for w, _ in layer_words).casefold())
    with p.read() as s:
        [text] = s.scalars(select(DocumentPage.text).where(DocumentPage.media_id == media_id)).all()
        words = s.execute(select(OcrWord.text, OcrWord.y0, OcrWord.x0).where(OcrWord.media_id == media_id)).all()
    in_order, compared = _in_layer_order(text.splitlines(), layer)
    assert compared >= 50 and in_order / compared >= 0.95
    # the same words by rows (top to bottom, left to right, as OCR gave them before): about a third out of order
    rows: dict[int, list] = collections.defaultdict(list)
    for word, y0, x0 in words:
        rows[round(y0 / 6)].append((x0, word))
    by_rows = [" ".join(w for _, w in sorted(r)) for _, r in sorted(rows.items())]
    in_order_rows, compared_rows = _in_layer_order(by_rows, layer)
    assert in_order_rows / compared_rows < 0.8
