"""The gate's pieces: which endpoints are local, the modes a profile accepts, the blur on a copy of the pixels."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fieldstudio.inference.base_urls import ProfileError
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.privacy import gate
from fieldstudio.privacy.blur import blur_faces, widened
from fieldstudio.privacy.faces import FaceBox
from tests.support.face_photos import MARKED_FACES, sample_rgb


@pytest.mark.parametrize("url, ranges, resolve, local", [
    ("http://localhost:8080/v1", [], False, True), ("http://127.0.0.2:1/v1", [], False, True),
    ("http://[::1]:1/v1", [], False, True), ("http://10.1.2.3/v1", ["10.0.0.0/8"], False, True),
    ("http://10.1.2.3/v1", ["192.168.0.0/16"], False, False), ("http://gpu-box:8000/v1", [], False, False),
    ("http://nonexistent.invalid/v1", ["10.0.0.0/8"], True, False)])
def test_which_endpoints_are_on_this_machine_or_the_listed_lan(url, ranges, resolve, local):
    assert gate.endpoint_is_local(url, ranges, resolve=resolve) is local


def test_a_bad_lan_range_or_mode_is_refused_by_the_profile():
    with pytest.raises(ProfileError, match="'10.0.0/33' is not a LAN range"):
        ModelProfile(name="p", base_url="http://10.0.0.1/v1", model="m", lan_ranges=["10.0.0/33"])
    with pytest.raises(ProfileError, match="unknown privacy mode 'blur'"):
        ModelProfile(name="p", base_url="http://10.0.0.1/v1", model="m", privacy="blur")


@pytest.mark.parametrize("text, why", [
    ("0.0.0.0/0", "not a private"), ("8.8.8.0/24", "not a private"), ("10.0.0.0/7", "not a private"),
    ("100.64.0.0/10", "not a private"), ("::/0", "not a private"), ("2001:4860::/32", "not a private"),
    ("fd00::/8", "wider than /32"), ("fc00::/7", "wider than /32")])
def test_a_lan_range_that_is_public_or_too_wide_is_refused(text, why):
    """By hand from RFC 1918, 6598, 4193: only private, loopback or link-local ranges of at least /8 or /32."""
    with pytest.raises(ProfileError, match=f"'{re.escape(text)}' is {why}"):
        ModelProfile(name="p", base_url="http://10.0.0.1/v1", model="m", lan_ranges=[text])
    assert gate.remote_refusal("p", gate.LOCAL_ONLY, "http://10.0.0.1/v1", [text]) is not None   # refused, not sent


@pytest.mark.parametrize("text", ["10.0.0.0/8", "172.16.0.0/12", "192.168.1.0/24", "192.168.1.7", "127.0.0.0/8",
                                  "169.254.0.0/16", "fe80::/64", "fd12:3456::/32", "fd12:3456:789a::/48"])
def test_a_private_loopback_or_link_local_lan_range_is_accepted(text):
    assert ModelProfile(name="p", base_url="http://10.0.0.1/v1", model="m", lan_ranges=[text]).lan_ranges == [text]


def test_a_profile_keeps_its_gate_through_its_file(tmp_path):
    from fieldstudio.inference.profiles import add_profile, get_profile

    path = tmp_path / "profiles.json"
    add_profile(ModelProfile(name="p", base_url="https://api.example.com/v1", model="m", privacy="local-only",
                             lan_ranges=["192.168.1.0/24"]), path=path)
    again = get_profile("p", path)
    assert (again.privacy, again.lan_ranges, again.privacy_mode) == ("local-only", ["192.168.1.0/24"], "local-only")


def test_refusing_a_remote_endpoint_names_its_host_and_the_ranges():
    with pytest.raises(gate.GateRefused, match='"local only" and api.example.com .* \\(192.168.1.0/24\\); nothing'):
        gate.refuse_remote("p", "https://api.example.com/v1", ["192.168.1.0/24"])
    gate.refuse_remote("p", "http://127.0.0.1:8080/v1", [])


def test_the_blur_changes_a_copy_inside_the_widened_box_only():
    rgb = sample_rgb("astronaut")
    before = rgb.copy()
    box = FaceBox(*MARKED_FACES["astronaut"][0], 0.9)
    out = blur_faces(rgb, [box])
    assert np.array_equal(rgb, before)                        # the picture given is never changed
    x0, y0, x1, y1 = widened(box, 512, 512)
    assert (x0, y0, x1, y1) == (156, 23, 299, 212)            # 95 x 125 box widened by a quarter each side
    outside = np.ones(rgb.shape[:2], bool)
    outside[y0:y1, x0:x1] = False
    assert np.array_equal(out[outside], rgb[outside])
    assert abs(out[y0:y1, x0:x1].astype(int) - rgb[y0:y1, x0:x1]).mean() > 15
    assert np.array_equal(blur_faces(rgb, []), rgb)


def test_the_redactor_records_the_boxes_and_the_detector_and_refuses_without_one():
    from fieldstudio.privacy.faces import FaceModelError

    blurred, record = gate.FaceRedactor().redact(sample_rgb("astronaut"))
    assert record["gate"] == "blur-faces" and record["detector"].startswith("centerface sha256:")
    assert len(record["boxes"]) == 1 and len(record["boxes"][0]) == 5

    def broken():
        raise FaceModelError("the face model x.onnx cannot be loaded: damaged")
    with pytest.raises(gate.GateRefused, match="blurs faces and the face model x.onnx cannot be loaded"):
        gate.FaceRedactor(broken).redact(sample_rgb("astronaut"))


def test_also_blurring_whole_people_blurs_the_worker_and_records_the_detector(monkeypatch):
    from fieldstudio.core.box_overlap import box_iou
    from fieldstudio.media import people
    from tests.support.face_photos import shared_data_frame
    from tests.support.people_frames import MARKED_PEOPLE, NO_HOG_REASON, WORKER_CLIP, hog_available
    from tests.support.shared_data import SHARED_DATA

    rgb = shared_data_frame(SHARED_DATA / "media" / WORKER_CLIP, 45)
    x0, y0, x1, y1 = MARKED_PEOPLE[(WORKER_CLIP, 45)][0]
    legs = (slice(y0 + (y1 - y0) // 2, y1), slice(x0, x1))          # no face there: only a body blur changes it
    with monkeypatch.context() as m:
        m.setattr(people, "available", lambda: False)                 # an OpenCV without the people detector
        with pytest.raises(gate.GateRefused, match="also blurs whole people and this OpenCV .* no frame was sent"):
            gate.FaceRedactor(bodies=True).redact(rgb)
    if hog_available():
        faces_only, plain = gate.FaceRedactor().redact(rgb)
        assert "body_detector" not in plain and np.array_equal(faces_only[legs], rgb[legs])
        blurred, record = gate.FaceRedactor(bodies=True).redact(rgb)
        assert record["body_detector"] == people.detector_version() and record["detector"] == plain["detector"]
        assert any(box_iou(b[:4], (x0, y0, x1, y1)) >= 0.5 for b in record["body_boxes"])
        assert abs(blurred[legs].astype(int) - rgb[legs]).mean() > 8
        assert gate.redactor_for("send-as-is", "blur-faces", bodies=True).bodies
    else:
        pytest.skip(NO_HOG_REASON)
