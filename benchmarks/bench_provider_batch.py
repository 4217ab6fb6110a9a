"""A run of 10,000 requests sent as one provider batch to a local fake Batch API.

Run with ``python benchmarks/bench_provider_batch.py`` (issue 22).

A run of 10,000 text tasks (FieldWorkArena strategy, no media) is sent as one batch to the local fake of
OpenAI's Files and Batch APIs (``tests/support/fake_batch_api.py``, loopback): building the 10,000 lines through
the normal run path, recording the batch in the project, uploading the JSONL and creating the batch must
take under 10 s (the issue's target). Printed beside it, measured in the same run: the reference of
serialising the same lines with ``json.dumps`` and uploading them with the bare ``openai`` client (what
any batch tool must do at least), and the ratio; then, for information, writing the same requests to a
file for ``vllm run-batch`` and importing the 10,000 replies once the fake batch completes.

The figure is declared with its target (``run.py`` reports a miss).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import targets, work_folders  # noqa: E402
from fieldstudio.inference.client import make_client  # noqa: E402
from fieldstudio.inference.profiles import ModelProfile  # noqa: E402
from fieldstudio.inference.runs import provider_batch, provider_batch_records, vllm_batch_files  # noqa: E402
from fieldstudio.inference.runs import queue as run_queue  # noqa: E402
from fieldstudio.store.models import Task  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402
from tests.support.fake_batch_api import FakeBatchAPI  # noqa: E402
from tests.support.fake_openai import Reply  # noqa: E402

REQUESTS = 10_000
TARGET_S = 10.0


def main() -> None:
    folder = work_folders.fresh_run_folder()
    server = FakeBatchAPI().start()
    server.responder = lambda request: Reply(text="answer", prompt_tokens=300, completion_tokens=20)
    try:
        project = Project.create(folder / "bench.fieldstudio")
        with project.write() as s:
            s.add_all([Task(query=f"How many workers wear a hard hat in area {i}?", source="fieldworkarena",
                            external_id=f"9.9.{i:05d}", output_format="text") for i in range(REQUESTS)])
        ids = run_queue.select_tasks(project)
        profile = ModelProfile(name="bench", base_url=server.base_url, model="fake-vlm", price_input_per_mtok=2.0,
                               price_output_per_mtok=8.0, batch_api=True, batch_discount=0.5, retries=0)
        run_id = run_queue.create_run(project, profile, ids, "fieldworkarena")

        started = time.perf_counter()
        made = provider_batch.submit(project, run_id, profile=profile)
        submit_s = time.perf_counter() - started
        state = provider_batch_records.batch_states(project, run_id)[0]
        assert len(made) == 1 and state.requests == REQUESTS and state.provider_batch_id, state

        data = server.files[server.batches[state.provider_batch_id]["input_file_id"]]["data"]
        lines = [json.loads(x) for x in data.decode().splitlines()]
        client = make_client(profile)
        started = time.perf_counter()
        payload = b"".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
                           for x in lines)
        client.files.create(file=("reference.jsonl", payload, "application/jsonl"), purpose="batch")
        reference_s = time.perf_counter() - started

        started = time.perf_counter()
        provider_batch.wait(project, run_id, profile=profile, interval_s=0)
        import_s = time.perf_counter() - started
        summary = run_queue.run_summary(project, run_id)
        assert summary.answered == REQUESTS, summary

        other = run_queue.create_run(project, profile, ids, "blind")
        started = time.perf_counter()
        _, written = vllm_batch_files.write_file(project, other, folder / "requests.jsonl", profile=profile)
        file_s = time.perf_counter() - started
        project.close()
    finally:
        server.stop()

    ok = submit_s < TARGET_S
    print(f"{REQUESTS:,} requests built, recorded, uploaded ({len(data) / 1e6:.1f} MB) and the batch created: "
          f"{submit_s:.2f} s (target < {TARGET_S:.0f} s) {'ok' if ok else 'MISSED'}")
    targets.declare(f"{REQUESTS:,} requests built, recorded, uploaded and the batch created", submit_s, TARGET_S,
                    better=targets.LOWER, reference="absolute (json.dumps + a bare openai upload printed beside it)", unit="s",
                    sizes_reduced=False)
    print(f"reference, json.dumps + upload with the bare openai client: {reference_s:.2f} s; "
          f"ratio {submit_s / reference_s:.1f}x")
    print(f"for information: {written:,} requests written for vllm run-batch in {file_s:.2f} s; "
          f"polling to completion and importing {REQUESTS:,} replies: {import_s:.2f} s "
          f"(cost {summary.cost_usd:.4f} USD at the batch price)")
    targets.print_own_table()


if __name__ == "__main__":
    main()
