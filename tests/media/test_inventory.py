"""The media inventory the fronts read instead of the media table (issue 35 item 3); the runs' and the change
log's owners are tested in tests/inference/test_run_records.py and tests/store/test_change_feed.py."""

from __future__ import annotations

from pathlib import Path

from fieldstudio.media import inventory, library

IMAGES = Path(__file__).resolve().parents[2] / "sample_data" / "media" / "images"


def test_media_inventory_lists_every_media_by_name(project, tmp_path):
    broken = tmp_path / "a_broken.jpg"
    broken.write_bytes(b"not a picture")
    report = library.add_paths(project, [IMAGES / "retail_grocery_Bravo-Orange-Juice_024.jpg",
                                         IMAGES / "ppe_worker_hardhat_vest_warehouse_zone_frame045.png", broken])
    assert len(report.unreadable) == 1
    names = inventory.media_names(project)
    choices = inventory.media_choices(project)
    assert [c.file_name for c in choices] == ["a_broken.jpg", "ppe_worker_hardhat_vest_warehouse_zone_frame045.png",
                                              "retail_grocery_Bravo-Orange-Juice_024.jpg"]
    assert {c.id: c.file_name for c in choices} == names and {c.kind for c in choices} == {"image"}
    assert inventory.unreadable_count(project) == 1
    assert inventory.video_summaries(project) == [] and inventory.document_summaries(project) == []
    assert inventory.media_roots_in_use(project) == []
