"""Model profiles: URL normalisation, masking, the profile file, and keys that never reach it."""

from __future__ import annotations

import json
import os

import keyring
import platformdirs
import pytest

from fieldstudio.inference import profiles as store
from fieldstudio.inference.base_urls import ProfileError, mask_url, normalize_base_url
from fieldstudio.inference.profiles import ModelProfile, resolve_api_key

PLANTED_KEY = "sk-planted-Zq8xL3vN0tInTheFile"


# -- URLs --------------------------------------------------------------------------------------


@pytest.mark.parametrize("given, expected", [
    ("http://localhost:11434", "http://localhost:11434/v1"),          # pitfalls §15
    ("http://x/v1/", "http://x/v1"),                                  # pitfalls §15
    ("http://localhost:8000/", "http://localhost:8000/v1"),
    ("  http://127.0.0.1:1234/v1  ", "http://127.0.0.1:1234/v1"),
    ("https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"),
    ("http://gpu-box:8000/v1/chat/completions", "http://gpu-box:8000/v1"),
    ("http://proxy.local/openai", "http://proxy.local/openai/v1"),
    ("https://generativelanguage.googleapis.com/v1beta/openai/",
     "https://generativelanguage.googleapis.com/v1beta/openai"),
    ("localhost:8080", "http://localhost:8080/v1"),
])
def test_normalize_base_url(given, expected):
    assert normalize_base_url(given) == expected


@pytest.mark.parametrize("bad", ["", "   ", "ftp://host/v1", "http:///v1"])
def test_normalize_base_url_rejects_non_urls(bad):
    with pytest.raises(ProfileError):
        normalize_base_url(bad)


@pytest.mark.parametrize("preset, url", [
    ("ollama", "http://localhost:11434/v1"), ("vllm", "http://localhost:8000/v1"),
    ("lmstudio", "http://localhost:1234/v1"), ("llamacpp", "http://localhost:8080/v1"),
    ("openrouter", "https://openrouter.ai/api/v1"), ("openai", "https://api.openai.com/v1"),
])
def test_preset_fills_the_base_url(preset, url):
    assert ModelProfile(name="p", base_url="", model="m", preset=preset).base_url == url


def test_unknown_preset_is_refused():
    with pytest.raises(ProfileError, match="unknown preset"):
        ModelProfile(name="p", base_url="", model="m", preset="tgi")


@pytest.mark.parametrize("given, expected", [
    ("http://user:pass@host:8000/v1", "http://***@host:8000/v1"),
    ("https://token@proxy.example/api/v1", "https://***@proxy.example/api/v1"),
    ("https://host/v1beta/openai?key=AIzaSECRET&x=1", "https://host/v1beta/openai?key=***&x=1"),
    ("http://localhost:11434/v1", "http://localhost:11434/v1"),
])
def test_mask_url(given, expected):
    assert mask_url(given) == expected


@pytest.mark.parametrize("given, expected", [
    ("https://apim.example/v1?subscription-key=S3cret&api-version=1", "https://apim.example/v1?subscription-key=***&api-version=1"),
    ("https://h/v1?X-Api-Key=S3cret", "https://h/v1?X-Api-Key=***"),
    ("https://h/v1?client_secret=S3cret", "https://h/v1?client_secret=***"),
    ("https://h/v1?auth_token=S3cret", "https://h/v1?auth_token=***"),
])
def test_mask_url_knows_key_names_beyond_the_common_few(given, expected):
    """Found by a hostile try: `subscription-key` (Azure API Management) and the like stayed in clear."""
    assert mask_url(given) == expected


def test_a_secret_under_an_unlisted_query_name_is_split_off():
    from fieldstudio.inference.base_urls import split_url_secret
    plain, secret = split_url_secret("https://apim.example/v1?subscription-key=S3cret&api-version=1")
    assert "S3cret" not in plain and "api-version=1" in plain and secret["query"] == [["subscription-key", "S3cret"]]


def test_path_parameters_are_refused_without_echoing_them(config_dir):
    """Found by a hostile try: ``http://h/v1;token=K`` was kept as ``http://h/v1;token=K/v1`` in the profile file."""
    with pytest.raises(ProfileError) as caught:
        store.add_profile(ModelProfile(name="p", base_url="http://127.0.0.1:9/v1;token=kkey789", model="m"))
    assert "kkey789" not in str(caught.value) and ";" in str(caught.value)
    assert not (config_dir / "model_profiles.json").exists()


def test_an_older_profile_with_path_parameters_leaves_the_others_readable(config_dir):
    path = config_dir / "model_profiles.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": "fieldstudio-model-profiles", "version": 1, "profiles": [
        {"name": "old", "base_url": "http://h/v1;x=1/v1", "model": "m"},
        {"name": "fine", "base_url": "http://h/v1", "model": "m"}]}))
    assert set(store.load_profiles()) == {"old", "fine"}


# -- validation --------------------------------------------------------------------------------


def test_a_key_pasted_as_variable_name_is_refused_without_echoing_it():
    with pytest.raises(ProfileError) as caught:
        ModelProfile(name="p", base_url="http://h/v1", model="m", api_key_env=PLANTED_KEY)
    assert PLANTED_KEY not in str(caught.value)
    assert "NAME of an environment variable" in str(caught.value)


@pytest.mark.parametrize("field, value", [("timeout_s", 0), ("retries", -1), ("concurrency", 0),
                                          ("price_input_per_mtok", -1.0), ("image_detail", "ultra"),
                                          ("max_images_per_request", 0), ("model", " ")])
def test_invalid_values_are_refused(field, value):
    values = {"name": "p", "base_url": "http://h/v1", "model": "m", field: value}
    with pytest.raises(ProfileError):
        ModelProfile(**values)


# -- the profile file --------------------------------------------------------------------------


def test_profiles_round_trip_through_the_config_folder(config_dir):
    profile = ModelProfile(name="qwen-local", base_url="http://localhost:11434", model="qwen2.5vl:7b",
                           preset="ollama", price_input_per_mtok=0.2, price_output_per_mtok=0.6,
                           max_images_per_request=4, image_detail="low", timeout_s=300, retries=1,
                           concurrency=2, temperature=None, seed=7)
    path = store.add_profile(profile)
    assert path == config_dir / "model_profiles.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["version"] == 1
    assert document["profiles"][0]["base_url"] == "http://localhost:11434/v1"
    loaded = store.get_profile("qwen-local")
    assert loaded == profile
    assert [p.name for p in config_dir.iterdir()] == ["model_profiles.json"]   # no temp file left behind


def test_default_config_folder_is_platformdirs(monkeypatch):
    monkeypatch.delenv("FIELDSTUDIO_CONFIG_DIR", raising=False)
    assert str(store.profiles_path().parent) == platformdirs.user_config_dir("fieldstudio")


def test_a_failed_save_leaves_the_previous_file(config_dir, monkeypatch):
    store.add_profile(ModelProfile(name="a", base_url="http://h/v1", model="m"))
    before = (config_dir / "model_profiles.json").read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ProfileError, match="cannot save"):
        store.add_profile(ModelProfile(name="b", base_url="http://h/v1", model="m"))
    assert (config_dir / "model_profiles.json").read_bytes() == before
    assert [p.name for p in config_dir.iterdir()] == ["model_profiles.json"]


def test_duplicate_unknown_and_removed_profiles(config_dir):
    store.add_profile(ModelProfile(name="a", base_url="http://h/v1", model="m1"))
    with pytest.raises(ProfileError, match="exists already"):
        store.add_profile(ModelProfile(name="a", base_url="http://h/v1", model="m2"))
    store.add_profile(ModelProfile(name="a", base_url="http://h/v1", model="m2"), replace=True)
    assert store.get_profile("a").model == "m2"
    assert store.remove_profile("a").model == "m2"
    assert store.load_profiles() == {}
    with pytest.raises(ProfileError, match="No model profile called 'a'"):
        store.remove_profile("a")


def test_a_corrupt_file_is_reported(config_dir):
    config_dir.mkdir()
    (config_dir / "model_profiles.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ProfileError, match="cannot read"):
        store.load_profiles()


def test_unknown_fields_from_a_newer_version_are_ignored(config_dir):
    config_dir.mkdir()
    entry = {"name": "a", "base_url": "http://h/v1", "model": "m", "future_field": 1,
             "capabilities": {"images_accepted": True, "future_capability": 2}}
    (config_dir / "model_profiles.json").write_text(json.dumps({"profiles": [entry]}), encoding="utf-8")
    profile = store.get_profile("a")
    assert profile.capabilities.images_accepted is True


# -- keys --------------------------------------------------------------------------------------


def test_the_key_never_reaches_the_profile_file(config_dir, monkeypatch, memory_keyring):
    monkeypatch.setenv("FS_TEST_KEY", PLANTED_KEY)
    profile = ModelProfile(name="hosted", base_url="https://user:pw-in-url@api.example.com/v1?key=QK-in-query&x=1",
                           model="m", api_key_env="FS_TEST_KEY")
    assert resolve_api_key(profile) == PLANTED_KEY
    store.add_profile(profile)
    text = (config_dir / "model_profiles.json").read_text(encoding="utf-8")
    assert PLANTED_KEY not in text and "pw-in-url" not in text and "QK-in-query" not in text
    assert '"api_key_env": "FS_TEST_KEY"' in text
    stored = store.get_profile("hosted")
    assert stored.base_url == "https://api.example.com/v1?x=1"
    assert stored.shown_url == "https://***@api.example.com/v1?key=***&x=1"
    assert json.loads(memory_keyring.passwords[("fieldstudio", "hosted base URL")]) == \
        {"userinfo": "user:pw-in-url", "query": [["key", "QK-in-query"]]}
    assert store.resolve_base_url(stored) == "https://user:pw-in-url@api.example.com/v1?x=1&key=QK-in-query"
    store.add_profile(ModelProfile(name="hosted", base_url="https://api.example.com/v1", model="m"), replace=True)
    assert ("fieldstudio", "hosted base URL") not in memory_keyring.passwords     # no secret left behind


def test_a_url_secret_without_a_keyring_is_refused_and_nothing_is_written(config_dir, no_keyring):
    """No keyring: the profile is refused, saying what to do instead."""
    with pytest.raises(ProfileError) as caught:
        store.add_profile(ModelProfile(name="hosted", base_url="https://user:pw-in-url@api.example.com/v1", model="m"))
    assert "holds a password or key" in str(caught.value) and "--api-key-env" in str(caught.value)
    assert "pw-in-url" not in str(caught.value)
    assert not (config_dir / "model_profiles.json").exists()


def test_an_older_file_with_a_url_secret_is_cleaned_when_read(config_dir, memory_keyring):
    path = config_dir / "model_profiles.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": "fieldstudio-model-profiles", "version": 1, "profiles": [
        {"name": "old", "base_url": "http://u:old-Secret-9@h/v1", "model": "m"}]}))
    loaded = store.load_profiles()
    assert loaded["old"].base_url == "http://h/v1" and "old-Secret-9" not in path.read_text()
    assert store.resolve_base_url(loaded["old"]) == "http://u:old-Secret-9@h/v1"


def test_params_without_key_hold_no_credentials(monkeypatch):
    monkeypatch.setenv("FS_TEST_KEY", PLANTED_KEY)
    profile = ModelProfile(name="hosted", base_url="https://user:pw-in-url@api.example.com/v1", model="m",
                           api_key_env="FS_TEST_KEY", price_input_per_mtok=2.5, price_output_per_mtok=10)
    params = profile.params_without_key()
    text = json.dumps(params)
    assert PLANTED_KEY not in text and "pw-in-url" not in text and "FS_TEST_KEY" not in text
    assert params["base_url"] == "https://***@api.example.com/v1"
    assert params["api_key_source"] == "env"
    assert params["model"] == "m" and params["price_output_per_mtok"] == 10


def test_missing_environment_variable_is_named(monkeypatch):
    monkeypatch.delenv("FS_TEST_MISSING", raising=False)
    profile = ModelProfile(name="p", base_url="http://h/v1", model="m", api_key_env="FS_TEST_MISSING")
    with pytest.raises(ProfileError, match="FS_TEST_MISSING is not set"):
        resolve_api_key(profile)
    assert "NOT set" in profile.key_hint()


def test_keyring_key_is_read_and_stays_out_of_the_file(config_dir, memory_keyring):
    profile = ModelProfile(name="kr", base_url="http://h/v1", model="m", use_keyring=True)
    with pytest.raises(ProfileError, match="no key in the OS keyring"):
        resolve_api_key(profile)
    store.store_key_in_keyring("kr", PLANTED_KEY)
    assert memory_keyring.passwords[("fieldstudio", "kr")] == PLANTED_KEY
    assert resolve_api_key(profile) == PLANTED_KEY
    store.add_profile(profile)
    assert PLANTED_KEY not in (config_dir / "model_profiles.json").read_text(encoding="utf-8")
    assert store.delete_key_from_keyring("kr") is True
    assert store.delete_key_from_keyring("kr") is False


def test_no_key_source_gives_none():
    assert resolve_api_key(ModelProfile(name="p", base_url="http://h/v1", model="m")) is None


def test_the_tests_memory_keyring_is_never_what_keyring_detects(memory_keyring):
    """The memory keyring is installed by the fixture only: keyring's detection of the best backend never picks it,
    so the keyring the fixture restores is the real default, not a memory keyring shared by later tests."""
    import keyring.core

    from tests.support.memory_keyring import MemoryKeyring

    assert keyring.get_keyring() is memory_keyring
    assert not isinstance(keyring.core._detect_backend(), MemoryKeyring)
