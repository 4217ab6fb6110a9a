"""What the endpoint says it serves: the model ids it lists and, where the server tells, the model file and its
quantisation, read once when a run starts so that its reproducibility record can name them.

``GET {base}/models`` (every OpenAI-compatible server) gives the ids and, on llama.cpp's server, a ``meta`` block;
``GET {root}/props`` (llama.cpp's server, beside ``/v1``) gives the model file's path; Ollama's
``POST {root}/api/show`` gives ``details.quantization_level``. The bundled test server (llama-cpp-python) has
``/v1/models`` only: what a server does not offer is recorded as not offered, never guessed beyond the
model file's name. Each request is bounded (3 s overall, 256 KiB): a slow or hostile server costs a run at most
a few seconds and never stops it.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from fieldstudio.inference.profiles import ModelProfile, resolve_api_key, resolve_base_url
from fieldstudio.inference.reply_limits import Deadline, DeadlinePassed, read_capped

SERVED_DEADLINE_S = 3.0
SERVED_MAX_BYTES = 256 * 1024
_QUANT = re.compile(r"(?<![A-Za-z0-9])(I?Q[1-8](?:_[0-9A-Z]+)*|[BF]F16|F32|MXFP4)(?![A-Za-z0-9])", re.IGNORECASE)


def quantisation_in_name(name: str | None) -> str | None:
    """The GGUF quantisation type written in a model file's or id's name (``Q4_K_M``, ``IQ2_XS``, ``F16``,
    ``BF16``), upper-cased, or None when the name has none. E.g. ``smollm2-135m-instruct-q8_0.gguf`` -> ``Q8_0``."""
    if not name:
        return None
    found = _QUANT.findall(name.rsplit("/", 1)[-1])
    return found[-1].upper() if found else None


def _get_json(url: str, key: str | None, *, body: dict[str, Any] | None = None) -> tuple[Any, str | None]:
    """(decoded JSON, None) or (None, why not) for one bounded request (the standard library's HTTP client: the
    model client's transport is the SDK's own business)."""
    import base64
    import urllib.error
    import urllib.request
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    headers = {"Accept": "application/json"}
    if parts.username is not None:     # credentials in the base URL go as Basic auth, as the model client sends them
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
        parts = parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))
    elif key:
        headers["Authorization"] = f"Bearer {key}"
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode("utf-8"), "application/json"
    request = urllib.request.Request(urlunsplit(parts), data=data, headers=headers)
    deadline = Deadline.after(SERVED_DEADLINE_S)
    try:
        with urllib.request.urlopen(request, timeout=SERVED_DEADLINE_S) as reply:  # noqa: S310 - the profile's URL
            capped = read_capped(iter(lambda: reply.read1(16384), b""), deadline, SERVED_MAX_BYTES)
    except urllib.error.HTTPError as exc:
        return None, f"HTTP {exc.code}"
    except DeadlinePassed:
        return None, f"no complete reply within {SERVED_DEADLINE_S:g} s"
    except Exception as exc:  # noqa: BLE001 - any failure only means "the server does not say"
        return None, type(exc).__name__
    if capped.cut:
        return None, f"reply longer than {SERVED_MAX_BYTES} bytes"
    try:
        return json.loads(capped.data), None
    except ValueError:
        return None, "not JSON"


def served_model(profile: ModelProfile) -> dict[str, Any]:
    """What the profile's endpoint reports about the model it serves.

    Returns a dict: ``listed`` (ids from ``/models``, or None), ``model_entry`` (the listed entry of the
    profile's model, with any ``meta``), ``props`` (llama.cpp's ``model_path``, ``model_alias``,
    ``build_info``, ``total_slots`` and the context size where ``/props`` answers, else None),
    ``quantisation`` and ``quantisation_from`` (``details.quantization_level`` from Ollama, or the type written
    in the served model file's name, or None), and ``not_offered`` (path -> why it gave nothing). Never raises;
    asks nothing of an endpoint a "local only" privacy gate refuses.
    """
    from fieldstudio.privacy.gate import LOCAL_ONLY, refuse_remote

    started = time.monotonic()
    try:
        if profile.privacy_mode == LOCAL_ONLY:
            refuse_remote(profile.name, profile.base_url, profile.lan_ranges)
        base = resolve_base_url(profile).rstrip("/")
        key = resolve_api_key(profile)
    except Exception as exc:  # noqa: BLE001 - no key, URL secret, or the gate: nothing can be asked
        return {"listed": None, "model_entry": None, "props": None, "quantisation": None, "quantisation_from": None,
                "not_offered": {"/models": type(exc).__name__}}
    root = base[:-3] if base.endswith("/v1") else base
    out: dict[str, Any] = {"listed": None, "model_entry": None, "props": None, "quantisation": None,
                           "quantisation_from": None, "not_offered": {}}
    models, why = _get_json(base + "/models", key)
    entries = models.get("data") if isinstance(models, dict) else None
    if isinstance(entries, list):
        out["listed"] = [str(e["id"]) for e in entries if isinstance(e, dict) and "id" in e]
        mine = [e for e in entries if isinstance(e, dict) and e.get("id") == profile.model]
        out["model_entry"] = mine[0] if mine else None
    else:
        out["not_offered"]["/models"] = why or "not a model list"
    props, why = _get_json(root + "/props", key)
    if isinstance(props, dict):
        settings = props.get("default_generation_settings") or {}
        out["props"] = {k: props.get(k) for k in ("model_path", "model_alias", "build_info", "total_slots")
                        if props.get(k) is not None}
        if isinstance(settings, dict) and settings.get("n_ctx") is not None:
            out["props"]["n_ctx"] = settings["n_ctx"]
    else:
        out["not_offered"]["/props"] = why or "not an object"
    if profile.preset == "ollama":
        shown, why = _get_json(root + "/api/show", key, body={"model": profile.model})
        level = (shown.get("details") or {}).get("quantization_level") if isinstance(shown, dict) else None
        if level:
            out["quantisation"], out["quantisation_from"] = str(level), "ollama /api/show details.quantization_level"
        else:
            out["not_offered"]["/api/show"] = why or "no quantization_level"
    if out["quantisation"] is None:
        path = (out["props"] or {}).get("model_path")
        found = quantisation_in_name(path)
        if found:
            out["quantisation"], out["quantisation_from"] = found, "the served model file's name (/props model_path)"
    out["seconds"] = round(time.monotonic() - started, 3)
    return out


__all__ = ["quantisation_in_name", "served_model", "SERVED_DEADLINE_S"]
