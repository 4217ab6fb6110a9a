"""CenterFace through onnxruntime: faces found where they were marked by hand, sizes tiled or refused, the version
string, a model file that cannot be loaded."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from fieldstudio.privacy import faces
from tests.support.face_photos import MARKED_FACES, SHARED_DATA_FACES, overlaps, sample_rgb, shared_data_frame


@pytest.fixture(scope="module")
def detector() -> faces.FaceDetector:
    return faces.FaceDetector()


@pytest.mark.parametrize("name", sorted(MARKED_FACES))
def test_the_marked_face_is_found_and_nothing_else(detector, name):
    found = detector.detect(sample_rgb(name))
    assert len(found) == 1 and overlaps(found[0].as_list()[:4], MARKED_FACES[name][0])
    assert 0.35 <= found[0].score <= 1


def test_no_face_in_a_photo_without_people(detector):
    assert detector.detect(sample_rgb("coffee")) == []


def test_the_version_names_the_model_file_and_onnxruntime(detector):
    import onnxruntime

    digest = hashlib.sha256(faces.model_path().read_bytes()).hexdigest()
    assert detector.version == f"centerface sha256:{digest[:16]} onnxruntime {onnxruntime.__version__}"


def test_a_face_in_a_picture_larger_than_one_pass_is_found_in_its_tile(detector, monkeypatch):
    """With one pass limited to 600 px (tiles of 512, overlap 128), the astronaut pasted at (700, 300) of a
    1400 x 1000 picture is found at the same place, moved by the paste's offset."""
    monkeypatch.setattr(faces, "WHOLE_SIDE", 600)
    monkeypatch.setattr(faces, "TILE_SIDE", 512)
    monkeypatch.setattr(faces, "TILE_OVERLAP", 128)
    canvas = np.full((1000, 1400, 3), 90, np.uint8)
    canvas[300:812, 700:1212] = sample_rgb("astronaut")
    found = detector.detect(canvas)
    x0, y0, x1, y1 = MARKED_FACES["astronaut"][0]
    assert len(found) == 1 and overlaps(found[0].as_list()[:4], (x0 + 700, y0 + 300, x1 + 700, y1 + 300))


def test_a_picture_too_large_is_refused_with_its_size(detector, monkeypatch):
    monkeypatch.setattr(faces, "MAX_PIXELS", 100_000)
    with pytest.raises(faces.FaceImageTooLarge, match="512 x 512 pixels is more than the face detector reads"):
        detector.detect(sample_rgb("astronaut"))


@pytest.mark.parametrize("content, why", [(b"", "cannot be loaded"), (b"\x08\x07garbage" * 50, "cannot be loaded")])
def test_a_model_file_that_fails_to_load_says_which_and_why(tmp_path, content, why):
    path = tmp_path / "centerface.onnx"
    path.write_bytes(content)
    with pytest.raises(faces.FaceModelError, match=why) as caught:
        faces.FaceDetector(path)
    assert str(path) in str(caught.value)


def test_a_missing_model_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv(faces.MODEL_ENV, str(tmp_path / "absent.onnx"))
    with pytest.raises(faces.FaceModelError, match="absent.onnx cannot be read"):
        faces.FaceDetector()


@pytest.mark.parametrize("video, index", sorted(SHARED_DATA_FACES))
def test_the_faces_marked_in_the_shared_videos_are_found(detector, video, index):
    from tests.support.shared_data import SHARED_DATA

    path = SHARED_DATA / "media" / video
    if not path.is_file():
        pytest.skip(f"no shared data at {path}")
    found = detector.detect(shared_data_frame(path, index))
    for marked in SHARED_DATA_FACES[(video, index)]:
        assert any(overlaps(b.as_list()[:4], marked) for b in found)
