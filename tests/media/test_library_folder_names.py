"""A folder whose name is not UTF-8 (bytes on Linux) is named as the fault, not the files in it: ``fieldstudio add``
says which folder to rename; task and annotation imports print such paths with the bytes as ``\\xNN``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PIL import Image

from fieldstudio.core.file_names import printable_text, undecodable_name
from fieldstudio.media import library
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project


def _bad_folder(parent: Path) -> str:
    """``parent``/caf<0xE9> (Latin-1 "café", not UTF-8) holding a good photo and a photo named with byte 0xFF; the
    folder's path as Python holds it (surrogate escapes)."""
    folder = os.path.join(os.fsencode(parent), b"caf\xe9")
    os.mkdir(folder)
    for name in (b"ok.png", b"bad\xff.png"):
        with open(os.path.join(folder, name), "wb") as f:
            Image.new("RGB", (4, 4), (1, 2, 3)).save(f, format="PNG")
    return os.fsdecode(folder)


def test_the_part_of_a_path_that_is_not_utf8_is_named():
    latin = os.fsdecode(b"/data/caf\xe9")
    assert undecodable_name("/data/café/clip.mp4") is None
    assert undecodable_name(os.fsdecode(b"/data/bad\xff.png")) == ("its name is not valid UTF-8 (rename the file to "
                                                                   "import it)")
    assert undecodable_name(latin + "/site/clip.mp4") == (
        "the folder /data/caf\\xe9 has a name that is not valid UTF-8 (rename the folder to import the files in it)")
    # the outermost such folder (renaming it is what is needed first), and a name that is bad as well
    assert undecodable_name(latin + os.fsdecode(b"/x\xff/bad\xfe.png")) == (
        "the folder /data/caf\\xe9 has a name that is not valid UTF-8 (rename the folder to import the files in it; "
        "the file's own name is not UTF-8 either)")
    assert undecodable_name(os.fsdecode(b"caf\xe9/clip.mp4")).startswith("the folder caf\\xe9 has a name")
    assert printable_text(f"error: {latin}/x.csv: no such file, café") == "error: /data/caf\\xe9/x.csv: no such file, café"


def test_add_names_the_folder_not_the_files_in_it(tmp_path):
    folder = _bad_folder(tmp_path)
    project = tmp_path / "p.fieldstudio"
    with Project.create(project) as p:
        report = library.add_paths(p, [Path(folder)])
        assert report.imported_total == 0 and len(report.unreadable) == 2
        reasons = {os.fsencode(path).rsplit(b"/", 1)[1]: reason for path, reason in report.unreadable}
        in_folder = (f"the folder {tmp_path}/caf\\xe9 has a name that is not valid UTF-8 (rename the folder to import "
                     "the files in it")
        assert reasons == {b"ok.png": in_folder + ")", b"bad\xff.png": in_folder + "; the file's own name is not "
                                                                       "UTF-8 either)"}
        with p.read() as s:
            stored = {m.file_name: (m.status, m.error) for m in s.query(Media)}
        assert stored == {"ok.png": ("unreadable", reasons[b"ok.png"]),
                          "bad\\xff.png": ("unreadable", reasons[b"bad\xff.png"])}
    done = subprocess.run([sys.executable, "-m", "fieldstudio", "add", str(project), str(tmp_path)],
                          capture_output=True, text=True, errors="strict", check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{tmp_path}/caf\\xe9/ok.png: {in_folder})" in done.stdout


def test_task_and_annotation_imports_print_such_a_folder_as_bytes(tmp_path):
    folder = _bad_folder(tmp_path)
    with open(os.path.join(os.fsencode(folder), b"tasks.csv"), "w", encoding="utf-8") as f:
        f.write("query,ground_truth\nHow many?,3\n")      # no task_id: refused, naming the file
    project = tmp_path / "p.fieldstudio"
    Project.create(project).close()
    shown = f"{tmp_path}/caf\\xe9"
    env = {**os.environ, "COLUMNS": "400"}
    tasks = subprocess.run([sys.executable, "-m", "fieldstudio", "tasks", "import", str(project),
                            os.path.join(folder, "tasks.csv")], capture_output=True, text=True, errors="strict",
                           check=False, env=env)
    assert f"{shown}/tasks.csv: unknown" in tasks.stdout, tasks.stdout + tasks.stderr
    assert f"error: {shown}/tasks.csv: not imported: is a CSV file whose header" in tasks.stdout + tasks.stderr
    marks = subprocess.run([sys.executable, "-m", "fieldstudio", "annotations", "import", str(project), folder,
                            "-f", "yolo"], capture_output=True, text=True, errors="strict", check=False, env=env)
    assert marks.returncode == 2
    assert marks.stderr.strip() == f"error: {shown}: no classes.txt or data.yaml with the class names"
