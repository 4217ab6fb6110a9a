"""Media rows for annotation tests: a video with a hand-written variable-rate frame table, and a photo.

No files are needed: the service reads only the media rows and the stored frame table. The PTS below
are chosen by hand (time base 1/90000 s; durations 3000, 3000, 6000 ticks repeating: 30 fps with
every third frame held twice as long), so a PTS computed as index / fps would differ from them.
"""

from __future__ import annotations

from fractions import Fraction

from sqlalchemy import insert

from fieldstudio.store.models import FrameIndexRow, Media
from fieldstudio.store.project import Project

VIDEO_ID = "a" * 32
PHOTO_ID = "b" * 32
UNINDEXED_ID = "c" * 32
TIME_BASE = Fraction(1, 90000)
N_FRAMES = 30
START_PTS = 1800                      # the stream does not start at 0
DURATIONS = (3000, 3000, 6000)        # ticks, repeating


def hand_pts(index: int) -> int:
    """PTS of frame ``index``: START_PTS plus the durations of the frames before it."""
    return START_PTS + sum(DURATIONS[i % 3] for i in range(index))


def only_the_photo_file_missing(skipped: list[tuple[str, str]]) -> bool:
    """Whether an export's ``skipped`` holds only the test photo left out of CVAT's ``images/`` copy: the media rows
    ``add_test_media`` makes have no files."""
    return [what for what, _reason in skipped] == ["photo site.jpg"]


def add_test_media(project: Project) -> None:
    """Insert a 640x480 video (30 frames, frame table as above), a 400x300 photo and an unindexed video."""
    with project.write() as s:
        s.add(Media(id=VIDEO_ID, kind="video", path="clips/walk.mp4", file_name="walk.mp4", width=640, height=480,
                    time_base_num=TIME_BASE.numerator, time_base_den=TIME_BASE.denominator,
                    frame_count=N_FRAMES, index_status="ready", avg_fps=22.5))
        s.add(Media(id=PHOTO_ID, kind="image", path="photos/site.jpg", file_name="site.jpg", width=400, height=300))
        s.add(Media(id=UNINDEXED_ID, kind="video", path="clips/new.mp4", file_name="new.mp4", width=640,
                    height=480, time_base_num=1, time_base_den=90000, index_status="pending"))
        s.flush()
        s.execute(insert(FrameIndexRow), [
            {"media_id": VIDEO_ID, "frame_index": i, "pts": hand_pts(i), "keyframe": i % 10 == 0}
            for i in range(N_FRAMES)])
