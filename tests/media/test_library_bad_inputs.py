"""Bad names and bad images (issue 23, item 5): non-UTF-8 names, decompression bombs, content over suffix."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

from fieldstudio.media import images, ingest, library, thumbnails
from fieldstudio.store.models import Media, Thumbnail
from fieldstudio.store.project import Project


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def png_claiming(path: Path, width: int, height: int) -> Path:
    """A 70-byte PNG whose IHDR claims ``width`` x ``height`` RGB pixels (valid chunk CRCs, tiny IDAT)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr)
                     + _png_chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + _png_chunk(b"IEND", b""))
    return path


def jpeg_claiming(path: Path, width: int, height: int) -> Path:
    """A real 16 x 16 baseline JPEG (Pillow) whose SOF0 segment is patched to claim ``width`` x ``height``."""
    small = path.with_suffix(".tmp.jpg")
    Image.new("RGB", (16, 16), (128, 128, 128)).save(small, quality=90)
    data = bytearray(small.read_bytes())
    small.unlink()
    i = 2
    while True:
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker == 0xC0:  # SOF0: length(2) precision(1) height(2) width(2)
            data[i + 5:i + 9] = struct.pack(">HH", height, width)
            break
        i += 2 + length
    path.write_bytes(bytes(data))
    return path


def _good_images(folder: Path, n: int) -> None:
    for i in range(n):
        Image.new("RGB", (8 + i, 6), (i * 20, 10, 200)).save(folder / f"ok_{i}.png")


def test_non_utf8_name_is_reported_and_the_rest_imports(tmp_path):
    """A folder of 5 good PNGs and one whose name holds byte 0xFF: 5 imported, 1 reported; the CLI prints it."""
    folder = tmp_path / "in"
    folder.mkdir()
    _good_images(folder, 5)
    bad = os.fsencode(folder) + b"/bad\xff.png"
    Image.new("RGB", (4, 4), (1, 2, 3)).save(open(bad, "wb"), format="PNG")  # noqa: SIM115 - closed by save
    assert len(os.listdir(os.fsencode(folder))) == 6
    project = tmp_path / "p.fieldstudio"
    Project.create(project).close()
    res = subprocess.run([sys.executable, "-m", "fieldstudio", "add", str(project), str(folder)],
                         capture_output=True, text=True, errors="replace", check=False)
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode == 0
    assert "imported 5 media (5 images" in res.stdout
    assert "1 file(s) could not be read" in res.stdout
    assert "bad\\xff.png" in res.stdout and "not valid UTF-8" in res.stdout
    with Project.open(project) as p, p.read() as s:
        rows = {m.file_name: m for m in s.query(Media)}
    assert sorted(n for n, m in rows.items() if m.status == "ok") == [f"ok_{i}.png" for i in range(5)]
    assert rows["bad\\xff.png"].status == "unreadable" and "UTF-8" in rows["bad\\xff.png"].error


def test_library_shows_a_non_utf8_name_as_unreadable_not_missing(qtbot, tmp_path):
    """The file whose name holds byte 0xFF is on disk: the Library says "unreadable" with the reason, not
    "missing file" (its stored name ``bad\\xff.png`` is turned back into the bytes to look for it)."""
    from PySide6.QtCore import Qt

    from fieldstudio.core.file_names import from_printable, printable_path
    from fieldstudio.gui.panels.library import MediaListModel

    folder = tmp_path / "in"
    folder.mkdir()
    bad = os.fsencode(folder) + b"/bad\xff.png"
    Image.new("RGB", (4, 4), (1, 2, 3)).save(open(bad, "wb"), format="PNG")  # noqa: SIM115 - closed by save
    assert from_printable(printable_path(os.fsdecode(bad))) == os.fsdecode(bad)
    assert from_printable("plain\\x41.png") == "plain\\x41.png"  # ASCII is never escaped by printable_path
    project = tmp_path / "p.fieldstudio"
    with Project.create(project) as p:
        library.add_paths(p, [folder])
    model = MediaListModel(project)
    text = model.index(0, 0).data()
    assert text.splitlines() == ["bad\\xff.png", "unreadable"]
    tip = model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "not valid UTF-8 (rename the file to import it)" in tip and "missing" not in tip
    os.unlink(bad)
    model.reload()
    assert model.index(0, 0).data().splitlines() == ["bad\\xff.png", "unreadable · missing file"]


def _bombs_and_good_images(folder: Path, good: int) -> Path:
    """``folder`` with bomb.png (40000 x 40000), bomb.jpg (60000 x 60000) and ``good`` small PNGs."""
    folder.mkdir()
    png_claiming(folder / "bomb.png", 40000, 40000)
    jpeg_claiming(folder / "bomb.jpg", 60000, 60000)
    _good_images(folder, good)
    return folder


def test_decompression_bombs_are_refused_and_thumbnails_carry_on(tmp_path, project):
    """Headers claiming 40000 x 40000 (PNG, 1.6 Gpx) and 60000 x 60000 (JPEG, 3.6 Gpx) are refused at import."""
    folder = _bombs_and_good_images(tmp_path / "in", 2)
    with Image.open(folder / "bomb.jpg") as im:
        assert im.size == (60000, 60000)  # what Pillow reads from the header
    report = ingest.add_index_thumbnail(project, [folder])
    reasons = {Path(p).name: r for p, r in report.unreadable}
    assert set(reasons) == {"bomb.png", "bomb.jpg"}
    assert "40000x40000" in reasons["bomb.png"] and "1600 megapixels" in reasons["bomb.png"]
    assert "60000x60000" in reasons["bomb.jpg"] and "250 megapixels" in reasons["bomb.jpg"]
    assert report.imported["image"] == 2
    with project.read() as s:
        assert s.query(Thumbnail).count() == 2
    # the limit is a parameter: a 20 x 20 image is refused at 300 pixels, then accepted at 400
    small = folder / "twenty.png"
    Image.new("RGB", (20, 20)).save(small)
    assert "above the import limit" in library.add_paths(project, [small], max_image_pixels=300).unreadable[0][1]
    assert library.add_paths(project, [small], max_image_pixels=400).imported["image"] == 1
    with project.read() as s:
        assert [(m.status, m.width) for m in s.query(Media).filter_by(file_name="twenty.png")] == [("ok", 20)]


def test_thumbnail_step_survives_a_bomb_already_in_the_project(tmp_path, project):
    """A bomb imported by an older fieldstudio (or above a raised limit) never stops the other thumbnails."""
    folder = _bombs_and_good_images(tmp_path / "in", 3)
    report = library.add_paths(project, [folder], max_image_pixels=10**10)
    assert report.imported["image"] == 5
    thumbnails.make_thumbnails(project, report.media_ids)  # before the fix: cv2.error on bomb.png
    with project.read() as s:
        have = {m.file_name for m in s.query(Media).join(Thumbnail, Thumbnail.media_id == Media.id)}
    assert have >= {"ok_0.png", "ok_1.png", "ok_2.png"} and "bomb.png" not in have


def test_kind_comes_from_the_content_not_the_suffix(tmp_path, project):
    """A JPEG named .mp4 is an image of its real size; an MP4 named .jpg is a video; a PDF named .txt a document."""
    import pymupdf

    photo = tmp_path / "photo.mp4"
    Image.new("RGB", (32, 24), (90, 90, 90)).save(photo, format="JPEG")
    clip_as_jpg = tmp_path / "clip.jpg"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1",
                    "-pix_fmt", "yuv420p", "-f", "mp4", str(clip_as_jpg)], check=True)
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "manual")
    pdf_as_txt = tmp_path / "manual.txt"
    pdf_as_txt.write_bytes(doc.tobytes())
    report = library.add_paths(project, [photo, clip_as_jpg, pdf_as_txt])
    assert report.unreadable == []
    with project.read() as s:
        rows = {m.file_name: m for m in s.query(Media)}
    assert (rows["photo.mp4"].kind, rows["photo.mp4"].width, rows["photo.mp4"].height) == ("image", 32, 24)
    assert (rows["clip.jpg"].kind, rows["clip.jpg"].width, rows["clip.jpg"].height) == ("video", 64, 48)
    assert (rows["manual.txt"].kind, rows["manual.txt"].format, rows["manual.txt"].page_count) == (
        "document", "pdf", 1)
    assert images.read_image(photo).shape == (24, 32, 3)
    assert np.all(images.read_image(photo) > 80)
