"""Tests for fieldstudio.media.documents: PDF/TXT probing, reading order, ligatures, rendering, search.

Fixtures are generated here with PyMuPDF (manual_test.pdf as in pitfalls.md section 18, an encrypted PDF,
a truncated real PDF, text files in several encodings). The real OSHA PDFs in /work/shared/data/media/docs
are checked against poppler-utils (`pdfinfo`, `pdftotext`, `pdftoppm`), an independent PDF engine, when it
is installed, and otherwise against numbers read from those tools once and written down here.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
from pathlib import Path

from tests.support.shared_data import SHARED_DATA

import numpy as np
import pymupdf
import pytest

from fieldstudio.core.errors import MediaError
from fieldstudio.media import documents
from fieldstudio.media.documents import (
    DocumentProbe,
    PageText,
    page_size_pt,
    probe_document,
    render_page,
    search_text,
)

DOCS = (SHARED_DATA / "media/docs")
JHA = DOCS / "osha3071_job_hazard_analysis_2002.pdf"          # 50 pages, 360 x 576 pt
CONFINED = DOCS / "osha3138_permit_required_confined_spaces_2004.pdf"  # 22 pages, letter
LOTO = DOCS / "osha_factsheet_lockout_tagout_2002.pdf"        # 2 pages, letter, two columns
needs_osha = pytest.mark.skipif(not LOTO.exists(), reason="OSHA sample PDFs not present")
HAVE_POPPLER = all(shutil.which(t) for t in ("pdfinfo", "pdftotext", "pdftoppm"))
needs_poppler = pytest.mark.skipif(not HAVE_POPPLER, reason="poppler-utils not installed")

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
LIGATURE_SENTENCE = "The scienti\ufb01c team works o\ufb04ine at the site."


@contextlib.contextmanager
def raises_media_error(reason_pattern: str):
    """Like pytest.raises(MediaError, match=...) but matches the reason only, not the path (a pytest
    tmp_path named after the test, e.g. ".../test_truncated_real_pdf0/", would match by itself)."""
    with pytest.raises(MediaError) as info:
        yield info
    assert re.search(reason_pattern, info.value.reason), info.value.reason


# ------------------------------------------------------------------------------------------ fixtures

@pytest.fixture(scope="module")
def manual_pdf(tmp_path_factory) -> Path:
    """manual_test.pdf from pitfalls.md: ligatures (page 0), right column written first (page 1),
    scanned image only (page 2). Letter size, 612 x 792 pt."""
    path = tmp_path_factory.mktemp("docs") / "manual_test.pdf"
    doc = pymupdf.open()
    font = {"fontfile": str(DEJAVU), "fontname": "dejavu"} if DEJAVU.exists() else {"fontname": "cjk"}
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 100), LIGATURE_SENTENCE, fontsize=12, **font)
    page = doc.new_page(width=612, height=792)
    for k, y in enumerate((100, 300, 500), start=1):       # right column first in the content stream
        page.insert_text((340, y), f"RIGHT-{k}", fontsize=12, **font)
    for k, y in enumerate((100, 300, 500), start=1):
        page.insert_text((72, y), f"LEFT-{k}", fontsize=12, **font)
    page = doc.new_page(width=612, height=792)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 64, 80), False)
    pix.clear_with(180)
    page.insert_image(pymupdf.Rect(72, 72, 540, 720), pixmap=pix)
    doc.save(path)
    doc.close()
    return path


def _assert_manual_fixture_is_what_pitfalls_describes(path: Path) -> None:
    """Guard: the fixture really has the traps (else the tests below could pass vacuously)."""
    doc = pymupdf.open(path)
    assert "\ufb01" in doc[0].get_text() and "\ufb04" in doc[0].get_text()       # default keeps ligatures
    assert doc[0].search_for("scientific") == []                              # default search misses
    raw_order = re.findall(r"(?:LEFT|RIGHT)-\d", doc[1].get_text())
    assert raw_order[:3] == ["RIGHT-1", "RIGHT-2", "RIGHT-3"]                  # stream order is wrong
    assert doc[2].get_text() == "" and len(doc[2].get_images()) == 1
    doc.close()


@pytest.fixture(scope="module")
def encrypted_pdf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("docs") / "locked.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret procedure")
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user-pw", owner_pw="owner-pw")
    doc.close()
    return path


# ------------------------------------------------------------------------------- manual_test.pdf

def test_manual_fixture_has_the_traps(manual_pdf):
    _assert_manual_fixture_is_what_pitfalls_describes(manual_pdf)


def test_probe_manual_pages_and_kind(manual_pdf):
    probe = probe_document(manual_pdf)
    assert isinstance(probe, DocumentProbe)
    assert probe.kind == "pdf" and probe.encoding is None
    assert probe.page_count == 3
    assert [p.page_number for p in probe.pages] == [0, 1, 2]
    assert all(isinstance(p, PageText) for p in probe.pages)


def test_ligatures_are_expanded_in_page_text(manual_pdf):
    text = probe_document(manual_pdf).pages[0].text
    assert "scientific" in text and "offline" in text
    assert not re.search("[\ufb00-\ufb06]", text)
    assert text == LIGATURE_SENTENCE.replace("\ufb01", "fi").replace("\ufb04", "ffl")


def test_two_columns_are_read_left_column_first(manual_pdf):
    text = probe_document(manual_pdf).pages[1].text
    assert re.findall(r"(?:LEFT|RIGHT)-\d", text) == ["LEFT-1", "LEFT-2", "LEFT-3",
                                                      "RIGHT-1", "RIGHT-2", "RIGHT-3"]


def test_image_only_page_needs_ocr(manual_pdf):
    pages = probe_document(manual_pdf).pages
    assert [p.needs_ocr for p in pages] == [False, False, True]
    assert pages[2].text == ""


def test_blank_and_drawing_only_pages_do_not_need_ocr(tmp_path):
    path = tmp_path / "blank.pdf"
    doc = pymupdf.open()
    doc.new_page()
    doc.new_page().draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    doc.save(path)
    doc.close()
    assert probe_document(path).pages == [PageText(0, "", False), PageText(1, "", False)]


def test_hyphenated_line_ends_are_joined(tmp_path):
    path = tmp_path / "hyphen.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), "protect employ-\nees and the Permit-\nRequired space", fontsize=12)
    doc.save(path)
    doc.close()
    text = probe_document(path).pages[0].text
    assert "protect employees and the Permit-\nRequired space" == text
    assert [p for p, _ in search_text(path, "employees")] == [0]


def test_search_finds_word_typeset_with_ligature(manual_pdf):
    hits = search_text(manual_pdf, "SCIENTIFIC")
    assert [page for page, _ in hits] == [0]
    ((x0, y0, x1, y1),) = hits[0][1]
    # Inserted at baseline (72, 100) in 12 pt after "The ": starts right of x=72, spans the baseline.
    assert 80 < x0 < x1 < 300 and y0 < 100 < y1 and 8 < y1 - y0 < 20
    assert [p for p, _ in search_text(manual_pdf, "offline")] == [0]
    assert [p for p, _ in search_text(manual_pdf, "o\ufb04ine")] == [0]    # query typed with a ligature


def test_search_miss_and_empty_query(manual_pdf):
    assert search_text(manual_pdf, "forklift") == []
    assert search_text(manual_pdf, "   ") == []


def test_search_rect_on_rotated_page_is_in_displayed_space(tmp_path):
    """A page with /Rotate 90: the hit must lie where the rendered image shows the word."""
    path = tmp_path / "rotated.pdf"
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 100), "forklift", fontsize=20)
    page.draw_rect(pymupdf.Rect(60, 70, 200, 110), color=None, fill=(0, 0, 0))  # black box under it
    page.set_rotation(90)
    doc.save(path)
    doc.close()
    assert page_size_pt(path, 0) == (792.0, 612.0)
    ((_, (rect,)),) = search_text(path, "forklift")
    image = render_page(path, 0, zoom=1.0)
    assert image.shape == (612, 792, 3)
    x0, y0, x1, y1 = (int(round(v)) for v in rect)
    assert 0 <= x0 < x1 <= 792 and 0 <= y0 < y1 <= 612
    assert image[(y0 + y1) // 2, (x0 + x1) // 2].max() < 50                   # the black box is there
    assert image[:, : 792 // 2].mean() > 250                                  # left half of display empty


def test_render_manual_page_size_and_pixels(manual_pdf):
    image = render_page(manual_pdf, 2, zoom=0.5)
    assert image.dtype == np.uint8 and image.shape == (396, 306, 3)
    # The grey (180) image covers (72..540, 72..720) pt; at zoom 0.5 its centre is at (153, 198) px.
    assert tuple(image[198, 153]) == (180, 180, 180)
    assert tuple(image[10, 10]) == (255, 255, 255)


def test_render_is_capped_at_max_pixels(manual_pdf, monkeypatch):
    monkeypatch.setattr(documents, "MAX_RENDER_PIXELS", 100_000)
    image = render_page(manual_pdf, 0, zoom=50.0)      # would be 30600 x 39600 px uncapped
    h, w, _ = image.shape
    assert h * w <= 100_000
    assert w / h == pytest.approx(612 / 792, rel=0.02)
    assert h * w > 90_000                              # lowered only as far as needed


def test_render_rejects_bad_zoom_and_page(manual_pdf):
    with pytest.raises(ValueError):
        render_page(manual_pdf, 0, zoom=0)
    with raises_media_error("no page 3"):
        render_page(manual_pdf, 3)
    with raises_media_error("no page -1"):
        page_size_pt(manual_pdf, -1)


# ------------------------------------------------------------------------------- broken inputs

def test_zero_byte_pdf_and_txt(tmp_path):
    for name in ("empty.pdf", "empty.txt"):
        path = tmp_path / name
        path.write_bytes(b"")
        with raises_media_error("empty") as info:
            probe_document(path)
        assert info.value.path == path
    with raises_media_error("empty"):
        render_page(tmp_path / "empty.pdf", 0)


def test_missing_file(tmp_path):
    with raises_media_error("does not exist"):
        probe_document(tmp_path / "nope.pdf")
    with raises_media_error("does not exist"):
        search_text(tmp_path / "nope.pdf", "x")


def test_not_a_pdf_although_named_pdf(tmp_path):
    path = tmp_path / "photo.pdf"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    with raises_media_error("not a PDF"):
        probe_document(path)
    path.write_text("just some notes, saved with the wrong name\n")
    with raises_media_error("not a PDF"):
        page_size_pt(path, 0)


@needs_osha
def test_truncated_real_pdf(tmp_path):
    for source in (LOTO, CONFINED):
        data = source.read_bytes()
        path = tmp_path / f"cut_{source.name}"
        path.write_bytes(data[: len(data) // 2])
        with raises_media_error("truncated"):
            probe_document(path)
        with raises_media_error("truncated"):
            render_page(path, 0)


def test_garbage_after_pdf_header_is_damaged(tmp_path):
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    with raises_media_error("truncated|damaged"):
        probe_document(path)


def test_password_protected_pdf(encrypted_pdf):
    doc = pymupdf.open(encrypted_pdf)            # guard: the fixture really needs a password
    assert doc.needs_pass and doc.authenticate("user-pw")
    doc.close()
    for call in (lambda: probe_document(encrypted_pdf), lambda: render_page(encrypted_pdf, 0),
                 lambda: search_text(encrypted_pdf, "secret"), lambda: page_size_pt(encrypted_pdf, 0)):
        with raises_media_error("is password-protected"):
            call()


def test_unsupported_suffix(tmp_path):
    path = tmp_path / "manual.docx"
    path.write_bytes(b"PK\x03\x04" + bytes(100))
    with raises_media_error("not a supported document type"):
        probe_document(path)


# ---------------------------------------------------------------------------------- text files

CP1252_TEXT = ("Sécurité au travail : portez toujours des gants et des lunettes de protection.\r\n"
               "Les opérateurs doivent vérifier l’état des équipements avant chaque utilisation — "
               "coût estimé : 250 €.\r\n")
UTF16_TEXT = "Safety note: wear gloves ✓ — 注意 — Größe 5 m².\nSecond line.\n"
SJIS_TEXT = "安全第一。作業前にヘルメットと安全靴を着用すること。フォークリフトの通路に立ち入らないこと。\n"


@pytest.mark.parametrize("name, payload, text, codecs", [
    ("win.txt", CP1252_TEXT.encode("cp1252"), CP1252_TEXT.replace("\r\n", "\n"), {"cp1252"}),
    ("utf16.txt", UTF16_TEXT.encode("utf-16"), UTF16_TEXT, {"utf_16"}),
    ("utf8bom.txt", UTF16_TEXT.encode("utf-8-sig"), UTF16_TEXT, {"utf_8"}),
    ("utf8.txt", UTF16_TEXT.encode("utf-8"), UTF16_TEXT, {"utf_8"}),
    ("sjis.txt", SJIS_TEXT.encode("shift_jis"), SJIS_TEXT, {"shift_jis", "cp932"}),
])
def test_text_file_encodings(tmp_path, name, payload, text, codecs):
    path = tmp_path / name
    path.write_bytes(payload)
    probe = probe_document(path)
    assert probe.kind == "txt" and probe.page_count == 1
    assert probe.encoding in codecs
    assert probe.pages == [PageText(page_number=0, text=text, needs_ocr=False)]


def test_binary_file_named_txt(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8).tobytes())
    with raises_media_error("binary"):
        probe_document(path)
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with raises_media_error("binary"):
        probe_document(path)


# ---------------------------------------------------------------------------- real OSHA PDFs

def _pdfinfo_pages(path: Path) -> int:
    out = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))


def _pdftotext(path: Path, page_number: int) -> str:
    """Text of one page (0-based) as poppler extracts it, in its own reading order."""
    n = str(page_number + 1)
    return subprocess.run(["pdftotext", "-f", n, "-l", n, "-enc", "UTF-8", str(path), "-"],
                          capture_output=True, text=True, check=True).stdout


@needs_osha
@pytest.mark.parametrize("path, pages", [(JHA, 50), (CONFINED, 22), (LOTO, 2)])
def test_osha_page_count(path, pages):
    """Page counts read with pdfinfo (poppler 22.02) when writing this test."""
    probe = probe_document(path)
    assert probe.page_count == pages == len(probe.pages)
    if HAVE_POPPLER:
        assert probe.page_count == _pdfinfo_pages(path)


@needs_osha
def test_osha_known_word_on_known_page():
    """'flexibility' occurs once in the LOTO fact sheet, on page 0 (right column, first line);
    pdftotext -bbox put it at (536.04, 177.24, 575.66, 188.30) pt."""
    probe = probe_document(LOTO)
    assert "flexibility" in probe.pages[0].text and "flexibility" not in probe.pages[1].text
    hits = search_text(LOTO, "Flexibility")
    assert len(hits) == 1 and hits[0][0] == 0 and len(hits[0][1]) == 1
    assert hits[0][1][0] == pytest.approx((536.04, 177.24, 575.66, 188.30), abs=1.0)
    if HAVE_POPPLER:
        assert "flexibility" in _pdftotext(LOTO, 0) and "flexibility" not in _pdftotext(LOTO, 1)


@needs_osha
def test_osha_search_pages_match_poppler():
    """'ergonomic' is on pages 27, 44 and 46 (0-based) of the JHA booklet, per pdftotext per page."""
    pages = [page for page, _ in search_text(JHA, "ergonomic")]
    assert pages == [27, 44, 46]
    probe = probe_document(JHA)
    assert [p.page_number for p in probe.pages if "ergonomic" in p.text.lower()] == [27, 44, 46]
    if HAVE_POPPLER:
        assert pages == [i for i in range(50) if "ergonomic" in _pdftotext(JHA, i).lower()]


def _words(text: str) -> list[str]:
    """Lower-case words of two or more letters. One-letter tokens are dropped because the engines map
    some bullet glyphs differently (MuPDF gives "I", poppler U+25A0 for the LOTO sheet's bullets)."""
    return [w for w in re.findall(r"\w+", text.lower()) if len(w) > 1]


@needs_osha
@needs_poppler
@pytest.mark.parametrize("path, page_number", [(LOTO, 0), (CONFINED, 5), (CONFINED, 10), (JHA, 10)])
def test_osha_reading_order_matches_poppler(path, page_number):
    """Our reading order gives the same word sequence as poppler's pdftotext (which orders columns and
    joins words hyphenated at a line end). LOTO page 1 is left out: poppler misplaces a block there
    (see test_osha_fact_sheet_page_1_order)."""
    ours = _words(probe_document(path).pages[page_number].text)
    theirs = _words(_pdftotext(path, page_number))
    assert len(theirs) > 50
    assert ours == theirs


@needs_osha
def test_osha_two_column_fact_sheet_order():
    """Page 0 of the LOTO sheet: the left column ends with 'How can you protect workers?' and its
    paragraph; the right column starts with 'The standard gives each employer the flexibility'."""
    text = " ".join(probe_document(LOTO).pages[0].text.split())
    assert text.startswith("What is the OSHA standard for control of hazardous energy sources?")
    assert (text.index("How can you protect workers?")
            < text.index("during service and maintenance.")
            < text.index("The standard gives each employer the flexibility")
            < text.index("What do employees need to know?"))


@needs_osha
def test_osha_fact_sheet_page_1_order():
    """LOTO page 1, read by hand: the left column ends "...offers extensive assistance through" and the
    sentence goes on at the top of the right column ("its many safety and health programs"); the
    full-width disclaimer and the agency name come after both columns. (pdftotext puts the left
    column's last heading after the right column.)"""
    text = " ".join(probe_document(LOTO).pages[1].text.split())
    assert "offers extensive assistance through its many safety and health programs" in text
    assert (text.index("How can you get more information?")
            < text.index("To file a complaint online")
            < text.index("This is one in a series of informational fact sheets")
            < text.index("U.S. Department of Labor Occupational Safety and Health Administration 2002"))
    assert "teletypewriter" in text                                 # "tele-" / "typewriter" joined


@needs_osha
@pytest.mark.parametrize("path, page_number, size",
                         [(LOTO, 0, (612, 792)), (JHA, 0, (360, 576)), (JHA, 3, (396, 612))])
@pytest.mark.parametrize("zoom", [1.0, 1.5, 2.0])
def test_osha_render_size_is_page_size_times_zoom(path, page_number, size, zoom):
    """Page sizes read with `pdfinfo -f 1 -l 5`: letter for the fact sheet; the JHA booklet's cover is
    its 360 x 576 pt CropBox inside a 612 x 792 MediaBox, its inner pages 396 x 612 pt."""
    assert page_size_pt(path, page_number) == pytest.approx(size)
    image = render_page(path, page_number, zoom=zoom)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[:2] == (round(size[1] * zoom), round(size[0] * zoom))
    assert image.min() < 100 and image.max() == 255               # ink on paper


@needs_osha
def test_osha_search_rect_on_cropped_page():
    """JHA cover: CropBox (126, 108, 486, 684) in a letter MediaBox. pdftotext -bbox (MediaBox space)
    put "Hazard" at (200.41, 167.47, 289.60, 190.27); our rectangle is relative to the crop box, where
    the rendered cover shows the word."""
    ((_, cover_rects),) = [h for h in search_text(JHA, "Hazard") if h[0] == 0]
    assert cover_rects[0] == pytest.approx((200.41 - 126, 167.47 - 108, 289.60 - 126, 190.27 - 108), abs=1.0)
    image = render_page(JHA, 0, zoom=1.0)
    a, b, c, d = (int(round(v)) for v in cover_rects[0])
    assert image[b:d, a:c].min() < 128                              # ink where the word is said to be


@needs_osha
@needs_poppler
def test_osha_render_matches_pdftoppm(tmp_path):
    """At 72 dpi (zoom 1) our render of LOTO page 0 and poppler's pdftoppm agree, up to anti-aliasing."""
    subprocess.run(["pdftoppm", "-f", "1", "-l", "1", "-r", "72", "-singlefile", str(LOTO),
                    str(tmp_path / "ref")], check=True)
    raw = (tmp_path / "ref.ppm").read_bytes()
    header = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", raw)        # binary PPM
    width, height, maxval = (int(v) for v in header.groups())
    assert maxval == 255
    reference = np.frombuffer(raw[header.end():], np.uint8).reshape(height, width, 3)
    ours = render_page(LOTO, 0, zoom=1.0)
    assert ours.shape == reference.shape
    # Glyph anti-aliasing differs between the engines at 72 dpi, so compare 8 x 8 px cell means.
    # Measured: same page 2.6 (max 43); the other page 23.7; the same page shifted 6 px down 18.7.
    def cells(image):
        return image[:784, :608].astype(float).reshape(98, 8, 76, 8, 3).mean(axis=(1, 3))
    assert np.abs(cells(ours) - cells(reference)).mean() < 6.0
    # Ink positions agree: measured 0.78 of poppler's dark pixels are dark in ours (0.19 when shifted).
    dark_ours, dark_ref = ours.mean(axis=2) < 128, reference.mean(axis=2) < 128
    assert (dark_ours & dark_ref).sum() / dark_ref.sum() > 0.6
