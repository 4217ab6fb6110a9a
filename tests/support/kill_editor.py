"""Make random annotation edits on a project and report each one after it committed (for the kill test).

Usage: python tests/support/kill_editor.py PROJECT SEED N_EDITS

The project must hold the media of ``tests.support.annotation_fixtures`` and labels. Every edit goes through
``fieldstudio.annotations.edits`` (do, undo, redo) like the GUI's undo stack. The script keeps its own model
of what each annotation should be. Before an edit it prints ``B <seq> <json states>`` (what the touched
annotations will be), and after the edit returned (committed) ``C <seq> <json states>``; stdout is
flushed after each line. A state is {deleted, geometry, label_id, frame_index, end_frame_index}.
A creation whose id is not known yet is announced as ``B <seq> {"new": state}``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fieldstudio.annotations import edits
from tests.support.undo_stack import UndoStack  # noqa: E402
from fieldstudio.annotations import labels as label_store  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402
from tests.support.annotation_fixtures import N_FRAMES, PHOTO_ID, VIDEO_ID  # noqa: E402


def emit(tag: str, seq: int, states: dict) -> None:
    sys.stdout.write(f"{tag} {seq} {json.dumps(states, sort_keys=True)}\n")
    sys.stdout.flush()


def main(path: str, seed: int, n_edits: int) -> None:
    rng = random.Random(seed)
    project = Project.open(path)
    label_ids = [lab.id for lab in label_store.list_labels(project)]
    stack = UndoStack()
    model: dict[str, dict] = {}        # annotation id -> state
    history: list[tuple] = []          # per stack entry: (edit, id list, state before, state after)

    def rand_box() -> list[float]:
        x, y = rng.randrange(0, 500) / 2, rng.randrange(0, 400) / 2
        return [x, y, x + rng.randrange(2, 200) / 2, y + rng.randrange(2, 160) / 2]

    def live(kind: str | None = None) -> list[str]:
        return [i for i, st in model.items() if not st["deleted"] and (kind is None or st["kind"] == kind)]

    for seq in range(n_edits):
        action = rng.choices(["box", "move", "label", "delete", "undo", "redo", "segment", "close", "event", "ruler"],
                             weights=[20, 15, 8, 8, 12, 8, 6, 6, 6, 5])[0]
        if action == "undo" and stack.can_undo():
            edit, ids, before, after = history[stack.index - 1]
            emit("B", seq, {i: before[i] for i in ids})
            stack.undo()
            model.update({i: dict(before[i]) for i in ids})
            emit("C", seq, {i: before[i] for i in ids})
            continue
        if action == "redo" and stack.can_redo():
            edit, ids, before, after = history[stack.index]
            emit("B", seq, {i: after[i] for i in ids})
            stack.redo()
            model.update({i: dict(after[i]) for i in ids})
            emit("C", seq, {i: after[i] for i in ids})
            continue
        target = None
        if action == "move" and live("box"):
            target = rng.choice(live("box"))
            new = dict(model[target], geometry=rand_box())
            edit = edits.UpdateAnnotation(project, target, "Move box", geometry=new["geometry"])
        elif action == "label" and live():
            target = rng.choice(live())
            new = dict(model[target], label_id=rng.choice(label_ids))
            edit = edits.SetLabel(project, target, new["label_id"])
        elif action == "delete" and live():
            target = rng.choice(live())
            new = dict(model[target], deleted=True)
            edit = edits.DeleteAnnotations(project, target)
        elif action == "close" and [i for i in live("segment") if model[i]["end_frame_index"] is None]:
            target = rng.choice([i for i in live("segment") if model[i]["end_frame_index"] is None])
            end = rng.randrange(model[target]["frame_index"], N_FRAMES)
            new = dict(model[target], end_frame_index=end)
            edit = edits.CloseSegment(project, target, end)
        if target is not None:
            before = {target: dict(model[target])}
            emit("B", seq, {target: new})
            stack.push(edit)
            model[target] = new
            history[stack.index - 1:] = [(edit, [target], before, {target: dict(new)})]
            emit("C", seq, {target: new})
            continue
        # otherwise create something
        label = rng.choice(label_ids)
        frame = rng.randrange(N_FRAMES)
        if action == "segment":
            state = {"kind": "segment", "geometry": None, "frame_index": frame, "end_frame_index": None}
            edit = edits.AddSegment(project, VIDEO_ID, label, frame)
        elif action == "event":
            state = {"kind": "event", "geometry": None, "frame_index": frame, "end_frame_index": None}
            edit = edits.AddEvent(project, VIDEO_ID, frame, label)
        elif action == "ruler":
            p, q = [rng.randrange(0, 600) / 2, 10.0], [rng.randrange(0, 600) / 2, 200.0]
            state = {"kind": "ruler", "geometry": [p, q], "frame_index": frame, "end_frame_index": None}
            edit = edits.AddRuler(project, VIDEO_ID, p, q, frame_index=frame, label_id=label)
        else:
            box = rand_box()
            on_photo = rng.random() < 0.3
            state = {"kind": "box", "geometry": box, "frame_index": None if on_photo else frame,
                     "end_frame_index": None}
            x1, y1, x2, y2 = box
            edit = edits.AddBox(project, PHOTO_ID if on_photo else VIDEO_ID, (x1, y1, x2 - x1, y2 - y1), label,
                                frame_index=None if on_photo else frame)
        state.update(deleted=False, label_id=label)
        emit("B", seq, {"new": state})
        stack.push(edit)
        new_id = edit.annotation_id
        model[new_id] = state
        deleted_state = dict(state, deleted=True)
        history[stack.index - 1:] = [(edit, [new_id], {new_id: deleted_state}, {new_id: dict(state)})]
        emit("C", seq, {new_id: state})
    project.close()
    sys.stdout.write("DONE\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
