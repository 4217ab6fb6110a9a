"""The OCR-only baseline: an answer source that answers each task with the text OCR reads in its photos and video
frames, and nothing else (RealityBench-style readings of tapes, gauges and labels), so the Compare grid shows where a
vision-language model does better than plain OCR on the same tasks.

Stored as an import run (``Run(kind="import")``, ``params["source"] == "ocr-only"``, the engine and frames read in
its params), named ``OCR only``; made again it updates that run's answers in place. Each answer's ``parsed`` holds
``{"answer": text}`` and, per frame read, ``{"media_id", "frame_index", "text"}`` under ``"frames"``. A task with
no photo or video input gets no answer (documents are text already; OCR adds nothing the question could use).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy import select

from fieldstudio.core.errors import MediaError
from fieldstudio.core.wording import plural
from fieldstudio.inference import sampling
from fieldstudio.inference.inputs import load_tasks
from fieldstudio.media import ocr
from fieldstudio.media.frame_text import read_frame_text
from fieldstudio.media.video_index import load_frame_table
from fieldstudio.store.models import Answer, Run, Task, new_id, utcnow
from fieldstudio.store.project import Project

SOURCE_NAME = "OCR only"

#: Frames read per video input, spread evenly over its time range (the first, the middle, the last for 3).
FRAMES_PER_VIDEO = 3


def answer_by_ocr(project: Project, task_ids: Sequence[str] | None = None, *,
                  progress: Callable[[int, int], None] = lambda done, total: None,
                  cancelled: Callable[[], bool] = lambda: False) -> tuple[str | None, int, list[tuple[str, str]]]:
    """Answer ``task_ids`` (None: every task) with the text OCR reads in their photos and sampled video frames.

    Returns (the run id, None when no task has a photo or video; answers written; (task id, reason) of the tasks
    whose media could not be read). Raises OcrUnavailable (before anything is stored), ProjectReadOnly.
    """
    if task_ids is None:
        with project.read() as s:
            task_ids = list(s.scalars(select(Task.id).order_by(Task.external_id, Task.id)))
    tasks = [t for t in load_tasks(project, list(task_ids)) if any(i.kind in ("image", "video") and i.media is not None
                                                                   for i in t.inputs)]
    if not tasks:
        return None, 0, []
    engine = ocr.engine_version()
    ocr.model_paths()  # refuse at once, before a run is made, when the models are missing
    with project.write() as s:
        run = s.scalars(select(Run).where(Run.kind == "import", Run.name == SOURCE_NAME)).first()
        if run is None:
            run = Run(name=SOURCE_NAME, kind="import")
            s.add(run)
        run.status = "running"
        run.params = {"source": "ocr-only", "engine": engine, "frames_per_video": FRAMES_PER_VIDEO}
        s.flush()
        run_id = run.id
    failed: list[tuple[str, str]] = []
    written = 0
    progress(0, len(tasks))
    for k, task in enumerate(tasks):
        if cancelled():
            break
        try:
            frames = _read_task(project, task)
        except (MediaError, IndexError, ValueError) as exc:
            failed.append((task.id, str(exc)))
            continue
        text = "\n".join(f["text"] for f in frames if f["text"])
        with project.write() as s:
            answer = s.scalars(select(Answer).where(Answer.run_id == run_id, Answer.task_id == task.id)).first()
            if answer is None:
                answer = Answer(id=new_id(), run_id=run_id, task_id=task.id, retries=0, from_cache=False)
                s.add(answer)
            answer.raw_text, answer.parsed, answer.created_at = text, {"answer": text, "frames": frames}, utcnow()
        written += 1
        progress(k + 1, len(tasks))
    with project.write() as s:
        run = s.get(Run, run_id)
        run.status = "cancelled" if cancelled() else "done"
        run.finished_at = utcnow()
    return run_id, written, failed


def outcome_text(run_id: str | None, written: int, failed: list[tuple[str, str]]) -> str:
    """What `answer_by_ocr` did, in plain words for both fronts: a first line, then one line per task not read."""
    if run_id is None:
        return f"{SOURCE_NAME}: no task has a photo or a video to read"
    lines = [f"{SOURCE_NAME} (run {run_id[:8]}): {plural(written, 'answer')} written"
             + (f", {plural(len(failed), 'task')} not read" if failed else "")]
    lines += [f"  task {task_id[:8]}: {reason}" for task_id, reason in failed]
    return "\n".join(lines)


def _read_task(project: Project, task) -> list[dict]:  # noqa: ANN001 - inputs.TaskSpec
    frames = []
    for inp in task.inputs:
        if inp.media is None or inp.kind not in ("image", "video"):
            continue
        if inp.kind == "image":
            indices = [0]
        else:
            table = load_frame_table(project, inp.media)
            if table is None:
                raise MediaError(inp.media.path, "has no frame index yet (it is being built)")
            seconds = table.seconds_array()
            first, last, _, _ = sampling.span_of(seconds, inp.start_s, inp.end_s)
            indices = sampling.uniform_indices(first, last, FRAMES_PER_VIDEO)
        for index in dict.fromkeys(indices):
            read = read_frame_text(project, inp.media.id, index)
            frames.append({"media_id": inp.media.id, "frame_index": index, "text": read.text})
    return frames
