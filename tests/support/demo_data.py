"""What the demo's data files in sample_data/ hold, read for the tests (the demo is built from the same files)."""

from __future__ import annotations

from fieldstudio.core.paths import sample_data_dir
from fieldstudio.demo import ratings as demo_ratings
from fieldstudio.demo import tasks as demo_tasks
from fieldstudio.demo.annotations import (ELECTRICIANS, HIVIS, PARKING_CLIP, STORE_CLIP,  # noqa: F401
                                          WORKER_CLIP, WORKER_PHOTO, read_annotation_file)
from fieldstudio.ratings.csv_table import read_rows

ANNOTATIONS = read_annotation_file()
FLOOR = ANNOTATIONS["calibrations"][0]
FLOOR_QUAD = tuple(tuple(p) for p in FLOOR["points"])
FLOOR_SIZE_M = (FLOOR["width_m"], FLOOR["depth_m"])
CAMERA_GROUP = FLOOR["camera_group"]
FEET_TO_COLUMN = next(tuple(tuple(p) for p in a["points"]) for a in ANNOTATIONS["annotations"]
                      if a["kind"] == "ruler" and a["media"] == WORKER_CLIP)
"""The demo's floor ruler on the worker clip: the worker's feet to the base of the large column."""

SET_NAME = demo_ratings.read_rating_set()["name"]
_header, RATING_ROWS = read_rows(sample_data_dir() / demo_ratings.RATINGS_FILE)
RATERS = tuple(dict.fromkeys(row["rater"] for _, row in RATING_ROWS))

TASKS = demo_tasks.read_task_file()
TASK_IDS = tuple(t.external_id for t in TASKS)
MANUAL = "osha_factsheet_lockout_tagout_2002.pdf"
