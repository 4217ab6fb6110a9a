"""`fieldstudio redact` (checked with ffprobe and the ffmpeg CLI, independent of PyAV) and `fieldstudio sent`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.inference.runs import queue as run_queue
from tests.support.face_photos import MARKED_FACES, lbp_faces, overlaps, sample_rgb, write_sample
from tests.support.run_fixtures import add_media, add_task, fake_profile
from tests.support.video_fixtures import ffmpeg_frame

runner = CliRunner()


def _probe(path: Path, stream: str, entries: str) -> list[str]:
    return subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", entries, "-of",
                           "default=nw=1:nk=1", str(path)], check=True, capture_output=True, text=True).stdout.split()


@pytest.fixture
def face_clip(tmp_path) -> Path:
    """12 frames of the astronaut at a variable rate (5 at 10 fps, then 7 at 5 fps) with a 1.9 s AAC sine track."""
    photo = write_sample(tmp_path, "astronaut")
    out = tmp_path / "face_clip.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", str(photo), "-f", "lavfi", "-i",
                    "sine=frequency=440:duration=1.9", "-vf", "setpts='if(lt(N,5),N/10,0.5+(N-5)/5)/TB'",
                    "-frames:v", "12", "-fps_mode", "passthrough", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", str(out)], check=True)
    return out


def test_redact_keeps_every_frame_at_its_pts_and_the_audio_and_blurs_the_face(face_clip, tmp_path):
    result = runner.invoke(app, ["redact", str(face_clip), "--out", str(tmp_path / "shared"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    [written] = report["written"]
    copy = Path(written["copy"])
    assert copy.name == "face_clip_redacted.mp4" and (written["frames"], written["faces"]) == (12, 12)
    assert report["detector"].startswith("centerface sha256:")
    pts = _probe(face_clip, "v:0", "frame=pts_time")
    assert len(pts) == 12 and _probe(copy, "v:0", "frame=pts_time") == pts          # frame-exact, VFR kept
    assert _probe(copy, "a:0", "packet=pts") == _probe(face_clip, "a:0", "packet=pts")   # audio copied
    assert _probe(copy, "a:0", "stream=codec_name") == ["aac"]
    face = MARKED_FACES["astronaut"][0]
    for n in (0, 11):
        assert any(overlaps(f, face) for f in lbp_faces(ffmpeg_frame(face_clip, n)))
        assert not any(overlaps(f, face) for f in lbp_faces(ffmpeg_frame(copy, n)))


def test_redact_copies_an_image_and_reports_what_it_cannot_read(tmp_path):
    photo = write_sample(tmp_path, "astronaut")
    junk = tmp_path / "notes.txt"
    junk.write_text("x")
    result = runner.invoke(app, ["redact", str(photo), str(junk), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "astronaut_redacted.png: 1 face(s) blurred" in result.output
    assert "NOT copied" in result.output and "notes.txt" in result.output
    from fieldstudio.media.images import read_image

    copy = read_image(tmp_path / "out" / "astronaut_redacted.png")
    assert copy.shape == sample_rgb("astronaut").shape
    assert not any(overlaps(f, MARKED_FACES["astronaut"][0]) for f in lbp_faces(copy))


def test_sent_lists_per_endpoint_and_day_what_left_and_whether_it_was_blurred(project, fake_openai, tmp_path,
                                                                            wide_console):
    ids = add_media(project, write_sample(tmp_path, "astronaut"), write_sample(tmp_path, "camera"))
    task = add_task(project, "Who?", [("astronaut.png", ids["astronaut.png"]), ("camera.png", ids["camera.png"])])
    empty = runner.invoke(app, ["sent", str(project.path)])
    assert "Nothing has left this machine" in empty.output
    blurred = fake_profile(fake_openai, privacy="blur-faces")
    run_queue.execute_run(project, run_queue.create_run(project, blurred, [task]), profile=blurred)
    plain = fake_profile(fake_openai, name="plain", privacy="send-as-is")
    run_queue.execute_run(project, run_queue.create_run(project, plain, [task]), profile=plain, use_cache=False)
    again = fake_profile(fake_openai, privacy="blur-faces")      # the same requests: the cache answers, nothing left
    run_queue.execute_run(project, run_queue.create_run(project, again, [task]), profile=again)
    result = runner.invoke(app, ["sent", str(project.path), "--json"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(result.output)["sent"]
    assert row["endpoint"] == fake_openai.base_url and row["profiles"] == ["fake", "plain"]
    assert (row["requests"], row["frames"], row["frames_blurred"], row["frames_unredacted"]) == (2, 4, 2, 2)
    assert row["faces_blurred"] == 2 and row["redacted"] == "some" and len(row["detectors"]) == 1
    table = runner.invoke(app, ["sent", str(project.path)])
    assert "NOT blurred" in table.output and fake_openai.base_url in table.output
