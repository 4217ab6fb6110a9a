"""The OpenAI-compatible client, with the real `openai` package against the local fake server."""

from __future__ import annotations

import logging
import time

import pytest

from fieldstudio.inference.call_errors import ModelCallError
from fieldstudio.inference.client import ChatResult, chat, chat_stream, cost, make_client
from fieldstudio.inference.profiles import ModelProfile
from tests.support.fake_openai import FakeOpenAI, Reply, fake_openai  # noqa: F401  (fixture)

PLANTED_KEY = "fs-planted-9QwErTyKeyThatMustNotLeak"
HELLO = [{"role": "user", "content": "hello"}]


def profile_for(server: FakeOpenAI, **overrides) -> ModelProfile:
    values = {"name": "fake", "base_url": server.root, "model": "fake-vlm", "timeout_s": 5.0, "retries": 0}
    values.update(overrides)
    return ModelProfile(**values)


def no_sleep(seconds: float) -> None:
    return None


# -- the client ----------------------------------------------------------------------------------


def test_client_has_explicit_timeout_and_no_sdk_retries(fake_openai):
    client = make_client(profile_for(fake_openai, timeout_s=42.0))
    assert client.max_retries == 0                       # the SDK default is 2
    assert client.timeout.read == 42.0                   # the SDK default is 600
    assert client.timeout.connect == 5.0
    assert client.timeout.write == 60.0


def test_base_url_without_v1_is_normalised_and_requests_go_to_v1(fake_openai):
    result = chat(profile_for(fake_openai), HELLO)
    assert result.text == "ok"
    assert [r.path for r in fake_openai.requests] == ["/v1/chat/completions"]


def test_request_carries_model_temperature_and_seed(fake_openai):
    chat(profile_for(fake_openai, temperature=0.2, seed=11), HELLO, max_tokens=50)
    body = fake_openai.chat_requests()[0].body
    assert body["model"] == "fake-vlm"
    assert body["temperature"] == 0.2 and body["seed"] == 11 and body["max_tokens"] == 50
    assert body["messages"] == HELLO
    chat(profile_for(fake_openai, temperature=None), HELLO)
    body = fake_openai.chat_requests()[1].body
    assert "temperature" not in body and "seed" not in body and "max_tokens" not in body


def test_usage_is_read_with_details(fake_openai):
    fake_openai.queue(Reply(text="fine", prompt_tokens=1200, completion_tokens=300, reasoning_tokens=120,
                            cached_tokens=1000))
    result = chat(profile_for(fake_openai), HELLO)
    assert (result.text, result.prompt_tokens, result.completion_tokens) == ("fine", 1200, 300)
    assert (result.reasoning_tokens, result.cached_tokens) == (120, 1000)
    assert result.finish_reason == "stop" and result.model == "fake-vlm" and result.attempts == 1
    assert result.raw["usage"]["prompt_tokens"] == 1200
    assert result.latency_s > 0


def test_absent_usage_gives_none_not_zero(fake_openai):
    fake_openai.queue(Reply(text="no usage", usage=False))
    result = chat(profile_for(fake_openai), HELLO)
    assert result.text == "no usage"
    assert result.prompt_tokens is None and result.completion_tokens is None
    assert result.reasoning_tokens is None and result.cached_tokens is None
    assert result.usage_reported is False


def test_usage_without_details_leaves_cached_and_reasoning_none(fake_openai):
    fake_openai.queue(Reply(prompt_tokens=5, completion_tokens=1))
    result = chat(profile_for(fake_openai), HELLO)
    assert (result.prompt_tokens, result.completion_tokens) == (5, 1)
    assert result.cached_tokens is None and result.reasoning_tokens is None


def test_an_openai_api_key_in_the_environment_is_not_sent_to_other_servers(fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    chat(profile_for(fake_openai), HELLO)
    assert fake_openai.requests[0].headers["authorization"] == "Bearer no-key"


# -- streaming ---------------------------------------------------------------------------------


def test_stream_reads_usage_from_the_final_chunk_without_choices(fake_openai):
    fake_openai.queue(Reply(text="hi there", prompt_tokens=5, completion_tokens=2))
    pieces: list[str] = []
    result = chat_stream(profile_for(fake_openai), HELLO, on_text=pieces.append)
    body = fake_openai.chat_requests()[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert pieces == ["hi", " t", "he", "re"]
    assert result.text == "hi there"
    assert (result.prompt_tokens, result.completion_tokens) == (5, 2)
    assert result.finish_reason == "stop"


def test_stream_without_usage_chunk_gives_none(fake_openai):
    fake_openai.queue(Reply(text="hi", usage=False))
    result = chat_stream(profile_for(fake_openai), HELLO)
    assert result.text == "hi"
    assert result.prompt_tokens is None and result.completion_tokens is None


def test_stream_falls_back_when_stream_options_are_rejected(fake_openai):
    fake_openai.stream_options_supported = False
    result = chat_stream(profile_for(fake_openai), HELLO)
    assert result.text == "ok" and result.prompt_tokens is None
    first, second = fake_openai.chat_requests()
    assert "stream_options" in first.body and "stream_options" not in second.body


# -- retries and errors ------------------------------------------------------------------------


def test_429_then_success_honours_retry_after(fake_openai):
    fake_openai.queue(Reply(status=429, headers={"Retry-After": "0.4"}, error_message="slow down"),
                      Reply(text="after the wait"))
    started = time.monotonic()
    result = chat(profile_for(fake_openai, retries=2), HELLO)
    elapsed = time.monotonic() - started
    assert result.text == "after the wait"
    assert result.attempts == 2
    assert len(fake_openai.chat_requests()) == 2
    assert elapsed >= 0.4


def test_retry_after_ms_is_preferred_and_waits_are_reported(fake_openai):
    fake_openai.queue(Reply(status=503, headers={"retry-after-ms": "250", "Retry-After": "9"}), Reply())
    waits: list[float] = []
    chat(profile_for(fake_openai, retries=1), HELLO, sleep=waits.append)
    assert waits == [pytest.approx(0.25)]


def test_exactly_one_plus_retries_requests_then_a_plain_error(fake_openai):
    fake_openai.responder = lambda request: Reply(status=503, error_message="model is loading")
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai, retries=2), HELLO, sleep=no_sleep)
    assert len(fake_openai.chat_requests()) == 3
    error = caught.value
    assert error.kind == "server_error" and error.status == 503 and error.attempts == 3
    assert "loading the model" in str(error) and "model is loading" in str(error)


def test_a_long_retry_after_is_not_waited_for(fake_openai):
    fake_openai.queue(Reply(status=429, headers={"Retry-After": "600"}))
    waits: list[float] = []
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai, retries=3), HELLO, sleep=waits.append)
    assert waits == [] and len(fake_openai.chat_requests()) == 1
    assert caught.value.kind == "rate_limited" and "600 s" in str(caught.value)


def test_timeout_is_classified_and_not_repeated(fake_openai):
    fake_openai.latency_s = 1.5
    started = time.monotonic()
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai, timeout_s=0.4, retries=2), HELLO, sleep=no_sleep)
    assert time.monotonic() - started < 1.4
    assert caught.value.kind == "timeout"
    assert "timeout" in str(caught.value) and "0.4 s" in str(caught.value)
    assert len(fake_openai.chat_requests()) == 1          # the SDK default would have sent it 3 times


def test_404_from_a_base_url_without_v1_is_explained(fake_openai):
    profile = profile_for(fake_openai, base_url=fake_openai.root + "/v1beta")   # kept as given: has a version
    with pytest.raises(ModelCallError) as caught:
        chat(profile, HELLO)
    assert fake_openai.requests[0].path == "/v1beta/chat/completions"
    assert caught.value.kind == "not_found" and caught.value.status == 404
    assert "base URL probably lacks /v1" in str(caught.value)


def test_404_for_an_unknown_model_names_the_model(fake_openai):
    fake_openai.queue(Reply(status=404, error_message="model 'llava:13b' not found, try pulling it first"))
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai, model="llava:13b"), HELLO)
    assert caught.value.kind == "model_not_found" and "'llava:13b'" in str(caught.value)


def test_text_only_server_says_images_are_not_accepted(fake_openai):
    fake_openai.text_only = True
    messages = [{"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai, retries=2), messages, sleep=no_sleep)
    assert caught.value.kind == "images_rejected"
    assert "does not accept images" in str(caught.value)
    assert len(fake_openai.chat_requests()) == 1


def test_too_many_images_gives_the_limit(fake_openai):
    fake_openai.max_images = 1
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai), [{"role": "user", "content": [image, image]}])
    assert caught.value.kind == "too_many_images" and caught.value.max_images == 1


def test_malformed_json_is_a_bad_response(fake_openai):
    fake_openai.queue(Reply(body='{"id": "x", "choices": ['))
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai, retries=2), HELLO, sleep=no_sleep)
    assert caught.value.kind == "bad_response"
    assert len(fake_openai.chat_requests()) == 1


def test_no_server_is_a_connection_error():
    server = FakeOpenAI().start()
    profile = profile_for(server)
    server.stop()
    with pytest.raises(ModelCallError) as caught:
        chat(profile, HELLO, sleep=no_sleep)
    assert caught.value.kind == "connection" and "cannot connect" in str(caught.value)


def test_wrong_key_is_explained_and_the_key_never_shown(fake_openai, monkeypatch):
    fake_openai.require_key = "the-right-key"
    monkeypatch.setenv("FS_TEST_KEY", PLANTED_KEY)
    profile = profile_for(fake_openai, api_key_env="FS_TEST_KEY")
    fake_openai.queue(Reply(status=401, error_message=f"Incorrect API key provided: {PLANTED_KEY}"))
    with pytest.raises(ModelCallError) as caught:
        chat(profile, HELLO)
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {PLANTED_KEY}"   # the key was used
    assert caught.value.kind == "auth"
    assert "FS_TEST_KEY" in str(caught.value)
    assert PLANTED_KEY not in str(caught.value) and PLANTED_KEY not in caught.value.detail


def test_missing_key_variable_is_a_plain_error(fake_openai, monkeypatch):
    monkeypatch.delenv("FS_TEST_MISSING", raising=False)
    with pytest.raises(ModelCallError) as caught:
        chat(profile_for(fake_openai, api_key_env="FS_TEST_MISSING"), HELLO)
    assert caught.value.kind == "no_key" and "FS_TEST_MISSING" in str(caught.value)
    assert fake_openai.requests == []


def test_key_and_url_credentials_never_reach_the_log(fake_openai, monkeypatch, caplog):
    """Everything logged at DEBUG by fieldstudio, openai and httpx, through success and failures."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("FS_TEST_KEY", PLANTED_KEY)
    keyed = profile_for(fake_openai, api_key_env="FS_TEST_KEY", retries=1)
    chat(keyed, HELLO)
    chat_stream(keyed, HELLO)
    assert fake_openai.requests[0].headers["authorization"] == f"Bearer {PLANTED_KEY}"   # the key was sent
    url = f"http://fsuser:url-Secret-77@127.0.0.1:{fake_openai.port}/v1"
    with_credentials = profile_for(fake_openai, base_url=url, retries=1)
    chat(with_credentials, HELLO)
    fake_openai.queue(Reply(status=429, headers={"Retry-After": "0"}),
                      Reply(status=401, error_message=f"bad key {PLANTED_KEY} for {url}"))
    with pytest.raises(ModelCallError) as caught:
        chat(keyed, HELLO)
    assert len(fake_openai.chat_requests()) == 5
    assert caplog.records, "nothing was logged: the test would prove nothing"
    assert any("127.0.0.1" in record.getMessage() for record in caplog.records)
    for text in (caplog.text, str(caught.value)):
        assert PLANTED_KEY not in text
        assert "url-Secret-77" not in text
    assert "***@127.0.0.1" in caplog.text


def test_credentials_in_the_base_url_are_sent_as_basic_auth(fake_openai):
    """httpx turns user:password in the URL into HTTP Basic auth (e.g. a server behind a proxy)."""
    profile = profile_for(fake_openai, base_url=f"http://fsuser:pw@127.0.0.1:{fake_openai.port}/v1")
    chat(profile, HELLO)
    assert fake_openai.requests[0].headers["authorization"] == "Basic ZnN1c2VyOnB3"   # base64("fsuser:pw")


# -- cost --------------------------------------------------------------------------------------


def result_with(prompt, completion, reasoning=None, cached=None) -> ChatResult:
    return ChatResult("x", prompt, completion, reasoning, cached, latency_s=0.1)


def test_cost_in_usd_from_prices_per_million_tokens():
    profile = ModelProfile(name="p", base_url="http://h/v1", model="m", price_input_per_mtok=2.5,
                           price_output_per_mtok=10.0, price_cached_per_mtok=1.25)
    # 600 uncached x 2.5 + 400 cached x 1.25 + 500 output x 10 = 1500 + 500 + 5000 = 7000 USD per 1e6
    assert cost(profile, result_with(1000, 500, reasoning=200, cached=400)) == pytest.approx(0.007)
    # unknown cached count: every prompt token at the input price
    assert cost(profile, result_with(1000, 500)) == pytest.approx((2500 + 5000) / 1e6)


def test_reasoning_tokens_are_not_charged_twice():
    profile = ModelProfile(name="p", base_url="http://h/v1", model="m", price_input_per_mtok=1.0,
                           price_output_per_mtok=4.0, price_reasoning_per_mtok=8.0)
    # 100 x 1 + (300 - 200) x 4 + 200 x 8 = 100 + 400 + 1600
    assert cost(profile, result_with(100, 300, reasoning=200)) == pytest.approx(2100 / 1e6)


def test_unknown_tokens_or_prices_give_unknown_cost():
    priced = ModelProfile(name="p", base_url="http://h/v1", model="m", price_input_per_mtok=1.0,
                          price_output_per_mtok=2.0)
    assert cost(priced, result_with(None, None)) is None
    assert cost(ModelProfile(name="p", base_url="http://h/v1", model="m"), result_with(10, 10)) is None


def test_a_local_model_with_a_cost_per_hour_pays_its_latency():
    """$3.60 an hour is $0.001 a second: a 2.5 s reply costs $0.0025 whatever its tokens; token prices, when set,
    win; a batch reply has no serving time, so its cost stays unknown."""
    local = ModelProfile("local", "http://127.0.0.1:1/v1", "m", cost_per_hour_usd=3.6)
    assert cost(local, ChatResult("x", None, None, None, None, latency_s=2.5)) == pytest.approx(0.0025)
    assert cost(ModelProfile("free", "http://127.0.0.1:1/v1", "m", cost_per_hour_usd=0.0),
                ChatResult("x", 10, 2, None, None, latency_s=2.5)) == 0.0
    priced = ModelProfile("p", "http://127.0.0.1:1/v1", "m", cost_per_hour_usd=3.6, price_input_per_mtok=2.0,
                          price_output_per_mtok=8.0)
    assert cost(priced, ChatResult("x", 1000, 100, None, None, latency_s=2.5)) == pytest.approx(0.0028)
    assert cost(local, ChatResult("x", 10, 2, None, None, latency_s=2.5), batch=True) is None
    with pytest.raises(Exception, match="cost per hour cannot be negative"):
        ModelProfile("bad", "http://127.0.0.1:1/v1", "m", cost_per_hour_usd=-1.0)
