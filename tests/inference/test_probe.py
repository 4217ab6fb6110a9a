"""`test_profile` against the fake server: what it finds, and the plain words it uses."""

from __future__ import annotations

import base64
import io

from PIL import Image

from fieldstudio.inference.probe import solid_png, test_profile
from fieldstudio.inference.profiles import ModelProfile
from tests.support.fake_openai import FakeOpenAI, RecordedRequest, Reply, fake_openai  # noqa: F401  (fixture)


def profile_for(server: FakeOpenAI, **overrides) -> ModelProfile:
    values = {"name": "fake", "base_url": server.base_url, "model": "fake-vlm", "timeout_s": 5.0, "retries": 3}
    values.update(overrides)
    return ModelProfile(**values)


def capable_model(request: RecordedRequest) -> Reply:
    """Answers like a vision model: names the colours it is shown, returns JSON when asked."""
    if request.has_image:
        colours = []
        for url in request.image_urls():
            pixel = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB").getpixel((0, 0))
            colours.append("Red" if pixel[0] > 128 else "Blue")
        return Reply(text=" and ".join(colours) + ".")
    if "response_format" in request.body:
        return Reply(text='{"answer": "ready"}')
    return Reply(text="ready")


def test_solid_png_decodes_with_pillow():
    image = Image.open(io.BytesIO(solid_png(64, 48, (220, 20, 20))))
    assert image.format == "PNG" and image.size == (64, 48)
    assert image.convert("RGB").getpixel((63, 47)) == (220, 20, 20)


def test_a_capable_endpoint(fake_openai):
    fake_openai.responder = capable_model
    report = test_profile(profile_for(fake_openai))
    assert report.ok and report.reachable and report.model_listed
    assert report.images_accepted is True
    assert report.max_images_per_request is None
    assert report.usage_reported is True and report.stream_usage_reported is True and report.json_mode is True
    assert report.problems == []
    image_request = next(r for r in fake_openai.chat_requests() if r.has_image)
    assert image_request.image_urls()[0].startswith("data:image/png;base64,")
    caps = report.capabilities()
    assert caps.images_accepted is True and caps.tested_at
    assert [s.name for s in report.steps] == ["models", "text", "image", "two images", "json mode", "stream"]


def test_a_text_only_server_is_reported(fake_openai):
    fake_openai.responder = capable_model
    fake_openai.text_only = True
    report = test_profile(profile_for(fake_openai))
    assert report.ok and report.images_accepted is False
    assert any("does not accept images" in p for p in report.problems)
    assert "two images" not in [s.name for s in report.steps]


def test_an_image_dropped_silently_fails_the_image_step(fake_openai):
    fake_openai.responder = lambda request: Reply(text="Please provide an image so I can help.")
    report = test_profile(profile_for(fake_openai))
    assert report.ok and report.images_accepted is False
    assert any("dropped the image" in p for p in report.problems)


def test_a_one_image_limit_is_found(fake_openai):
    fake_openai.responder = capable_model
    fake_openai.max_images = 1
    report = test_profile(profile_for(fake_openai))
    assert report.images_accepted is True and report.max_images_per_request == 1
    assert report.capabilities().max_images_per_request == 1


def test_missing_usage_and_json_mode(fake_openai):
    fake_openai.responder = lambda request: Reply(text="red" if request.has_image else "ready", usage=False)
    fake_openai.json_mode = False
    report = test_profile(profile_for(fake_openai))
    assert report.ok
    assert report.usage_reported is False and report.stream_usage_reported is False
    assert report.json_mode is False
    text_step = next(s for s in report.steps if s.name == "text")
    assert "no token usage" in text_step.detail


def test_base_url_without_v1_is_explained(fake_openai):
    report = test_profile(profile_for(fake_openai, base_url=fake_openai.root + "/v1beta"))
    assert not report.ok
    assert any("base URL probably lacks /v1" in p for p in report.problems)


def test_an_unlisted_model_is_named(fake_openai):
    """Not listed and not answered: a problem naming the id and what the server lists. Not listed but
    answered (a server with one model, as llama.cpp's): a note, not a failure."""
    fake_openai.responder = lambda request: Reply(status=404, error_message="model 'llava:13b' not found")
    report = test_profile(profile_for(fake_openai, model="llava:13b"))
    assert report.model_listed is False and not report.ok
    assert any("'llava:13b'" in p and "fake-vlm" in p and "check the model id" in p for p in report.problems)
    fake_openai.responder = capable_model
    report = test_profile(profile_for(fake_openai, model="llava:13b"))
    assert report.model_listed is False and report.ok
    (models,) = [s for s in report.steps if s.name == "models"]
    assert models.ok is None and "'llava:13b'" in models.detail and "answered a request for it" in models.detail
    assert not any("llava" in p for p in report.problems)


def test_the_probe_never_retries(fake_openai):
    fake_openai.responder = lambda request: Reply(status=503, error_message="loading")
    report = test_profile(profile_for(fake_openai, retries=3))
    assert not report.ok and report.reachable
    assert len(fake_openai.chat_requests()) == 1
    assert any("503" in p for p in report.problems)


def test_a_refused_key_stops_the_probe(fake_openai, monkeypatch):
    fake_openai.require_key = "right"
    monkeypatch.setenv("FS_TEST_KEY", "wrong-key-value")
    report = test_profile(profile_for(fake_openai, api_key_env="FS_TEST_KEY"))
    assert not report.ok
    assert [r.path for r in fake_openai.requests] == ["/v1/models"]
    assert any("refused the API key" in p and "FS_TEST_KEY" in p for p in report.problems)
    assert not any("wrong-key-value" in p for p in report.problems)


def test_no_server(fake_openai):
    profile = profile_for(fake_openai)
    fake_openai.stop()
    report = test_profile(profile)
    assert not report.ok and not report.reachable
    assert any("cannot connect" in p for p in report.problems)


def _content_is_parts(request: RecordedRequest) -> bool:
    return any(isinstance(m.get("content"), list) for m in request.body["messages"])


def test_a_server_that_cannot_read_content_parts_takes_no_images(fake_openai):
    # as llama.cpp's Python server does with a text-only chat template: a 500 for any list content
    fake_openai.responder = lambda request: (
        Reply(status=500, error_message='can only concatenate str (not "list") to str')
        if _content_is_parts(request) else Reply(text="ready"))
    report = test_profile(profile_for(fake_openai, retries=0))
    assert report.ok and report.images_accepted is False
    image_step = next(s for s in report.steps if s.name == "image")
    assert "cannot read a message made of parts" in image_step.detail
    assert image_step.detail.startswith('an image request failed (500) (the server said: can only concatenate str')
    assert "loading" not in image_step.detail                     # not the advice for a server still starting
    control = [r for r in fake_openai.chat_requests() if _content_is_parts(r) and not r.has_image]
    assert len(control) == 1                                       # the control was asked once, without an image


def test_a_server_error_on_the_image_alone_leaves_images_unknown(fake_openai):
    fake_openai.responder = lambda request: (
        Reply(status=500, error_message="out of memory") if request.has_image else Reply(text="ready"))
    report = test_profile(profile_for(fake_openai, retries=0))
    assert report.ok and report.images_accepted is None
