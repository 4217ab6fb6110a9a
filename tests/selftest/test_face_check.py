"""The self-test's face detector check: passes on the demo clip, fails naming the model file when it cannot load."""

from __future__ import annotations

from fieldstudio.selftest import checks as selftest
from fieldstudio.privacy import faces


def test_the_face_check_finds_the_marked_shopper():
    [result] = selftest.run_checks(["faces"])
    assert result.passed, result.detail
    assert "centerface sha256:" in result.detail and "the face at (284.5, 87) found" in result.detail


def test_the_face_check_fails_naming_a_model_that_does_not_load(tmp_path, monkeypatch):
    broken = tmp_path / "centerface.onnx"
    broken.write_bytes(b"\x00" * 64)
    monkeypatch.setenv(faces.MODEL_ENV, str(broken))
    [result] = selftest.run_checks(["faces"])
    assert not result.passed and str(broken) in result.detail and "cannot be loaded" in result.detail


def test_the_redact_check_copies_the_clips_with_the_bundles_native_encoders(monkeypatch):
    from fieldstudio.privacy import redact_media

    monkeypatch.setattr(redact_media, "ENCODERS", ("mpeg4", "mjpeg"))     # the Linux bundle's FFmpeg
    [result] = selftest.run_checks(["redact"])
    assert result.passed, result.detail
    assert "h264.mp4 -> mp4 (mpeg4, 6 frames)" in result.detail and "h264.ts -> mkv (mpeg4, 6 frames)" in result.detail


def test_the_redact_check_fails_naming_the_missing_encoder(monkeypatch):
    from fieldstudio.privacy import redact_media

    monkeypatch.setattr(redact_media, "ENCODERS", ())                     # a decoder-only FFmpeg
    [result] = selftest.run_checks(["redact"])
    assert not result.passed and "h264.mp4" in result.detail and "no video encoder" in result.detail
