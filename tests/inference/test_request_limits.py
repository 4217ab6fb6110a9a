"""Fitting a request to a provider's limits (fieldstudio.inference.runs.request_limits): images thinned at uniform
positions with their timestamps, JPEG quality lowered before frames are dropped for a size limit, every cut stated."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np

from fieldstudio.inference.inputs import EncodedImage
from fieldstudio.inference.profiles import Capabilities, ModelProfile
from fieldstudio.inference.runs.request_limits import RequestLimits, fit_prompt, limits_of, request_bytes
from fieldstudio.inference.strategies.base import Prompt


def _image(i: int, quality: int = 90) -> EncodedImage:
    rng = np.random.default_rng(i)                      # noise: JPEG size falls clearly with the quality
    bgr = rng.integers(0, 255, (96, 128, 3), dtype=np.uint8)
    jpeg = cv2.imencode(".jpg", bgr, [int(cv2.IMWRITE_JPEG_QUALITY), quality])[1].tobytes()
    return EncodedImage("m", "v.mp4", i, i * 3000, i * 3000 / 90000, hashlib.sha256(jpeg).hexdigest(), jpeg, 128, 96,
                        quality)


def _prompt(n: int) -> Prompt:
    images = [_image(i) for i in range(n)]
    content = [{"type": "text", "text": "question"}]
    for im in images:
        content += [{"type": "text", "text": f"timestamp: 00:00:{im.frame_index:02d}"},
                    {"type": "image_url", "image_url": {"url": im.data_url(), "detail": "low"}}]
    return Prompt([{"role": "system", "content": "sys"}, {"role": "user", "content": content}], images)


def _shown(prompt: Prompt) -> list[tuple[str, int]]:
    content = prompt.messages[1]["content"]
    return [(content[i - 1]["text"], prompt.images[k].frame_index)
            for k, i in enumerate(i for i, p in enumerate(content) if p["type"] == "image_url")]


def test_images_over_the_limit_are_thinned_uniformly_with_their_timestamps():
    fitted, cut = fit_prompt(_prompt(10), RequestLimits(4, "found by models test"))
    # uniform_indices(0, 9, 4) = 0, 3, 6, 9
    assert _shown(fitted) == [("timestamp: 00:00:00", 0), ("timestamp: 00:00:03", 3), ("timestamp: 00:00:06", 6),
                              ("timestamp: 00:00:09", 9)]
    assert fitted.messages[1]["content"][0] == {"type": "text", "text": "question"}
    assert cut.text() == "10 asked, 4 sent: the server accepts 4 images per request (found by models test)"
    four = _prompt(4)
    assert fit_prompt(four, RequestLimits(4, "x")) == (four, None)


def test_a_size_limit_lowers_the_quality_first_then_drops_frames():
    prompt = _prompt(6)
    full = request_bytes(prompt)
    assert fit_prompt(prompt, RequestLimits(max_request_bytes=10**9)) == (prompt, None)
    # a limit the images fit at a lower quality: same frames, quality below 90, hashes of the bytes sent
    limit = int(full * 0.75)
    fitted, cut = fit_prompt(prompt, RequestLimits(max_request_bytes=limit))
    assert len(fitted.images) == 6 and request_bytes(fitted) <= limit
    assert cut.quality_from == 90 and cut.quality_to < 90 and cut.sent == 6
    assert all(im.sha256 == hashlib.sha256(im.jpeg).hexdigest() and im.quality == cut.quality_to
               for im in fitted.images)
    assert cut.text().startswith(f"JPEG quality 90 → {cut.quality_to}: a request of {full:,} bytes is over the "
                                 f"profile's {limit:,}-byte limit")
    # a limit below what quality 30 gives: frames are halved until it fits
    tiny = int(request_bytes(fit_prompt(prompt, RequestLimits(max_request_bytes=1))[0]) + 2 * len(
        _image(0, 30).data_url()) + 400)
    fitted, cut = fit_prompt(prompt, RequestLimits(max_request_bytes=tiny))
    assert 0 < len(fitted.images) < 6 and request_bytes(fitted) <= tiny
    assert cut.text().startswith(f"6 asked, {len(fitted.images)} sent, JPEG quality 90 → 30")


def test_limits_come_from_the_profile_then_models_test_then_the_server():
    base = {"name": "p", "base_url": "http://127.0.0.1:1/v1", "model": "m"}
    assert limits_of(ModelProfile(**base, max_images_per_request=3,
                                  capabilities=Capabilities(max_images_per_request=8))).max_images == 3
    tested = limits_of(ModelProfile(**base, capabilities=Capabilities(max_images_per_request=8)), 2)
    assert (tested.max_images, tested.images_source) == (8, "found by models test")
    assert limits_of(ModelProfile(**base), 2).images_source == "announced by the server"
    assert limits_of(ModelProfile(**base, max_request_bytes=20_000_000)).max_request_bytes == 20_000_000
