"""A local fake of OpenAI's Files and Batch APIs for tests, on top of `tests.support.fake_openai.FakeOpenAI`.

Routes (as OpenAI documents them):
    * ``POST /v1/files`` (multipart: ``file``, ``purpose``) -> a file object (``object: "file"``, ``id``,
      ``bytes``, ``created_at``, ``filename``, ``purpose``, ``status``);
      ``GET /v1/files/{id}`` -> the file object; ``GET /v1/files/{id}/content`` -> its bytes.
    * ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``, ``metadata``) -> a batch
      object in status ``validating``; ``GET /v1/batches/{id}`` -> the batch, one status further on each
      call: ``validating`` -> ``in_progress`` -> ``finalizing`` -> ``completed`` (or ``failed`` when the input
      file does not validate: not JSON, a repeated ``custom_id``, another URL or method); ``GET /v1/batches``
      lists them newest first (``limit``, ``after``); ``POST /v1/batches/{id}/cancel`` -> ``cancelling``, then
      ``cancelled`` with the lines never run.
    * When a batch reaches ``completed``, each line is answered with the chat server's own semantics
      (the scripted replies / ``responder``, ``text_only``, ``max_images``... of `FakeOpenAI`): a 200 goes to
      the output file, any other status to the error file, each as ``{"id", "custom_id", "response":
      {"status_code", "request_id", "body"}, "error": null}``; ``output_file_id`` / ``error_file_id`` are None
      when a file would be empty, and ``request_counts`` counts total, completed and failed.

``server.batch_lines`` records every line run (a `RecordedRequest` each, path ``/v1/chat/completions``);
``server.hold = True`` keeps batches ``in_progress`` (as a long batch would be) until it is set back;
``server.expire_after = N`` lets a batch run N lines and then expire (status ``expired``): each line not
run goes to the error file with ``response: null`` and ``error: {"code": "batch_expired", ...}``;
``server.lose_next_create`` makes the next ``POST /v1/batches`` create the batch but answer 500, as a
response lost on the way back would look.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.fake_openai import FakeOpenAI, RecordedRequest, _completion, _error_body, _Handler

_STEPS = ("validating", "in_progress", "finalizing", "completed")


class FakeBatchAPI(FakeOpenAI):
    """`FakeOpenAI` with ``/v1/files`` and ``/v1/batches``; see the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.files: dict[str, dict[str, Any]] = {}       # id -> {"object": file object, "data": bytes}
        self.batches: dict[str, dict[str, Any]] = {}     # id -> batch object (plus "_lines" when validated)
        self.batch_lines: list[RecordedRequest] = []
        self.lose_next_create = False
        self.hold = False
        self.expire_after: int | None = None
        self._ids = itertools.count(1)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}-fake{next(self._ids):06d}"

    def add_file(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        file_id = self.new_id("file")
        obj = {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
               "filename": filename, "purpose": purpose, "status": "processed", "expires_at": None,
               "status_details": None}
        with self._lock:
            self.files[file_id] = {"object": obj, "data": data}
        return obj


class _BatchHandler(_Handler):
    fake: FakeBatchAPI

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value).encode())

    def _error(self, status: int, message: str) -> None:
        self._send(status, _error_body(status, message))

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if not (path.startswith("/v1/files") or path.startswith("/v1/batches")):
            return super().do_GET()
        request = self._read()
        if not self._authorised(request):
            return
        parts = path.strip("/").split("/")
        if parts[:2] == ["v1", "files"] and len(parts) in (3, 4):
            stored = self.fake.files.get(parts[2])
            if stored is None:
                return self._error(404, f"No such File object: {parts[2]}")
            if len(parts) == 4 and parts[3] == "content":
                return self._send(200, stored["data"], content_type="application/octet-stream")
            return self._json(200, stored["object"])
        if parts == ["v1", "batches"]:
            return self._list(parse_qs(urlsplit(self.path).query))
        if parts[:2] == ["v1", "batches"] and len(parts) == 3:
            batch = self.fake.batches.get(parts[2])
            if batch is None:
                return self._error(404, f"No batch found with id '{parts[2]}'.")
            self._advance(batch)
            return self._json(200, _public(batch))
        self._not_found()

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if not (path.startswith("/v1/files") or path.startswith("/v1/batches")):
            return super().do_POST()
        request = self._read()
        if not self._authorised(request):
            return
        parts = path.strip("/").split("/")
        if parts == ["v1", "files"]:
            return self._upload(request)
        if parts == ["v1", "batches"]:
            return self._create(request)
        if parts[:2] == ["v1", "batches"] and len(parts) == 4 and parts[3] == "cancel":
            batch = self.fake.batches.get(parts[2])
            if batch is None:
                return self._error(404, f"No batch found with id '{parts[2]}'.")
            if batch["status"] in ("completed", "failed", "expired", "cancelled"):
                return self._error(409, f"Cannot cancel a batch with status '{batch['status']}'.")
            batch["status"], batch["cancelling_at"] = "cancelling", int(time.time())
            return self._json(200, _public(batch))
        self._not_found()

    # -- files ---------------------------------------------------------------------------------

    def _upload(self, request: RecordedRequest) -> None:
        content_type = request.headers.get("content-type", "")
        if not content_type.startswith("multipart/form-data"):
            return self._error(400, "Expected multipart/form-data")
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + request.raw)
        fields: dict[str, Any] = {}
        filename = "upload"
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if part.get_filename():
                filename = part.get_filename()
            fields[name] = part.get_payload(decode=True)
        if "file" not in fields or "purpose" not in fields:
            return self._error(400, "Missing required parameter: 'file' or 'purpose'.")
        purpose = fields["purpose"].decode()
        if purpose not in ("batch", "assistants", "fine-tune", "vision", "user_data", "evals"):
            return self._error(400, f"Invalid value for 'purpose': {purpose}.")
        self._json(200, self.fake.add_file(fields["file"], filename, purpose))

    # -- batches -------------------------------------------------------------------------------

    def _create(self, request: RecordedRequest) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        for name in ("input_file_id", "endpoint", "completion_window"):
            if not body.get(name):
                return self._error(400, f"Missing required parameter: '{name}'.")
        if body["completion_window"] != "24h":
            return self._error(400, "Invalid value for 'completion_window': only '24h' is supported.")
        stored = self.fake.files.get(body["input_file_id"])
        if stored is None:
            return self._error(404, f"No such File object: {body['input_file_id']}")
        if stored["object"]["purpose"] != "batch":
            return self._error(400, "The input file must be uploaded with purpose 'batch'.")
        now = int(time.time())
        batch = {"id": self.fake.new_id("batch"), "object": "batch", "endpoint": body["endpoint"], "errors": None,
                 "input_file_id": body["input_file_id"], "completion_window": "24h", "status": "validating",
                 "output_file_id": None, "error_file_id": None, "created_at": now, "in_progress_at": None,
                 "expires_at": now + 86400, "finalizing_at": None, "completed_at": None, "failed_at": None,
                 "expired_at": None, "cancelling_at": None, "cancelled_at": None,
                 "request_counts": {"total": 0, "completed": 0, "failed": 0}, "metadata": body.get("metadata")}
        with self.fake._lock:
            self.fake.batches[batch["id"]] = batch
        if self.fake.lose_next_create:
            self.fake.lose_next_create = False
            return self._error(500, "The server had an error while processing your request.")
        self._json(200, _public(batch))

    def _list(self, query: dict[str, list[str]]) -> None:
        limit = int((query.get("limit") or ["20"])[0])
        after = (query.get("after") or [None])[0]
        ordered = sorted(self.fake.batches.values(), key=lambda b: (b["created_at"], b["id"]), reverse=True)
        if after is not None:
            ids = [b["id"] for b in ordered]
            ordered = ordered[ids.index(after) + 1:] if after in ids else []
        page = ordered[:limit]
        self._json(200, {"object": "list", "data": [_public(b) for b in page],
                         "first_id": page[0]["id"] if page else None, "last_id": page[-1]["id"] if page else None,
                         "has_more": len(ordered) > limit})

    def _advance(self, batch: dict[str, Any]) -> None:
        now = int(time.time())
        status = batch["status"]
        if status == "cancelling":
            batch["status"], batch["cancelled_at"] = "cancelled", now
            return
        if status not in _STEPS[:-1]:
            return
        if status == "validating":
            lines, errors = self._validate(batch)
            if errors:
                batch.update(status="failed", failed_at=now, errors={"object": "list", "data": errors})
                return
            batch["_lines"] = lines
            batch.update(status="in_progress", in_progress_at=now,
                         request_counts={"total": len(lines), "completed": 0, "failed": 0})
        elif status == "in_progress" and not self.fake.hold:
            batch.update(status="finalizing", finalizing_at=now)
        elif status == "finalizing":
            expired = self._run_lines(batch)
            if expired:
                batch.update(status="expired", expired_at=now)
            else:
                batch.update(status="completed", completed_at=now)

    def _validate(self, batch: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        data = self.fake.files[batch["input_file_id"]]["data"]
        lines, errors, seen = [], [], set()
        for number, text in enumerate(data.decode("utf-8").splitlines(), 1):
            try:
                line = json.loads(text)
            except ValueError:
                errors.append({"code": "invalid_json_line", "line": number, "message": "This line is not JSON.",
                               "param": None})
                continue
            if line.get("custom_id") in seen:
                errors.append({"code": "duplicate_custom_id", "line": number, "param": "custom_id",
                               "message": f"The custom_id '{line.get('custom_id')}' is used more than once."})
            elif line.get("method") != "POST" or line.get("url") != batch["endpoint"]:
                errors.append({"code": "mismatched_endpoint", "line": number, "param": "url",
                               "message": f"The line's url must be {batch['endpoint']} with method POST."})
            seen.add(line.get("custom_id"))
            lines.append(line)
        return lines, errors

    def _run_lines(self, batch: dict[str, Any]) -> bool:
        """Answer the batch's lines into its output and error files; True when it expired before the end."""
        out, err = [], []
        lines = batch.get("_lines", [])
        limit = len(lines) if self.fake.expire_after is None else min(self.fake.expire_after, len(lines))
        for line in lines[limit:]:
            err.append(json.dumps({"id": self.fake.new_id("batch_req"), "custom_id": line.get("custom_id"),
                                   "response": None, "error": {"code": "batch_expired", "message": "This request "
                                   "could not be executed before the completion window expired."}}))
        for line in lines[:limit]:
            body = line.get("body") or {}
            raw = json.dumps(body).encode()
            request = RecordedRequest("POST", line["url"], {}, body, raw)
            self.fake.batch_lines.append(request)
            reply = self.fake._next_reply(request)
            if reply.status != 200:
                status, response = reply.status, json.loads(_error_body(reply.status, reply.error_message
                                                                        or f"fake error {reply.status}"))
            elif rejection := self._reject(request):
                status, response = 400, json.loads(_error_body(400, rejection))
            else:
                status, response = 200, _completion(body, reply)
            entry = {"id": self.fake.new_id("batch_req"), "custom_id": line.get("custom_id"),
                     "response": {"status_code": status, "request_id": self.fake.new_id("req"), "body": response},
                     "error": None}
            (out if status == 200 else err).append(json.dumps(entry))
        for lines, name in ((out, "output_file_id"), (err, "error_file_id")):
            if lines:
                data = ("\n".join(lines) + "\n").encode()
                batch[name] = self.fake.add_file(data, f"{batch['id']}_{name[:-8]}.jsonl", "batch_output")["id"]
        batch["request_counts"] = {"total": len(out) + len(err), "completed": len(out), "failed": len(err)}
        return limit < len(lines)


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


FakeBatchAPI.handler_class = _BatchHandler


@pytest.fixture
def fake_batch_api():
    """A started `FakeBatchAPI`; stopped after the test."""
    server = FakeBatchAPI().start()
    try:
        yield server
    finally:
        server.stop()
