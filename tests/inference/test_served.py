"""What a server says it serves (``inference.served``): the model list, llama.cpp's /props and the quantisation in
the served file's name, against a stand-in of llama.cpp's own server, a silent server, and the real llama.cpp
server of the test suite (llama-cpp-python, which offers /v1/models only)."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fieldstudio.inference import served
from fieldstudio.inference.profiles import ModelProfile
from tests.support.llama_server import llama_server  # noqa: F401

GGUF_PATH = "/models/Qwen2.5-VL-7B-Instruct-Q4_K_M.gguf"


class _LlamaCppStandIn(BaseHTTPRequestHandler):
    """GET /v1/models with a ``meta`` block and GET /props with the model file, as llama.cpp's server answers them
    (fields from its README; values made up)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/v1/models":
            body = {"object": "list", "data": [{"id": "qwen-vl", "object": "model", "owned_by": "llamacpp",
                                                "meta": {"n_params": 7615616512, "n_ctx_train": 128000}}]}
        elif self.path == "/props":
            body = {"model_path": GGUF_PATH, "total_slots": 1, "build_info": "b4567-abcdef",
                    "default_generation_settings": {"n_ctx": 4096, "temperature": 0.8}}
        else:
            self.send_error(404)
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:  # noqa: ANN002 - quiet
        pass


@pytest.fixture
def stand_in():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LlamaCppStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_llama_cpp_props_give_the_model_file_and_its_quantisation(stand_in):
    report = served.served_model(ModelProfile(name="q", base_url=stand_in, model="qwen-vl", preset="llamacpp"))
    assert report["listed"] == ["qwen-vl"] and report["model_entry"]["meta"]["n_params"] == 7615616512
    assert report["props"] == {"model_path": GGUF_PATH, "build_info": "b4567-abcdef", "total_slots": 1, "n_ctx": 4096}
    assert report["quantisation"] == "Q4_K_M"
    assert report["quantisation_from"] == "the served model file's name (/props model_path)"
    assert report["not_offered"] == {}


def test_a_silent_server_costs_at_most_the_deadline_per_request(monkeypatch):
    monkeypatch.setattr(served, "SERVED_DEADLINE_S", 0.5)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)                     # accepts connections, never answers
    try:
        port = listener.getsockname()[1]
        started = time.monotonic()
        report = served.served_model(ModelProfile(name="s", base_url=f"http://127.0.0.1:{port}/v1", model="m"))
        assert time.monotonic() - started < 3.0
    finally:
        listener.close()
    assert report["listed"] is None and set(report["not_offered"]) == {"/models", "/props"}
    assert report["quantisation"] is None


@pytest.mark.parametrize("name, expected", [
    ("SmolLM2-135M-Instruct.Q4_1.gguf", "Q4_1"), ("smollm2-135m-instruct-q8_0.gguf", "Q8_0"),
    ("model-IQ2_XS.gguf", "IQ2_XS"), ("/m/llama-bf16.gguf", "BF16"), ("llama-7b.gguf", None),
    ("Q4_K_M/plain.gguf", None)])
def test_quantisation_in_a_file_name(name, expected):
    assert served.quantisation_in_name(name) == expected


@pytest.mark.slow
def test_the_real_llama_cpp_server_lists_its_model_and_offers_no_props(llama_server):  # noqa: F811
    profile = ModelProfile(name="smol", base_url=llama_server.base_url, model=llama_server.model, preset="llamacpp")
    report = served.served_model(profile)
    assert report["listed"] == [llama_server.model]
    # llama-cpp-python's server (the suite's) has no /props: the record says so instead of guessing from the file
    assert report["props"] is None and report["not_offered"]["/props"] == "HTTP 404"
    assert report["quantisation"] is None
