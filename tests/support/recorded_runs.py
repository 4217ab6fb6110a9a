"""A scored run whose answers were sent frames, for the tests of its reproducibility record (tests/reproducibility/,
the ``runs`` commands in tests/cli/ and the Runs tab's record actions in tests/gui/)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.scoring.service import score_answers
from fieldstudio.store.project import Project
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_media, add_task, fake_profile


@dataclass
class RecordedRun:
    """``project`` (open) with its ``run_id``; ``files``: file name -> the clip's path in the test's folder;
    ``media``: file name -> media id; ``tasks``: external id -> task id."""

    project: Project
    run_id: str
    files: dict[str, Path]
    media: dict[str, str]
    tasks: dict[str, str]


def make_recorded_run(tmp_path: Path, clips: dict[str, Path], fake_openai) -> RecordedRun:  # noqa: ANN001
    """A fresh project holding copies of the ``mkv`` and ``mov`` clips, one task on each (external ids t1, t2,
    answers "4" and "5"), a FieldWorkArena run (1 frame/s: frames 0, 30 and 59 of the MKV,
    0 and 30 of the MOV), longest side 96 px, on the fake server (it answers "4"), and the run scored by fs-match
    (t1 correct, t2 wrong: a count fs-match reads)."""
    folder = tmp_path / "media"
    folder.mkdir()
    files = {p.name: Path(shutil.copy(p, folder / p.name)) for p in (clips["mkv"], clips["mov"])}
    project = Project.create(tmp_path / "p.fieldstudio")
    media = add_media(project, *files.values())
    tasks = {"t1": add_task(project, "how many?", [("h264.mkv", media["h264.mkv"])], external_id="t1",
                            source="manual", ground_truth="4"),
             "t2": add_task(project, "how many now?", [("h264.mov", media["h264.mov"])], external_id="t2",
                            source="manual", ground_truth="5")}
    fake_openai.responder = lambda request: Reply(text="4", prompt_tokens=10, completion_tokens=1)
    profile = fake_profile(fake_openai, seed=7, temperature=0.0)
    run_id = run_queue.create_run(project, profile, list(tasks.values()), "fieldworkarena",
                                  params={"max_side": 96})
    run_queue.execute_run(project, run_id, profile=profile)
    score_answers(project, "fs-match", [run_id])
    return RecordedRun(project, run_id, files, media, tasks)
