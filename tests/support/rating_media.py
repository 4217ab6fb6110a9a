"""Three sample photos and a sample video, added to a project for the rating tests (ratings, packages,
acceptability, the ratings command line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fieldstudio.media import library, video_index
from fieldstudio.store.project import Project

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "media"
PHOTOS = ["ppe_electricians_hardhat_vest_wire_room_mta.jpg", "retail_grocery_Bravo-Orange-Juice_024.jpg",
          "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"]
VIDEO = "parking_lot_car_bicycle_from_gif.mp4"


def add_media(project: Project) -> dict[str, str]:
    """Add ``PHOTOS`` and ``VIDEO`` (indexed); {file name: media id}. Skips when a sample file is missing."""
    paths = [SAMPLE / "images" / p for p in PHOTOS] + [SAMPLE / "videos" / VIDEO]
    for p in paths:
        if not p.exists():
            pytest.skip(f"sample file {p} is missing")
    report = library.add_paths(project, paths)
    assert report.imported_total == 4
    video_index.index_videos(project, report.media_ids)
    return {library.find_media(project, p.name).file_name: library.find_media(project, p.name).id for p in paths}
