"""Frame thumbnails (fieldstudio.media.thumbnails.frame_thumbnails) on a barcoded clip: every thumbnail, scaled
back to the clip's size, reads the index of the frame it was asked for (tests/support/video_fixtures.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from fieldstudio.media import frame_table, library, thumbnails, video_index
from fieldstudio.store.models import Thumbnail
from tests.support.video_fixtures import H, W, read_barcode


def _index_of(jpeg: bytes) -> int:
    rgb = cv2.cvtColor(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    return read_barcode(cv2.resize(rgb, (W, H), interpolation=cv2.INTER_LINEAR))


@pytest.fixture
def clip_project(project, clips):
    report = library.add_paths(project, [clips["vfr"]])
    assert report.imported_total == 1
    assert video_index.index_videos(project) == []
    media_id = library.find_media(project, "vfr.mp4").id
    return project, media_id


def test_thumbnails_are_the_frames_asked_for_and_are_cached(clip_project, monkeypatch):
    p, media_id = clip_project
    wanted = [(media_id, 299), (media_id, 0), (media_id, 151), (media_id, 150), (media_id, 151)]
    got = thumbnails.frame_thumbnails(p, wanted)
    assert sorted(got) == [(media_id, 0), (media_id, 150), (media_id, 151), (media_id, 299)]
    assert {key: _index_of(jpeg) for key, jpeg in got.items()} == {key: key[1] for key in got}
    with p.read() as s:
        rows = {(r.frame_index, r.width, r.height) for r in s.query(Thumbnail).filter_by(media_id=media_id)}
    assert rows == {(i, 256, 154) for i in (0, 150, 151, 299)}       # 320x192 fitted within 256 px
    # the second time nothing is decoded: a frame source that cannot open anything changes nothing
    monkeypatch.setattr(thumbnails, "FrameSource", None)
    assert thumbnails.frame_thumbnails(p, wanted) == got


def test_frames_that_cannot_be_read_are_left_out(clip_project):
    p, media_id = clip_project
    got = thumbnails.frame_thumbnails(p, [(media_id, 10), (media_id, 5000), ("f" * 32, 3)])
    assert list(got) == [(media_id, 10)] and _index_of(got[(media_id, 10)]) == 10


def test_the_media_preview_is_still_made_beside_frame_thumbnails(clip_project):
    p, media_id = clip_project
    with p.write() as s:
        s.query(Thumbnail).delete()
    thumbnails.frame_thumbnails(p, [(media_id, 40)])
    assert thumbnails.make_thumbnails(p) == 1
    assert _index_of(thumbnails.thumbnail_jpeg(p, media_id)) == 0


def test_a_replaced_frame_table_drops_the_frame_thumbnails_but_keeps_the_preview(clip_project):
    p, media_id = clip_project
    thumbnails.frame_thumbnails(p, [(media_id, 0), (media_id, 40)])
    media = library.find_media(p, media_id)
    table = video_index.load_frame_table(p, media)
    shorter = frame_table.FrameTable(table.pts[:200], table.keyframe[:200], table.time_base)
    video_index.store_frame_table(p, media_id, shorter)
    with p.read() as s:
        assert [r.frame_index for r in s.query(Thumbnail).filter_by(media_id=media_id)] == [0]


def test_a_photo_sent_shows_its_preview_made_when_missing(project, tmp_path):
    """A photo imported without its preview (the CLI's import makes none): the filmstrip asks for (photo, 0) and
    gets the photo, a pure red 400x300 picture scaled to 256x192, not an empty button."""
    photo = tmp_path / "site.png"
    cv2.imwrite(str(photo), np.full((300, 400, 3), (0, 0, 255), np.uint8))       # BGR: red
    library.add_paths(project, [photo])
    media_id = library.find_media(project, "site.png").id
    assert thumbnails.thumbnail_jpeg(project, media_id) is None
    got = thumbnails.frame_thumbnails(project, [(media_id, 0)])
    rgb = cv2.cvtColor(cv2.imdecode(np.frombuffer(got[(media_id, 0)], np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    assert rgb.shape == (192, 256, 3)
    assert np.abs(rgb.astype(int) - (255, 0, 0)).max() <= 8                      # JPEG rounding only
    assert thumbnails.thumbnail_jpeg(project, media_id) == got[(media_id, 0)]  # stored as its preview
