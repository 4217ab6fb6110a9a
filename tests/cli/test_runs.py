"""`fieldstudio runs record|verify|export|import`: exit codes and the lines a user reads, on a run made through the
fake server (tests/support/recorded_runs.py); hashes computed with hashlib on the files."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.store.project import Project
from tests.support.recorded_runs import make_recorded_run
from tests.support.run_fixtures import add_media, add_task
from tests.support.video_fixtures import _ffmpeg

runner = CliRunner()


def test_record_verify_and_a_changed_media_file_named(tmp_path, clips, fake_openai, wide_console):
    run = make_recorded_run(tmp_path, clips, fake_openai)
    path, project = str(tmp_path / "run.jsonl"), str(run.project.path)
    run.project.close()
    result = runner.invoke(app, ["runs", "record", project, run.run_id[:8], "-o", path])
    assert result.exit_code == 0, result.output
    assert f"wrote the record of run {run.run_id[:8]} to {path}" in result.output
    printed = runner.invoke(app, ["runs", "record", project, run.run_id])      # no -o: the lines on stdout
    assert printed.exit_code == 0 and json.loads(printed.stdout.splitlines()[-1])["type"] == "end"
    assert len(printed.stdout.splitlines()) == len(open(path, encoding="utf-8").read().splitlines())
    result = runner.invoke(app, ["runs", "verify", path])         # the record names its project
    assert result.exit_code == 0, result.output
    assert "identical (checked" in result.output and "5 frames" in result.output
    clip = run.files["h264.mkv"]
    old = hashlib.sha256(clip.read_bytes()).hexdigest()
    subprocess.run([_ffmpeg(), "-v", "error", "-y", "-i", str(clip), "-c:v", "libx264", "-crf", "45",
                    str(tmp_path / "x.mkv")], check=True)
    shutil.copy(tmp_path / "x.mkv", clip)
    new = hashlib.sha256(clip.read_bytes()).hexdigest()
    result = runner.invoke(app, ["runs", "verify", path, "--project", project])
    assert result.exit_code == 1, result.output
    assert f"media h264.mkv: the file changed: SHA-256 {new[:12]}… here, {old[:12]}… in the record" in result.output
    result = runner.invoke(app, ["runs", "verify", path, "--project", project, "--json"])
    assert json.loads(result.output)["identical"] is False


def test_verify_an_unreadable_record_exits_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n', encoding="utf-8")
    result = runner.invoke(app, ["runs", "verify", str(bad)])
    assert result.exit_code == 2 and "no 'end' line" in result.output


def test_export_then_import_twice_then_refused(tmp_path, clips, fake_openai, wide_console):
    run = make_recorded_run(tmp_path, clips, fake_openai)
    source, out = str(run.project.path), str(tmp_path / "export.jsonl")
    files = run.files
    run.project.close()
    assert runner.invoke(app, ["runs", "export", source, run.run_id, "-o", out]).exit_code == 0
    target = Project.create(tmp_path / "t.fieldstudio")
    ids = add_media(target, *files.values())
    add_task(target, "how many?", [("h264.mkv", ids["h264.mkv"])], external_id="t1", source="manual", ground_truth="4")
    target.close()
    result = runner.invoke(app, ["runs", "import", str(tmp_path / "t.fieldstudio"), out])
    assert result.exit_code == 2 and "lacks 1 task of the run (t2)" in result.output
    target = Project.open(tmp_path / "t.fieldstudio")
    add_task(target, "how many now?", [("h264.mov", ids["h264.mov"])], external_id="t2", source="manual",
             ground_truth="5")
    target.close()
    result = runner.invoke(app, ["runs", "import", str(tmp_path / "t.fieldstudio"), out])
    assert result.exit_code == 0 and "1 run, 2 answers, 2 scores" in result.output, result.output
    result = runner.invoke(app, ["runs", "import", str(tmp_path / "t.fieldstudio"), out])
    assert result.exit_code == 0 and "is already in the project: nothing added" in result.output


def test_export_onto_the_project_file_or_a_folder_is_refused_and_the_project_stays(tmp_path, clips, fake_openai):
    run = make_recorded_run(tmp_path, clips, fake_openai)
    project = run.project.path
    run.project.close()
    before = hashlib.sha256(project.read_bytes()).hexdigest()
    other = Project.create(tmp_path / "other.fieldstudio")
    other.close()
    for command, target, reason in (("export", project, "is a database"), ("record", tmp_path / "other.fieldstudio",
                                                                              "is a database"),
                                    ("export", tmp_path, "is a folder")):
        result = runner.invoke(app, ["runs", command, str(project), run.run_id[:8], "-o", str(target)])
        assert result.exit_code == 2, result.output
        assert result.output.strip() == f"error: {target} " + (
            "is a folder: give the record a file name (run.jsonl)" if reason == "is a folder" else
            "is a database (a fieldstudio project?): a record is not written over it; choose another file (run.jsonl)")
    assert hashlib.sha256(project.read_bytes()).hexdigest() == before
    with Project.open(project) as p, Project.open(tmp_path / "other.fieldstudio"):
        assert p.name
    assert not list(tmp_path.glob(".*.tmp"))
