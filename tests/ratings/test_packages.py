"""Rating packages between two projects: blind out, rated offline, merged back by UUID."""

from __future__ import annotations

import json
import time
import zipfile

import pytest

from fieldstudio.media import library
from fieldstudio.ratings import packages as rp
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.project import Project
from tests.support.rating_media import PHOTOS, SAMPLE, VIDEO, add_media


@pytest.fixture
def lead(tmp_path):
    (tmp_path / "lead").mkdir()
    p = Project.create(tmp_path / "lead" / "lead.fieldstudio")
    ids = add_media(p)
    ratings.create_rating_set(p, "panels", "The panel label is readable",
                              fields=[{"name": "tape", "type": "number", "unit": "in", "tolerance": 0.125}])
    ratings.add_items(p, "panels", [ratings.ItemRef(ids[PHOTOS[0]], ground_truth={"verdict": "accept"}),
                                    ids[PHOTOS[1]], (ids[VIDEO], 12)])
    items = ratings.list_items(p, "panels")
    ratings.record_rating(p, items[0].id, "lead", "accept", fields={"tape": 3.5})
    yield p
    p.close()


@pytest.fixture
def rater_project(tmp_path):
    (tmp_path / "rater").mkdir()
    p = Project.create(tmp_path / "rater" / "rater.fieldstudio")
    yield p
    p.close()


def snapshot(project: Project) -> list[tuple]:
    return sorted((r.id, r.item_id, r.rater, r.verdict, tuple(r.reasons), json.dumps(r.fields, sort_keys=True),
                   r.seconds_spent) for r in ratings.list_ratings(project, "panels"))


def test_round_trip_between_two_projects(lead, rater_project, tmp_path):
    blind = tmp_path / "panels.zip"
    report = rp.export_package(lead, "panels", blind)
    assert (report.items, report.ratings, report.media_files) == (3, 0, 3)
    with zipfile.ZipFile(blind) as z:
        manifest = json.loads(z.read("package.json"))
        assert manifest["ratings"] == []                                   # blind: no answers
        assert all("ground_truth" not in it for it in manifest["items"])   # nor ground truth
        names = sorted(z.namelist())
    sha = library.sha256_file(SAMPLE / "videos" / VIDEO)[0]
    assert f"media/{sha}.mp4" in names and len(names) == 4

    got = rp.import_package(rater_project, blind)
    assert got.set_created and got.items_added == 3 and got.media_added == 3 and not got.media_missing
    lead_items = ratings.list_items(lead, "panels")
    rater_items = ratings.list_items(rater_project, "panels")
    assert [i.id for i in rater_items] == [i.id for i in lead_items]          # same UUIDs
    assert [i.label for i in rater_items] == [i.label for i in lead_items]
    assert [i.sha256 for i in rater_items] == [i.sha256 for i in lead_items]
    assert ratings.list_ratings(rater_project, "panels") == []

    # the rater works offline; the video frame is the exact frame the lead queued
    for item, verdict in zip(rater_items, ["reject", "accept", "unsure"]):
        ratings.record_rating(rater_project, item.id, "rita", verdict, seconds_spent=3.0,
                              reasons=["blurry"] if verdict == "reject" else [])
    back = tmp_path / "panels-rita.json"
    out = rp.export_package(rater_project, "panels", back, ratings_of=["rita"], include_media=False)
    assert out.ratings == 3 and out.media_files == 0

    merged = rp.import_package(lead, back)
    assert (merged.ratings_added, merged.ratings_updated, merged.items_added, merged.items_known) == (3, 0, 0, 3)
    humans, _ = ratings.verdict_tables(lead, "panels")
    assert humans[lead_items[0].id] == {"lead": "accept", "rita": "reject"}
    before = snapshot(lead)
    again = rp.import_package(lead, back)                                     # importing twice changes nothing
    assert (again.ratings_added, again.ratings_updated, again.ratings_unchanged) == (0, 0, 3)
    assert snapshot(lead) == before
    # the rating ids travel unchanged (merge by UUID)
    assert {r[0] for r in snapshot(rater_project)} <= {r[0] for r in before}


def test_conflicting_edits_keep_both_versions(lead, rater_project, tmp_path):
    blind = tmp_path / "p.zip"
    rp.export_package(lead, "panels", blind)
    rp.import_package(rater_project, blind)
    item = ratings.list_items(rater_project, "panels")[1]
    ratings.record_rating(rater_project, item.id, "rita", "accept")
    first = tmp_path / "first.json"
    rp.export_package(rater_project, "panels", first, ratings_of="rita", include_media=False)
    rp.import_package(lead, first)
    time.sleep(0.01)
    # rita changes her mind later: the newer version wins, the older one is kept in its history
    ratings.record_rating(rater_project, item.id, "rita", "reject", reasons=["too far"])
    second = tmp_path / "second.json"
    rp.export_package(rater_project, "panels", second, ratings_of="rita", include_media=False)
    r = rp.import_package(lead, second)
    assert r.conflicts == [(PHOTOS[1], "rita", "package")]
    kept = ratings.get_rating(lead, item.id, "rita")
    assert kept.verdict == "reject" and kept.reasons == ["too far"]
    with lead.read() as s:
        from fieldstudio.store.models import Rating
        row = s.get(Rating, kept.id)
        history = row.fields[ratings.HISTORY_KEY]
    assert [h["verdict"] for h in history] == ["accept"]
    # the older package imported again does not overwrite the newer answer (its version is in the history)
    before = snapshot(lead)
    r = rp.import_package(lead, first)
    assert (r.conflicts, r.ratings_unchanged) == ([], 1)
    assert ratings.get_rating(lead, item.id, "rita").verdict == "reject" and snapshot(lead) == before
    # a local edit newer than the package wins; the package's version joins the history once
    time.sleep(0.01)
    ratings.record_rating(lead, item.id, "rita", "unsure")
    r = rp.import_package(lead, second)
    assert r.conflicts == [(PHOTOS[1], "rita", "local")]
    assert ratings.get_rating(lead, item.id, "rita").verdict == "unsure"
    before = snapshot(lead)
    r = rp.import_package(lead, second)
    assert r.ratings_unchanged == 1 and snapshot(lead) == before
    with lead.read() as s:
        history = s.get(Rating, kept.id).fields[ratings.HISTORY_KEY]
    assert [h["verdict"] for h in history] == ["accept", "reject"]
    # other raters' ratings are never touched
    assert ratings.get_rating(lead, ratings.list_items(lead, "panels")[0].id, "lead").verdict == "accept"


def test_json_package_finds_media_by_hash_and_reports_missing(lead, tmp_path):
    (tmp_path / "third").mkdir()
    third = Project.create(tmp_path / "third" / "third.fieldstudio")
    try:
        library.add_paths(third, [SAMPLE / "images" / PHOTOS[0]])
        pkg = tmp_path / "p.json"
        rp.export_package(lead, "panels", pkg, include_media=False, include_ground_truth=True)
        r = rp.import_package(third, pkg)
        assert r.items_added == 3 and r.media_added == 0
        assert sorted(r.media_missing) == sorted([PHOTOS[1], VIDEO])
        items = ratings.list_items(third, "panels")
        assert items[0].media_id == library.find_media(third, PHOTOS[0]).id
        assert items[0].ground_truth == {"verdict": "accept"}
        assert items[1].media_id is None
    finally:
        third.close()


def test_bad_packages_are_refused_with_the_file_named(lead, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something-else"}')
    with pytest.raises(rp.PackageError, match="bad.json: is not a fieldstudio rating package"):
        rp.import_package(lead, bad)
    bad.write_text("not json")
    with pytest.raises(rp.PackageError, match="bad.json: cannot be read"):
        rp.read_package(bad)
    with pytest.raises(rp.PackageError, match="cannot hold media"):
        rp.export_package(lead, "panels", tmp_path / "x.json")
    # a different set with the same name is not merged silently
    (tmp_path / "other").mkdir()
    other = Project.create(tmp_path / "other" / "o.fieldstudio")
    try:
        ratings.create_rating_set(other, "panels")
        pkg = tmp_path / "p.json"
        rp.export_package(lead, "panels", pkg, include_media=False)
        with pytest.raises(rp.PackageError, match="different rating set named 'panels'"):
            rp.import_package(other, pkg)
    finally:
        other.close()


def _repack(src, dst, change):
    """Copy ZIP ``src`` to ``dst`` with ``change(name, data) -> data`` applied to each member."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, change(info.filename, zin.read(info.filename)),
                          compress_type=info.compress_type)


def test_a_manifest_bomb_is_refused_before_it_is_read(lead, rater_project, tmp_path):
    """A package.json that inflates 1,000 times (2 MB of spaces from about 2 kB) is refused from its header."""
    pkg = tmp_path / "panels.zip"
    rp.export_package(lead, "panels", pkg)
    bomb = tmp_path / "bomb.zip"
    _repack(pkg, bomb, lambda name, data: data + b" " * 2_000_000 if name == "package.json" else data)
    with pytest.raises(rp.PackageError) as caught:
        rp.import_package(rater_project, bomb)
    message = str(caught.value)
    assert message.startswith(f"{bomb}: package.json would inflate") and message.endswith("more than 200; not read")
    assert "\n" not in message


def test_a_member_failing_its_hash_is_not_kept(lead, rater_project, tmp_path):
    pkg = tmp_path / "panels.zip"
    rp.export_package(lead, "panels", pkg)
    sha = library.sha256_file(SAMPLE / "videos" / VIDEO)[0]
    forged = tmp_path / "forged.zip"
    _repack(pkg, forged, lambda name, data: data[:-10] + b"0123456789" if name == f"media/{sha}.mp4" else data)
    report = rp.import_package(rater_project, forged)
    assert report.media_added == 2
    assert report.media_missing == [f"{VIDEO} (its SHA-256 does not match the package's: not kept)"]
    kept = sorted(p.name for p in (rater_project.folder / "rater_rating_media").iterdir())
    assert VIDEO not in kept and not [n for n in kept if n.endswith(".tmp")]


def test_a_deeply_nested_manifest_is_one_line(rater_project, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(rp.PackageError, match=r"deep.json: its package.json is nested deeper than [\d,]+ levels"):
        rp.import_package(rater_project, deep)
