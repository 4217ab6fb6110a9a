"""The judge's request body carries the benchmark's own parameter names (issue 31 item 5): FieldWorkArena's
evaluator at 8ebe8dae sends its cap as ``max_completion_tokens`` and ``"stop": null``; the leaderboard copy,
OpenEQA and IndustryEQA send ``max_tokens``. Checked on the bodies a fake OpenAI server records."""

from __future__ import annotations

from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.scoring.judging import JudgeCaller
from fieldstudio.scoring.official.settings import JudgeSettings
from tests.support.fake_openai import Reply

FWA_OFFLINE = JudgeSettings(model="gpt-4o-2024-08-06", temperature=0, top_p=1.0, seed=42, max_tokens=768,
                            system="You are a helpful assistant", token_parameter="max_completion_tokens",
                            sends_stop=True)


def _body(project, fake_openai, settings):  # noqa: ANN001, ANN202
    judge = JudgeCaller(project, ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0))
    judge.configure(settings)
    fake_openai.queue(Reply(text="correct"))
    assert judge("the prompt") == "correct"
    return fake_openai.chat_requests()[-1].body


def test_fieldworkarena_offline_names(project, fake_openai):
    body = _body(project, fake_openai, FWA_OFFLINE)
    assert body["max_completion_tokens"] == 768 and "max_tokens" not in body
    assert "stop" in body and body["stop"] is None
    assert (body["temperature"], body["top_p"], body["seed"]) == (0, 1.0, 42)
    assert body["messages"][0] == {"role": "system", "content": "You are a helpful assistant"}


def test_plain_max_tokens_elsewhere(project, fake_openai):
    body = _body(project, fake_openai, JudgeSettings(model="gpt-4", temperature=0.2, seed=1234, max_tokens=32))
    assert body["max_tokens"] == 32 and "max_completion_tokens" not in body and "stop" not in body
    assert FWA_OFFLINE.describe().startswith("temperature 0, top_p 1, seed 42, 768 tokens (as max_completion_tokens), "
                                             "stop null")
    assert "token_parameter" not in JudgeSettings(max_tokens=32).as_dict()     # earlier records keep their shape


def test_the_cache_key_stays_when_the_url_secret_moves_to_the_keyring(project, memory_keyring):
    """A profile whose base URL held a key (older profiles): once the key moved to the keyring the URL is shorter,
    and the judge's cache key, made from the shown (masked) URL, is the same, so no second judge call is made."""
    import dataclasses

    from fieldstudio.inference.profiles import _keep_url_secret_in_keyring

    before = ModelProfile(name="judge", base_url="http://user:pw@127.0.0.1:9/v1?key=s3cret", model="j")
    after = dataclasses.replace(before)
    _keep_url_secret_in_keyring(after)
    assert "pw" not in after.base_url and "s3cret" not in after.base_url
    assert JudgeCaller(project, after).key("Is it so?") == JudgeCaller(project, before).key("Is it so?")
    other = ModelProfile(name="judge", base_url="http://127.0.0.1:9/v1", model="j")
    assert JudgeCaller(project, other).key("Is it so?") != JudgeCaller(project, before).key("Is it so?")
