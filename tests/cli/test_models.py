"""`fieldstudio models add/list/test/remove`, driven through typer's CliRunner on the sub-app."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fieldstudio.cli.models import models_app
from tests.support.fake_openai import Reply, fake_openai  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("wide_console")  # every test here: a 250-column console
PLANTED_KEY = "sk-planted-CliKeyMustNeverShow42"
runner = CliRunner()


def run(*args: str, input: str | None = None):
    return runner.invoke(models_app, list(args), input=input)


def stored(config_dir) -> dict:
    return {p["name"]: p for p in json.loads((config_dir / "model_profiles.json").read_text())["profiles"]}


def test_add_with_a_preset_then_list(config_dir):
    result = run("add", "qwen-local", "--preset", "ollama", "--model", "qwen2.5vl:7b",
                 "--price-in", "0", "--price-out", "0", "--concurrency", "2", "--timeout", "300")
    assert result.exit_code == 0, result.output
    profile = stored(config_dir)["qwen-local"]
    assert profile["base_url"] == "http://localhost:11434/v1"
    assert (profile["concurrency"], profile["timeout_s"], profile["price_input_per_mtok"]) == (2, 300.0, 0.0)
    listing = run("list")
    assert listing.exit_code == 0
    assert "qwen-local" in listing.output and "qwen2.5vl:7b" in listing.output
    assert "http://localhost:11434/v1" in listing.output and "never" in listing.output


def test_add_takes_a_deadline_and_a_reply_size_cap(config_dir):
    assert run("add", "slow", "--preset", "ollama", "--model", "m").exit_code == 0
    assert (stored(config_dir)["slow"]["deadline_s"], stored(config_dir)["slow"]["max_reply_bytes"]) == \
        (600.0, 4_000_000)                                        # the defaults
    result = run("add", "slow", "--preset", "ollama", "--model", "m", "--deadline", "90",
                 "--max-reply-bytes", "200000", "--replace")
    assert result.exit_code == 0, result.output
    assert (stored(config_dir)["slow"]["deadline_s"], stored(config_dir)["slow"]["max_reply_bytes"]) == (90.0, 200_000)
    refused = run("add", "tiny", "--preset", "ollama", "--model", "m", "--max-reply-bytes", "10")
    assert refused.exit_code == 2 and "reply size cap must be at least 1024 bytes" in refused.output


def test_hosted_preset_uses_its_usual_key_variable(config_dir):
    assert run("add", "gpt", "--preset", "openai", "--model", "gpt-4o-mini").exit_code == 0
    assert stored(config_dir)["gpt"]["api_key_env"] == "OPENAI_API_KEY"


def test_add_needs_a_base_url_or_preset(config_dir):
    result = run("add", "x", "--model", "m")
    assert result.exit_code == 2 and "base URL is needed" in result.output


def test_duplicate_names_are_refused_unless_replaced(config_dir):
    assert run("add", "a", "--base-url", "http://h:8000", "--model", "m1").exit_code == 0
    again = run("add", "a", "--base-url", "http://h:8000", "--model", "m2")
    assert again.exit_code == 2 and "exists already" in again.output
    assert run("add", "a", "--base-url", "http://h:8000", "--model", "m2", "--replace").exit_code == 0
    assert stored(config_dir)["a"]["model"] == "m2"


def test_the_key_is_never_printed_or_stored(config_dir, monkeypatch, memory_keyring):
    monkeypatch.setenv("FS_TEST_KEY", PLANTED_KEY)
    result = run("add", "hosted", "--base-url", "https://fsuser:url-Secret-77@api.example.com/v1",
                 "--model", "m", "--api-key-env", "FS_TEST_KEY")
    assert result.exit_code == 0, result.output
    listing = run("list")
    for output in (result.output, listing.output):
        assert PLANTED_KEY not in output and "url-Secret-77" not in output
    assert "https://***@api.example.com/v1" in listing.output
    assert "FS_TEST_KEY (set)" in listing.output
    assert "moved to the OS keyring" in result.output
    assert PLANTED_KEY not in (config_dir / "model_profiles.json").read_text()
    assert "url-Secret-77" not in (config_dir / "model_profiles.json").read_text()


def test_a_url_password_without_a_keyring_is_refused(config_dir, no_keyring):
    result = run("add", "hosted", "--base-url", "https://fsuser:url-Secret-77@api.example.com/v1", "--model", "m")
    assert result.exit_code == 2
    assert "holds a password or key" in result.output and "url-Secret-77" not in result.output
    assert not (config_dir / "model_profiles.json").exists()


def test_a_key_given_as_the_variable_name_is_refused(config_dir):
    result = run("add", "oops", "--base-url", "http://h/v1", "--model", "m", "--api-key-env", PLANTED_KEY)
    assert result.exit_code == 2
    assert PLANTED_KEY not in result.output
    assert not (config_dir / "model_profiles.json").exists()


def test_keyring_option_asks_for_the_key_and_keeps_it_in_the_keyring(config_dir, memory_keyring):
    result = run("add", "kr", "--base-url", "http://h/v1", "--model", "m", "--keyring", input=PLANTED_KEY + "\n")
    assert result.exit_code == 0, result.output
    assert memory_keyring.passwords[("fieldstudio", "kr")] == PLANTED_KEY
    assert PLANTED_KEY not in result.output
    assert PLANTED_KEY not in (config_dir / "model_profiles.json").read_text()
    assert run("remove", "kr").exit_code == 0
    assert ("fieldstudio", "kr") not in memory_keyring.passwords


def test_test_command_reports_and_saves_capabilities(config_dir, fake_openai):
    fake_openai.responder = lambda request: Reply(text="Red" if request.has_image else "ready")
    assert run("add", "fake", "--base-url", fake_openai.root, "--model", "fake-vlm").exit_code == 0
    result = run("test", "fake")
    assert result.exit_code == 0, result.output
    assert "answers text and accepts images" in result.output
    caps = stored(config_dir)["fake"]["capabilities"]
    assert caps["text_ok"] is True and caps["images_accepted"] is True and caps["usage_reported"] is True
    assert "ok" in run("list").output


def test_test_command_fails_with_plain_words(config_dir, fake_openai):
    fake_openai.responder = lambda request: Reply(status=500, error_message="boom")
    assert run("add", "broken", "--base-url", fake_openai.root, "--model", "fake-vlm").exit_code == 0
    result = run("test", "broken")
    assert result.exit_code == 1
    assert "the server failed (500)" in result.output and "not usable yet" in result.output


def test_remove_and_unknown_names(config_dir):
    assert run("add", "a", "--base-url", "http://h/v1", "--model", "m").exit_code == 0
    assert run("remove", "a").exit_code == 0
    assert stored(config_dir) == {}
    for command in ("remove", "test"):
        result = run(command, "a")
        assert result.exit_code == 2 and "No model profile called 'a'" in result.output


def test_list_with_no_profiles(config_dir):
    result = run("list")
    assert result.exit_code == 0 and "No model profiles yet" in result.output


def test_add_says_and_stores_the_privacy_gate_and_privacy_changes_it(config_dir):
    hosted = run("add", "hosted", "--preset", "openai", "--model", "gpt-4o-mini")
    assert hosted.exit_code == 0 and "Privacy gate: blur faces" in hosted.output
    assert "default for an endpoint not on this machine" in hosted.output
    assert stored(config_dir)["hosted"]["privacy"] == "blur-faces"
    local = run("add", "local", "--preset", "ollama", "--model", "m")
    assert "Privacy gate: send frames as they are (the default for an endpoint on this machine)" in local.output
    lan = run("add", "lan", "--base-url", "http://192.168.1.5:8000", "--model", "m", "--privacy", "local-only",
              "--lan-range", "192.168.1.0/24")
    assert lan.exit_code == 0 and (stored(config_dir)["lan"]["privacy"], stored(config_dir)["lan"]["lan_ranges"]) \
        == ("local-only", ["192.168.1.0/24"])
    for wide in ("0.0.0.0/0", "8.8.8.0/24"):          # the whole internet, a public range: refused in one line
        refused = run("add", "wide", "--base-url", "http://192.168.1.5:8000", "--model", "m", "--privacy",
                      "local-only", "--lan-range", wide)
        assert refused.exit_code == 2 and f"'{wide}' is not a private" in refused.output
        assert len(refused.output.strip().splitlines()) == 1 and "wide" not in stored(config_dir)
    assert run("privacy", "lan", "local-only", "--lan-range", "::/0").exit_code == 2
    assert stored(config_dir)["lan"]["lan_ranges"] == ["192.168.1.0/24"]
    changed = run("privacy", "hosted", "send-as-is")
    assert changed.exit_code == 0 and stored(config_dir)["hosted"]["privacy"] == "send-as-is"
    refused = run("privacy", "hosted", "blur")
    assert refused.exit_code == 2 and "unknown privacy mode 'blur'" in refused.output
    bodies = run("privacy", "hosted", "blur-faces", "--bodies")
    assert bodies.exit_code == 0 and "whole people blurred too" in bodies.output
    assert stored(config_dir)["hosted"]["privacy_bodies"] is True
    assert run("privacy", "hosted", "send-as-is", "--bodies").exit_code == 2      # bodies go with blur-faces
    kept = run("privacy", "hosted", "blur-faces")                                 # not given: the choice stays
    assert "whole people blurred too" in kept.output and stored(config_dir)["hosted"]["privacy_bodies"] is True
    run("privacy", "hosted", "send-as-is")
    listing = run("list").output
    assert "local-only" in listing and "send-as-is" in listing
