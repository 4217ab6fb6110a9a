"""Adding media: kinds, EXIF, duplicates, relative paths, relinking, and the bad inputs users really have."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from fieldstudio.core.errors import ProjectError, ProjectReadOnly
from fieldstudio.media import images, library
from fieldstudio.store.models import DocumentPage, Media
from fieldstudio.store.project import Project
from fieldstudio.store.schema_revisions import head_revision
from tests.conftest import SAMPLE


def _exif6_jpeg(path: Path) -> Path:
    """Stored 100 x 40 (W x H) with EXIF Orientation 6 and a red strip at the stored left edge."""
    arr = np.full((40, 100, 3), 200, np.uint8)
    arr[:, :10] = (255, 0, 0)
    im = Image.fromarray(arr)
    exif = im.getexif()
    exif[0x0112] = 6
    im.save(path, exif=exif, quality=95)
    return path


def test_exif_orientation_applied_once(tmp_path, project):
    p = _exif6_jpeg(tmp_path / "exif6.jpg")
    probe = images.probe_image(p)
    assert (probe.width, probe.height, probe.orientation) == (40, 100, 6)
    rgb = images.read_image(p)
    assert rgb.shape == (100, 40, 3)
    # orientation 6 = rotate 90 clockwise to view: the stored left edge becomes the top
    assert rgb[:8, :, 0].mean() > 240 and rgb[:8, :, 1].mean() < 30
    report = library.add_paths(project, [p])
    assert report.imported["image"] == 1
    with project.read() as s:
        m = s.query(Media).one()
    assert (m.width, m.height, m.orientation) == (40, 100, 6)


def test_sample_data_imports_with_documents(project):
    report = library.add_paths(project, [SAMPLE])
    assert dict(report.imported) == {"image": 4, "video": 3, "document": 1}
    assert report.unreadable == []
    with project.read() as s:
        pdf = s.query(Media).filter_by(kind="document").one()
        pages = s.query(DocumentPage).filter_by(media_id=pdf.id).count()
    assert pdf.page_count == 2 == pages
    # same folder again: everything is a duplicate, nothing new
    again = library.add_paths(project, [SAMPLE])
    assert again.imported_total == 0 and len(again.duplicates) == 8


def test_bad_inputs_are_listed_and_the_rest_imports(tmp_path, project):
    src = tmp_path / "in"
    src.mkdir()
    (src / "empty.jpg").write_bytes(b"")
    (src / "not an image.jpg").write_text("hello, I am text")
    good = shutil.copy(SAMPLE / "videos" / "worker_zone_hardhat_vest_from_gif.mp4", src / "ok clip é 视频.mp4")
    data = Path(good).read_bytes()
    (src / "half.mp4").write_bytes(data[: len(data) // 2][:4000])
    shutil.copy(SAMPLE / "images" / "retail_grocery_Bravo-Orange-Juice_024.jpg", src / "grocery ü.jpg")
    report = library.add_paths(project, [src, tmp_path / "nope.png"])
    reasons = {Path(p).name: r for p, r in report.unreadable}
    assert reasons["empty.jpg"] == "is empty (0 bytes)"
    assert "not an image" in reasons["not an image.jpg"]
    assert "half.mp4" in reasons
    assert reasons["nope.png"] == "does not exist"
    assert report.imported["video"] == 1 and report.imported["image"] == 1
    assert project.integrity_check() == "ok"
    with project.read() as s:
        names = {m.file_name for m in s.query(Media).filter_by(status="ok")}
        bad = {m.file_name: m.error for m in s.query(Media).filter_by(status="unreadable")}
    assert names == {"ok clip é 视频.mp4", "grocery ü.jpg"}
    assert bad["empty.jpg"] == "is empty (0 bytes)"


def test_huge_jpeg_probes_and_previews_without_full_decode(tmp_path, project):
    big = tmp_path / "big.jpg"
    arr = np.zeros((12000, 12000, 3), np.uint8)
    arr[::100] = 255
    images.write_image(big, arr)
    del arr
    report = library.add_paths(project, [big])
    assert report.imported["image"] == 1
    preview = images.read_image(big, max_side=1000)
    assert max(preview.shape[:2]) <= 1000


def test_password_protected_pdf(tmp_path, project):
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    path = tmp_path / "locked.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    report = library.add_paths(project, [path])
    assert "password" in report.unreadable[0][1]


def test_two_thousand_small_images(tmp_path, project):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(2000):
        Image.new("RGB", (8, 8), (i % 256, i // 256, 7)).save(folder / f"img_{i:04d}.png")
    report = library.add_paths(project, [folder])
    assert report.imported["image"] == 2000
    assert library.media_counts(project)["image"] == 2000


def test_file_deleted_between_scan_and_import(tmp_path, project, monkeypatch):
    a = shutil.copy(SAMPLE / "images" / "retail_grocery_Bravo-Orange-Juice_024.jpg", tmp_path / "a.jpg")
    b = shutil.copy(SAMPLE / "images" / "ppe_worker_hardhat_vest_warehouse_zone_frame045.png", tmp_path / "b.png")
    real_scan = library.scan

    def scan_then_delete(paths):
        found = real_scan(paths)
        os.unlink(a)
        return found

    monkeypatch.setattr(library, "scan", scan_then_delete)
    report = library.add_paths(project, [tmp_path])
    assert report.imported["image"] == 1
    assert "no longer exists" in dict((Path(p).name, r) for p, r in report.unreadable)["a.jpg"]
    assert Path(b).exists()


def test_relative_paths_and_relink(tmp_path):
    folder = tmp_path / "site"
    (folder / "clips").mkdir(parents=True)
    shutil.copy(SAMPLE / "images" / "retail_grocery_Bravo-Orange-Juice_024.jpg", folder / "clips" / "g.jpg")
    with Project.create(folder / "p.fieldstudio") as p:
        library.add_paths(p, [folder / "clips"])
        with p.read() as s:
            assert s.query(Media).one().path == "clips/g.jpg"
        moved = tmp_path / "elsewhere"
        moved.mkdir()
        shutil.move(folder / "clips" / "g.jpg", moved / "renamed.jpg")
        found = library.relink(p, moved)
        assert len(found) == 1
        with p.read() as s:
            m = s.query(Media).one()
        assert library.require_file(p, m) == (moved / "renamed.jpg").resolve()


def test_read_only_project_refuses_writes_and_keeps_data(tmp_path):
    path = tmp_path / "ro.fieldstudio"
    with Project.create(path) as p:
        library.add_paths(p, [SAMPLE / "images"])
    os.chmod(path, 0o444)
    p = Project.open(path)
    assert p.read_only
    with pytest.raises(ProjectReadOnly):
        library.add_paths(p, [SAMPLE / "docs"])
    assert library.media_counts(p)["image"] == 4
    p.close()


def test_newer_schema_refused_and_older_migrated(tmp_path):
    path = tmp_path / "future.fieldstudio"
    Project.create(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE alembic_version SET version_num = '9999_future'")
    con.commit()
    con.close()
    with pytest.raises(ProjectError, match="newer fieldstudio"):
        Project.open(path)
    # an empty SQLite file with no schema is "older": copied aside, then migrated
    old = tmp_path / "old.fieldstudio"
    sqlite3.connect(old).execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)").connection.commit()
    p = Project.open(old)
    assert p.schema_revision() == head_revision()
    assert p.backup_path is not None and p.backup_path.exists()
    p.close()


def test_not_a_project(tmp_path):
    junk = tmp_path / "junk.fieldstudio"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ProjectError, match="junk.fieldstudio"):
        Project.open(junk)
    empty = tmp_path / "empty.fieldstudio"
    empty.write_bytes(b"")
    with pytest.raises(ProjectError, match="empty"):
        Project.open(empty)


def test_concurrent_read_modify_write_loses_nothing(project):
    """Two threads each read a counter and write it back + 1, 50 times: BEGIN IMMEDIATE keeps all 100."""
    import threading

    project.set_setting("n", 0)

    def work():
        for _ in range(50):
            with project.write() as s:
                from fieldstudio.store.models import ProjectSetting

                row = s.get(ProjectSetting, "n")
                row.value = row.value + 1

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert project.setting("n") == 100
