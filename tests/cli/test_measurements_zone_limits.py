"""A zone check is refused for frames that are not the zone's video's (reversed, before 0, past the last frame), and
a zone whose edges cross has its inside rule stated (issue 32 item 1, the fresh-eyes check); a shape drawn wholly
outside the image says so. The test video has frames 0-29."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import zone_limits
from fieldstudio.annotations.zones import ZoneError
from fieldstudio.cli.app import app
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID

ZONE = [[100, 300], [400, 290], [420, 420], [90, 430]]
# (300,100)-(100,300) and (250,300)-(100,100) cross where 100 + 200t = 300 - 200u, t = 1 - u: u = 3/7,
# (250 - 150 * 3/7, 300 - 200 * 3/7) = (185.71, 214.29)
BOWTIE = [[100, 100], [300, 100], [100, 300], [250, 300]]


@pytest.mark.parametrize("start, end, message", [
    (50, 40, "the first frame 50 is past the last frame of walk.mp4 (29)"),
    (20, 10, "the first frame 20 is after the last frame 10"),
    (-5, 10, "the first frame -5 is before frame 0"),
    (0, 1000, "the last frame 1000 is past the last frame of walk.mp4 (29)"),
])
def test_a_range_that_is_no_frames_of_the_video_is_refused(media_project, start, end, message):
    zone = ann.add_shape(media_project, VIDEO_ID, "polygon", ZONE, frame_index=10)
    with pytest.raises(ZoneError, match=message.replace("(", r"\(").replace(")", r"\)")):
        zone_limits.check_frame_range(media_project, zone, start, end)
    zone_limits.check_frame_range(media_project, zone, 0, 29)          # the whole video is a range
    zone_limits.check_frame_range(media_project, zone, None, None)


def test_the_zone_command_refuses_with_exit_2_and_the_ground_truth_link_too(media_project, wide_console):
    p = media_project
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=10)
    ts.create_task(p, query="?", external_id="Z1")
    runner = CliRunner()
    res = runner.invoke(app, ["zone", str(p.path), zone, "--from-frame", "20", "--to-frame", "10"])
    assert res.exit_code == 2 and "the first frame 20 is after the last frame 10" in res.output, res.output
    res = runner.invoke(app, ["zone", str(p.path), zone, "--from-frame", "-5", "--to-frame", "1000"])
    assert res.exit_code == 2 and "before frame 0" in res.output
    res = runner.invoke(app, ["tasks", "ground-truth", str(p.path), "Z1", "--zone", zone, "--from-frame", "20",
                              "--to-frame", "10"])
    assert res.exit_code == 2 and "after the last frame 10" in res.output
    assert not gt.compute(p, gt.GroundTruthLink("inside_zone", annotation_id=zone, start_frame=20, end_frame=10)).ok


def test_a_crossing_zone_states_its_inside_rule(media_project, wide_console):
    p = media_project
    zone = ann.add_shape(p, VIDEO_ID, "polygon", BOWTIE, frame_index=10)
    assert zone_limits.inside_rule(ZONE) is None
    rule = zone_limits.inside_rule(BOWTIE)
    assert rule.startswith("the zone's edges cross at (185.7, 214.3)") and "even-odd" in rule
    res = CliRunner().invoke(app, ["zone", str(p.path), zone])
    assert "the zone's edges cross at (185.7, 214.3)" in res.output


def test_a_polygon_wholly_outside_the_image_says_so(media_project):
    with pytest.raises(ann.AnnotationError, match="walk.mp4: the polygon lies wholly outside the 640 x 480 image"):
        ann.add_shape(media_project, VIDEO_ID, "polygon", [[700, 10], [800, 20], [750, 90]], frame_index=3)
    with pytest.raises(ZoneError, match="on the photo site.jpg"):
        zone_limits.check_frame_range(media_project, ann.add_shape(media_project, PHOTO_ID, "polygon", ZONE[:3]),
                                      0, 3)
