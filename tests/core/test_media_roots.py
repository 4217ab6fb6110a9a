"""Media under a named root (issue 22, item 2): two computers keep the same footage in different folders and
both find it through one shared project; a file moved under its root is found again by SHA-256."""

from __future__ import annotations

import shutil

import pytest
from sqlalchemy import select

from fieldstudio.core import media_roots
from fieldstudio.media import library
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project
from tests.conftest import SAMPLE


def _machine(monkeypatch, tmp_path, name: str):
    monkeypatch.setenv("FIELDSTUDIO_CONFIG_DIR", str(tmp_path / name / "config"))


def test_two_machines_share_media_through_a_root(backend_ref, tmp_path, monkeypatch):
    a_folder, b_folder = tmp_path / "a" / "footage", tmp_path / "b" / "nas" / "site"
    shutil.copytree(SAMPLE / "images", a_folder / "day1")
    shutil.copytree(SAMPLE / "images", b_folder / "day1")
    _machine(monkeypatch, tmp_path, "a")
    media_roots.set_root("site-footage", a_folder)
    with Project.create(backend_ref) as p:
        report = library.add_paths(p, [a_folder / "day1"])
        assert report.imported_total == 4
        with p.read() as s:
            rows = list(s.scalars(select(Media)))
        assert {r.media_root for r in rows} == {"site-footage"}
        assert all(r.path.startswith("day1/") for r in rows)
        ids = [r.id for r in rows]
    _machine(monkeypatch, tmp_path, "b")               # the other computer: the root is not mapped yet
    with Project.open(backend_ref) as p:
        with p.read() as s:
            m = s.get(Media, ids[0])
        with pytest.raises(media_roots.MediaRootError, match="media root 'site-footage' is not set on this computer"):
            library.media_path(p, m)
        media_roots.set_root("site-footage", b_folder)
        assert library.media_path(p, m) == b_folder / m.path
        assert library.require_file(p, m).is_file()
        # a file moved within the root is found again by its SHA-256, still stored under the root
        moved = b_folder / "moved" / m.file_name
        moved.parent.mkdir()
        (b_folder / m.path).rename(moved)
        found = library.relink(p, b_folder)
        assert found == {m.id: f"moved/{m.file_name}"}
        with p.read() as s:
            again = s.get(Media, m.id)
        assert (again.media_root, again.path) == ("site-footage", f"moved/{m.file_name}")


def test_a_bad_root_name_or_folder_is_refused(tmp_path):
    with pytest.raises(media_roots.MediaRootError, match="cannot name a media root"):
        media_roots.set_root("../up", tmp_path)
    with pytest.raises(media_roots.MediaRootError, match="is not a folder"):
        media_roots.set_root("site", tmp_path / "nope")
    assert media_roots.roots() == {}
