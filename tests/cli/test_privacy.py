"""`fieldstudio redact` (checked with ffprobe and the ffmpeg CLI, independent of PyAV) and `fieldstudio sent`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.privacy import redact_media
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


@pytest.mark.parametrize(("encoders", "codec"), [(None, "h264"), (("mpeg4", "mjpeg"), "mpeg4")],
                         ids=["pyav-wheel", "bundle-native"])
def test_redact_keeps_every_frame_at_its_pts_and_the_audio_and_blurs_the_face(face_clip, tmp_path, monkeypatch,
                                                                             encoders, codec):
    if encoders:        # the Linux bundle's FFmpeg: FFmpeg's own MPEG-4 and MJPEG encoders, no H.264
        monkeypatch.setattr(redact_media, "ENCODERS", encoders)
    result = runner.invoke(app, ["redact", str(face_clip), "--out", str(tmp_path / "shared"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    [written] = report["written"]
    copy = Path(written["copy"])
    assert copy.name == "face_clip_redacted.mp4" and (written["frames"], written["faces"]) == (12, 12)
    assert report["detector"].startswith("centerface sha256:")
    assert _probe(copy, "v:0", "stream=codec_name") == [codec]
    assert written["encoder"] == {"h264": "libx264"}.get(codec, codec)
    pts = _probe(face_clip, "v:0", "frame=pts_time")
    assert len(pts) == 12 and _probe(copy, "v:0", "frame=pts_time") == pts          # frame-exact, VFR kept
    assert _probe(copy, "a:0", "packet=pts") == _probe(face_clip, "a:0", "packet=pts")   # audio copied
    assert _probe(copy, "a:0", "stream=codec_name") == ["aac"]
    face = MARKED_FACES["astronaut"][0]
    for n in (0, 11):
        assert any(overlaps(f, face) for f in lbp_faces(ffmpeg_frame(face_clip, n)))
        assert not any(overlaps(f, face) for f in lbp_faces(ffmpeg_frame(copy, n)))
    table = runner.invoke(app, ["redact", str(face_clip), "--out", str(tmp_path / "shared")])
    assert f"12 frames encoded with {written['encoder']}, 1 audio stream(s) copied" in table.output


def test_redact_with_mpeg4_only_goes_to_mjpeg_when_frame_times_need_units_finer_than_1_65535(tmp_path, monkeypatch):
    # frames every 9001/90000 s: no time base with a denominator <= 65535 holds them, which MPEG-4 Part 2 needs
    photo = write_sample(tmp_path, "astronaut")
    clip = tmp_path / "fine.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", str(photo), "-vf", "settb=1/90000,setpts=N*9001",
                    "-frames:v", "6", "-fps_mode", "passthrough", "-enc_time_base:v", "1/90000",
                    "-video_track_timescale", "90000", "-c:v", "libx264", "-pix_fmt", "yuv420p", str(clip)], check=True)
    monkeypatch.setattr(redact_media, "ENCODERS", ("mpeg4", "mjpeg"))
    result = runner.invoke(app, ["redact", str(clip), "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    [written] = json.loads(result.output)["written"]
    assert written["encoder"] == "mjpeg" and _probe(Path(written["copy"]), "v:0", "stream=codec_name") == ["mjpeg"]
    pts = _probe(clip, "v:0", "frame=pts")
    assert pts == [str(n * 9001) for n in range(6)]
    assert _probe(Path(written["copy"]), "v:0", "frame=pts_time") == _probe(clip, "v:0", "frame=pts_time")
    monkeypatch.setattr(redact_media, "ENCODERS", ("mpeg4",))
    refused = runner.invoke(app, ["redact", str(clip), "--out", str(tmp_path / "out2")])
    assert refused.exit_code == 1 and "finer than 1/65535 s" in refused.output


@pytest.mark.parametrize("encoders", [None, ("mpeg4", "mjpeg")], ids=["pyav-wheel", "bundle-native"])
def test_redact_keeps_the_rotation_and_blurs_the_face_as_the_picture_is_shown(tmp_path, monkeypatch, encoders):
    # the astronaut stored lying on its side (turned clockwise) with a display matrix that shows it upright
    if encoders:
        monkeypatch.setattr(redact_media, "ENCODERS", encoders)
    photo = write_sample(tmp_path, "astronaut")
    coded = tmp_path / "coded.mp4"       # with audio: its first packet may be muxed before the first video frame
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", str(photo), "-f", "lavfi", "-i",
                    "sine=frequency=440:duration=0.6", "-vf", "transpose=clock", "-frames:v", "3", "-r", "5",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", str(coded)], check=True)
    clip = tmp_path / "rotated.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(coded), "-metadata:s:v:0", "rotate=90", "-c", "copy",
                    str(clip)], check=True)
    rotation = _probe(clip, "v:0", "stream_side_data=rotation")
    assert rotation and int(rotation[0]) != 0
    face = MARKED_FACES["astronaut"][0]
    assert any(overlaps(f, face) for f in lbp_faces(ffmpeg_frame(clip, 0)))      # shown upright by ffmpeg
    result = runner.invoke(app, ["redact", str(clip), "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    [written] = json.loads(result.output)["written"]
    copy = Path(written["copy"])
    assert _probe(copy, "v:0", "stream_side_data=rotation") == rotation
    assert _probe(copy, "v:0", "stream=width,height") == _probe(clip, "v:0", "stream=width,height")
    assert written["faces"] == 3 and written["rotation"] == 90
    for n in (0, 2):
        assert not any(overlaps(f, face) for f in lbp_faces(ffmpeg_frame(copy, n)))


def _coded_frames(path: Path) -> list:
    """Every frame as stored (no rotation applied), RGB."""
    import av

    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


def _haar_faces(rgb) -> list:
    """OpenCV's Haar frontal-face cascade (independent of CenterFace): boxes (x0, y0, x1, y1)."""
    import cv2

    cascade = cv2.CascadeClassifier(cv2.data.haarcascades + "haarcascade_frontalface_default.xml")
    found = cascade.detectMultiScale(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY), 1.1, 5, minSize=(40, 40))
    return [(x, y, x + w, y + h) for x, y, w, h in found]


def test_redact_blurs_faces_a_rotation_tag_turns_sideways(tmp_path):
    """An upright clip tagged rotate=90 shows its face lying on its side; the face is found on the stored picture
    too and blurred: OpenCV's Haar cascade finds it in the original's stored frames and in none of the copy's."""
    photo = write_sample(tmp_path, "astronaut")
    coded = tmp_path / "coded.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", str(photo), "-frames:v", "3", "-r", "5",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", str(coded)], check=True)
    clip = tmp_path / "sideways.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(coded), "-metadata:s:v:0", "rotate=90", "-c", "copy",
                    str(clip)], check=True)
    assert _probe(clip, "v:0", "stream_side_data=rotation")
    face = MARKED_FACES["astronaut"][0]
    assert all(any(overlaps(f, face) for f in _haar_faces(rgb)) for rgb in _coded_frames(clip))
    result = runner.invoke(app, ["redact", str(clip), "--out", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    [written] = json.loads(result.output)["written"]
    assert written["faces"] >= 3 and written["rotation"] in (90, 270)
    copied = _coded_frames(Path(written["copy"]))
    assert len(copied) == 3
    for rgb in copied:
        assert not any(overlaps(f, face) for f in _haar_faces(rgb))
        assert not any(overlaps(f, face) for f in lbp_faces(rgb))


def test_redact_out_refuses_the_originals_folder_says_it_creates_one_and_never_overwrites(tmp_path):
    photo = write_sample(tmp_path, "astronaut")
    for beside in (tmp_path, tmp_path / "sub" / ".."):
        (tmp_path / "sub").mkdir(exist_ok=True)
        refused = runner.invoke(app, ["redact", str(photo), "--out", str(beside)])
        assert refused.exit_code == 2 and "is the folder of the original astronaut.png" in refused.output
        assert len(refused.output.strip().splitlines()) == 1
    assert not (tmp_path / "astronaut_redacted.png").exists()
    out = tmp_path / "new" / "shared"
    first = runner.invoke(app, ["redact", str(photo), "--out", str(out)])
    assert first.exit_code == 0 and f"created folder {out}" in first.output
    before = (out / "astronaut_redacted.png").read_bytes()
    second = runner.invoke(app, ["redact", str(photo), "--out", str(out)])
    assert second.exit_code == 0 and "created folder" not in second.output
    assert "astronaut_redacted.png already existed (not overwritten): written as astronaut_redacted_2.png" \
        in second.output
    assert (out / "astronaut_redacted.png").read_bytes() == before and (out / "astronaut_redacted_2.png").exists()


def test_redact_refuses_a_file_an_original_or_a_missing_source_as_out_before_making_a_folder(tmp_path):
    photo = write_sample(tmp_path, "astronaut")
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    new = tmp_path / "new"
    for args, said in ((["--out", str(a_file)], f"--out {a_file} is a file; give a folder"),
                       (["--out", str(photo)], f"--out {photo} is one of the originals"),
                       ([str(tmp_path / "gone.jpg"), "--out", str(new)], f"{tmp_path / 'gone.jpg'} does not exist")):
        refused = runner.invoke(app, ["redact", str(photo), *args])
        assert refused.exit_code == 2 and said in refused.output and len(refused.output.strip().splitlines()) == 1
    assert not new.exists() and a_file.read_text() == "x"


def test_redact_names_a_truncated_jpeg_as_damaged(tmp_path):
    from PIL import Image

    whole = tmp_path / "whole.jpg"
    Image.fromarray(sample_rgb("astronaut")).save(whole, quality=90)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(whole.read_bytes()[:whole.stat().st_size // 2])     # half the scan data: a cut-off copy
    result = runner.invoke(app, ["redact", str(whole), str(cut), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0
    lines = {line.split(":")[0].rsplit("/", 1)[-1]: line for line in result.output.splitlines() if "blurred" in line}
    assert "DAMAGED, truncated" in lines["cut_redacted.jpg"] and "DAMAGED" not in lines["whole_redacted.jpg"]


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
                                                                            monkeypatch):
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
    monkeypatch.setenv("COLUMNS", "80")
    table = runner.invoke(app, ["sent", str(project.path)])
    assert fake_openai.base_url in table.output and "frames: 4 (2 blurred, 2 NOT blurred; 2 face(s) blurred" \
        in table.output
    assert max(len(line) for line in table.output.splitlines()) <= 80 and "…" not in table.output


def test_sent_counts_the_judge_requests_and_the_characters_they_sent(project, fake_openai, wide_console):
    from fieldstudio.inference import profiles
    from fieldstudio.inference.profiles import ModelProfile
    from fieldstudio.scoring.service import score_answers
    from tests.support.fake_openai import Reply
    from tests.support.scoring_fixtures import add_run
    from tests.support.scoring_fixtures import add_task as add_scored_task

    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0))
    fake_openai.responder = lambda request: Reply(text="correct")
    tasks = [add_scored_task(project, f"1.1.000{i}", f"A worker carries box {i}", eval_func="fuzzy_match")
             for i in range(3)]
    add_run(project, "a", {t: f"box {i} is carried" for i, t in enumerate(tasks)})
    score_answers(project, "fwa-logic+fs-prompt", None, "judge")
    received = fake_openai.chat_requests()
    assert len(received) == 3
    # what the server received, counted on its side: every message's text
    characters = sum(len(m["content"]) for r in received for m in r.body["messages"])
    result = runner.invoke(app, ["sent", str(project.path), "--json"])
    [row] = json.loads(result.output)["sent"]
    assert row["endpoint"] == fake_openai.base_url and row["profiles"] == ["judge"]
    assert (row["judge_requests"], row["judge_characters"]) == (3, characters)
    assert (row["requests"], row["frames"], row["redacted"]) == (0, 0, "no frames")
    with project.write() as s:           # a changed answer is judged again: one more request, appended
        from fieldstudio.store.models import Answer

        s.query(Answer).filter(Answer.raw_text == "box 2 is carried").one().raw_text = "box 2 is carried by a worker"
    score_answers(project, "fwa-logic+fs-prompt", None, "judge")
    received = fake_openai.chat_requests()
    assert len(received) == 4
    [row] = json.loads(runner.invoke(app, ["sent", str(project.path), "--json"]).output)["sent"]
    assert (row["judge_requests"], row["judge_characters"]) == (
        4, sum(len(m["content"]) for r in received for m in r.body["messages"]))
    table = runner.invoke(app, ["sent", str(project.path)])
    assert f"judge requests: 4 ({row['judge_characters']} characters)" in table.output
    assert "never a frame" in table.output
