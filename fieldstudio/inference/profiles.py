"""Model profiles: an OpenAI-compatible endpoint, a model id, how to find its key, prices and limits.

Profiles are stored as JSON in the user's config folder (``platformdirs.user_config_dir("fieldstudio")``,
or the folder named by the environment variable ``FIELDSTUDIO_CONFIG_DIR``), in ``model_profiles.json``
(declared with the user's other files in ``core.user_settings``).
The file is written atomically (temporary file in the same folder, fsync, ``os.replace``).

An API key is never part of a profile and never written to that file: a profile names an environment
variable (``api_key_env``) or says the key is in the OS keyring (service ``fieldstudio``, user = profile
name). ``resolve_api_key`` reads it at call time. Prices are USD per million tokens.

Nor is a secret given inside a base URL (``user:password@``, or a query value such as ``key=``): when the file is
written (`save_profiles`) it is moved to the OS keyring (user ``"<profile name> base URL"``), the profile keeping
the URL without it and its masked form (``url_secret_mask``); `resolve_base_url` puts it back at call time. Where
the keyring cannot take it the profile is refused with a message, and nothing is written.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.core.user_settings import MODEL_PROFILES
from fieldstudio.privacy import gate
from fieldstudio.inference.base_urls import (ProfileError, join_url_secret, mask_url, normalize_base_url,
                                             refuse_path_parameters, split_url_secret, url_secret_values)

KEYRING_SERVICE = "fieldstudio"
PROFILES_FILE = MODEL_PROFILES.name
FILE_FORMAT_VERSION = 1

#: Base URL of each known server type. Local servers use their default ports.
PRESETS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "ollama": "http://localhost:11434/v1",
    "vllm": "http://localhost:8000/v1",
    "lmstudio": "http://localhost:1234/v1",
    "llamacpp": "http://localhost:8080/v1",
}

#: The environment variable a preset's key is usually kept in (hosted services only).
PRESET_KEY_ENV: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
}

IMAGE_DETAILS = ("auto", "low", "high")

#: Overall deadline of one model call (seconds): ten minutes leaves a slow local model on a CPU time to answer.
DEFAULT_DEADLINE_S = 600.0
#: Size cap of one reply (bytes): 4 MB is some hundred thousand tokens, far beyond any answer or verdict.
DEFAULT_MAX_REPLY_BYTES = 4_000_000
#: The smallest cap a profile accepts (bytes): below it even a short JSON envelope would be cut.
MIN_MAX_REPLY_BYTES = 1024

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: The keyring user under which a profile's base URL secret is kept: ``"<profile name> base URL"``.
URL_SECRET_SUFFIX = " base URL"


@dataclass
class Capabilities:
    """What `fieldstudio models test` found out about an endpoint (None = not tested or undecided).

    Attributes:
        tested_at: ISO 8601 UTC time of the test.
        text_ok: a plain text request was answered.
        images_accepted: an image was accepted and described correctly (False also when the server
            answered but evidently never saw the image).
        max_images_per_request: a limit the server announced (e.g. vLLM's default of 1), else None.
        usage_reported: token usage came back in a normal response.
        stream_usage_reported: usage came back in the final chunk of a streamed response.
        json_mode: ``response_format={"type": "json_object"}`` was accepted and gave JSON.
    """

    tested_at: str | None = None
    text_ok: bool | None = None
    images_accepted: bool | None = None
    max_images_per_request: int | None = None
    usage_reported: bool | None = None
    stream_usage_reported: bool | None = None
    json_mode: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Capabilities:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in known})


@dataclass
class ModelProfile:
    """One model on one OpenAI-compatible endpoint.

    Attributes:
        name: the profile's name, unique among profiles (also the keyring user name).
        base_url: endpoint root, normalised by `normalize_base_url` (ends in ``/v1`` unless it already
            has another version segment such as ``/v1beta``).
        model: the model id sent in each request (e.g. ``gpt-4o-mini``, ``qwen2.5vl:7b``).
        preset: the server type this profile was made from (a key of `PRESETS`), or None.
        api_key_env: name of the environment variable holding the key (not the key itself).
        use_keyring: the key is in the OS keyring, service ``fieldstudio``, user = `name`.
            With neither, requests carry a placeholder key (local servers ignore it).
        price_input_per_mtok, price_output_per_mtok: USD per million input / output tokens.
        price_cached_per_mtok: USD per million cached input tokens (None: charged at the input price).
        price_reasoning_per_mtok: USD per million reasoning tokens (None: charged at the output price).
        cost_per_hour_usd: for a model served on one's own machine or a rented GPU, USD per hour of serving;
            with no token prices set, a reply costs its latency at that rate (``client.cost``), so local models
            have a stated cost in cost per correct answer (None: unknown, never 0).
        prices_date: the date the prices were read from the provider's list (free text, e.g. 2026-03-01).
        batch_api: the endpoint offers OpenAI's Batch API (``/v1/files`` and ``/v1/batches``), so runs of this
            profile can be sent as a batch (`fieldstudio.inference.runs.provider_batch`).
        batch_discount: the provider's batch price as the fraction taken off every price above for requests
            sent as a batch (OpenAI: 0.5, half price); None: unknown, so batch answers' cost stays unknown.
        max_images_per_request: most images sent in one request (None: no limit known).
        max_request_bytes: the largest request body the endpoint accepts, bytes (None: no limit known); a larger
            request is sent with its images at a lower JPEG quality, or fewer of them, and the cut is stated
            (``inference.runs.request_limits``).
        image_detail: ``detail`` of each image part: auto, low or high.
        longest_image_side: images are resized so their longest side is at most this many pixels.
        timeout_s: read timeout of one request, seconds (connect 5 s, write 60 s): the longest silence
            between two pieces of the reply.
        deadline_s: the overall deadline of one call, seconds: connecting, the first byte, the whole reply and
            the retries all end by then (a call gives up at most one read timeout after it).
        max_reply_bytes: the size cap of one reply, bytes (the JSON body, or a streamed reply's text): a reply
            over it is cut there and flagged, never stored whole.
        retries: extra attempts after a 429, 408/409, 5xx or a refused connection (timeouts are not
            retried: the server may still be working on the request).
        concurrency: requests in flight at once for a run.
        temperature: sampling temperature sent with each request (None: not sent).
        seed: seed sent with each request (None: not sent).
        capabilities: what the last `test` found.
        url_secret_mask: None, or the base URL as given, masked (``http://***@host/v1``), when its secret
            (password, query key) is kept in the OS keyring; `base_url` is then the URL without it.
        privacy: the privacy gate (`fieldstudio.privacy.gate.MODES`: ``local-only``, ``blur-faces``,
            ``send-as-is``), or None for the default of its endpoint (`privacy_mode`).
        lan_ranges: LAN ranges (CIDR, e.g. ``192.168.1.0/24``) that count as local for ``local-only`` and the default.
        privacy_bodies: with ``blur-faces``, also blur whole people (the boxes of OpenCV's HOG people detector,
            ``fieldstudio.media.people``); ignored by the other modes.
    """

    name: str
    base_url: str
    model: str
    preset: str | None = None
    api_key_env: str | None = None
    use_keyring: bool = False
    price_input_per_mtok: float | None = None
    price_output_per_mtok: float | None = None
    price_cached_per_mtok: float | None = None
    price_reasoning_per_mtok: float | None = None
    prices_date: str | None = None
    cost_per_hour_usd: float | None = None
    batch_api: bool = False
    batch_discount: float | None = None
    max_images_per_request: int | None = None
    max_request_bytes: int | None = None
    image_detail: str = "auto"
    longest_image_side: int = 1024
    timeout_s: float = 120.0
    deadline_s: float = DEFAULT_DEADLINE_S
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    retries: int = 2
    concurrency: int = 1
    temperature: float | None = 0.0
    seed: int | None = None
    capabilities: Capabilities = field(default_factory=Capabilities)
    url_secret_mask: str | None = None
    privacy: str | None = None
    lan_ranges: list[str] = field(default_factory=list)
    privacy_bodies: bool = False

    def __post_init__(self) -> None:
        self.name = (self.name or "").strip()
        if not self.name or any(ord(c) < 32 for c in self.name):
            raise ProfileError("A model profile needs a name without control characters.")
        if self.preset is not None and self.preset not in PRESETS:
            raise ProfileError(f"{self.name}: unknown preset {self.preset!r}; known: {', '.join(PRESETS)}.")
        if not self.base_url and self.preset:
            self.base_url = PRESETS[self.preset]
        self.base_url = normalize_base_url(self.base_url)
        self.model = (self.model or "").strip()
        if not self.model:
            raise ProfileError(f"{self.name}: a model id is needed (for example gpt-4o-mini or qwen2.5vl:7b).")
        if self.api_key_env is not None:
            self.api_key_env = self.api_key_env.strip() or None
        if self.api_key_env is not None and not _ENV_NAME.match(self.api_key_env):
            # Guard against a key pasted where the variable's name belongs: it would end up in the file.
            raise ProfileError(
                f"{self.name}: --api-key-env takes the NAME of an environment variable (like OPENAI_API_KEY), "
                "and this does not look like one. The key itself is never stored in a profile."
            )
        if self.image_detail not in IMAGE_DETAILS:
            raise ProfileError(f"{self.name}: image detail must be one of {', '.join(IMAGE_DETAILS)}.")
        for label, price in (("input", self.price_input_per_mtok), ("output", self.price_output_per_mtok),
                             ("cached", self.price_cached_per_mtok), ("reasoning", self.price_reasoning_per_mtok)):
            if price is not None and price < 0:
                raise ProfileError(f"{self.name}: the {label} price cannot be negative.")
        if self.batch_discount is not None and not 0 <= self.batch_discount <= 1:
            raise ProfileError(f"{self.name}: the batch discount is a fraction from 0 to 1 (0.5 = half price).")
        if self.timeout_s <= 0:
            raise ProfileError(f"{self.name}: the timeout must be more than 0 seconds.")
        if not self.deadline_s > 0:
            raise ProfileError(f"{self.name}: the overall deadline must be more than 0 seconds.")
        if self.max_reply_bytes < MIN_MAX_REPLY_BYTES:
            raise ProfileError(f"{self.name}: the reply size cap must be at least {MIN_MAX_REPLY_BYTES} bytes.")
        if self.retries < 0:
            raise ProfileError(f"{self.name}: retries cannot be negative.")
        if self.concurrency < 1:
            raise ProfileError(f"{self.name}: concurrency must be at least 1.")
        if self.max_images_per_request is not None and self.max_images_per_request < 1:
            raise ProfileError(f"{self.name}: max images per request must be at least 1.")
        if self.cost_per_hour_usd is not None and not self.cost_per_hour_usd >= 0:
            raise ProfileError(f"{self.name}: the cost per hour cannot be negative.")
        if self.max_request_bytes is not None and self.max_request_bytes < 1024:
            raise ProfileError(f"{self.name}: the request size limit must be at least 1024 bytes.")
        if self.longest_image_side < 16:
            raise ProfileError(f"{self.name}: the longest image side must be at least 16 pixels.")
        if isinstance(self.capabilities, dict):
            self.capabilities = Capabilities.from_dict(self.capabilities)
        self.lan_ranges = [r.strip() for r in self.lan_ranges or [] if r and r.strip()]
        try:
            gate.check_mode(self.privacy)
            gate.parse_lan_ranges(self.lan_ranges)
        except ValueError as exc:
            raise ProfileError(f"{self.name}: {exc}.") from None

    @property
    def privacy_mode(self) -> str:
        """The privacy gate in force: `privacy`, or for None the default of the endpoint (``blur-faces`` unless it
        is on this machine or in `lan_ranges`; `fieldstudio.privacy.gate.default_mode`)."""
        return self.privacy or gate.default_mode(self.base_url, self.lan_ranges)

    # -- serialisation -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The profile as stored in the profile file (holds no key: a profile never has one)."""
        out = dataclasses.asdict(self)
        out["capabilities"] = self.capabilities.to_dict()
        return out

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> ModelProfile:
        """Build a profile from stored values; unknown keys (from a newer version) are ignored.

        Raises ProfileError if a required value is missing or invalid.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in values.items() if k in known}
        caps = kwargs.get("capabilities")
        kwargs["capabilities"] = Capabilities.from_dict(caps) if isinstance(caps, dict) else Capabilities()
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ProfileError(f"profile {values.get('name', '?')!r} is incomplete: {exc}") from None

    def params_without_key(self) -> dict[str, Any]:
        """What a run copies into a project: every setting, credentials removed.

        The base URL is masked (`mask_url`); the key's source is named only as ``env``, ``keyring`` or
        ``none`` (not the variable's name, which is a detail of this machine).
        """
        out = self.to_dict()
        out["base_url"] = self.shown_url
        out.pop("url_secret_mask")
        out.pop("api_key_env")
        out.pop("use_keyring")
        out["api_key_source"] = self.key_source
        return out

    def batch_priced(self) -> ModelProfile:
        """A copy whose prices are the batch prices: each lowered by ``batch_discount``, or all None (unknown)
        when the discount is not known. Used for batch replies' cost and for estimates of a batch."""
        factor = None if self.batch_discount is None else 1.0 - self.batch_discount

        def scaled(price: float | None) -> float | None:
            return None if price is None or factor is None else price * factor

        return dataclasses.replace(self, price_input_per_mtok=scaled(self.price_input_per_mtok),
                                   price_output_per_mtok=scaled(self.price_output_per_mtok),
                                   price_cached_per_mtok=scaled(self.price_cached_per_mtok),
                                   price_reasoning_per_mtok=scaled(self.price_reasoning_per_mtok),
                                   cost_per_hour_usd=None)     # a batch's latency is not serving time

    @property
    def shown_url(self) -> str:
        """The base URL as the UI, logs and stored records show it: credentials and secret query values as
        ``***`` (also those kept in the keyring)."""
        return self.url_secret_mask or mask_url(self.base_url)

    # -- keys ----------------------------------------------------------------------------------

    @property
    def key_source(self) -> str:
        """``env``, ``keyring`` or ``none``."""
        if self.api_key_env:
            return "env"
        return "keyring" if self.use_keyring else "none"

    def key_hint(self) -> str:
        """Where the key comes from, in plain words (never the key itself)."""
        if self.api_key_env:
            state = "set" if os.environ.get(self.api_key_env) else "NOT set"
            return f"environment variable {self.api_key_env} ({state})"
        if self.use_keyring:
            return f"OS keyring (service {KEYRING_SERVICE!r}, user {self.name!r})"
        return "no key"


# -- URLs --------------------------------------------------------------------------------------


def resolve_base_url(profile: ModelProfile) -> str:
    """The base URL requests go to: `base_url` with the secret kept in the OS keyring put back, if any.

    Every form of that secret is remembered for masking (`fieldstudio.core.masking.remember_secret`).
    Raises ProfileError, naming the keyring entry, when it cannot be read.
    """
    if not profile.url_secret_mask:
        return profile.base_url
    from fieldstudio.core.masking import remember_secret

    user = profile.name + URL_SECRET_SUFFIX
    try:
        import keyring

        stored = keyring.get_password(KEYRING_SERVICE, user)
    except Exception as exc:
        raise ProfileError(f"{profile.name}: the OS keyring cannot be read ({type(exc).__name__}).") from None
    try:
        secret = json.loads(stored) if stored else None
    except ValueError:
        secret = None
    if not isinstance(secret, dict):
        raise ProfileError(f"{profile.name}: the secret of the base URL {profile.url_secret_mask} is not in the OS "
                           f"keyring (service {KEYRING_SERVICE!r}, user {user!r}); give the base URL again.")
    for value in url_secret_values(secret):
        remember_secret(value)
    return join_url_secret(profile.base_url, secret)


def _keep_url_secret_in_keyring(profile: ModelProfile) -> None:
    """Move a secret in `profile.base_url` to the OS keyring (the profile keeps the URL without it).

    Raises ProfileError, saying what to do instead, when the keyring cannot take it.
    """
    clean, secret = split_url_secret(profile.base_url)
    if secret is None:
        return
    masked = mask_url(profile.base_url)
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, profile.name + URL_SECRET_SUFFIX, json.dumps(secret))
    except Exception as exc:
        raise ProfileError(
            f"{profile.name}: the base URL {masked} holds a password or key, which fieldstudio never writes to a "
            f"file, and the OS keyring cannot keep it ({type(exc).__name__}). Give the URL without it and the key "
            "with --api-key-env (or --keyring once a keyring is available).") from None
    profile.base_url, profile.url_secret_mask = clean, masked


# -- keys --------------------------------------------------------------------------------------


def resolve_api_key(profile: ModelProfile) -> str | None:
    """The profile's API key, read now from its environment variable or the OS keyring.

    Returns None when the profile names no key source. Raises ProfileError, naming the variable or the
    keyring entry (never a key), when the named source is empty or the keyring cannot be read.
    """
    if profile.api_key_env:
        key = os.environ.get(profile.api_key_env, "").strip()
        if not key:
            raise ProfileError(f"{profile.name}: the environment variable {profile.api_key_env} is not set.")
        _remember(key)
        return key
    if profile.use_keyring:
        try:
            import keyring

            key = keyring.get_password(KEYRING_SERVICE, profile.name)
        except Exception as exc:  # no backend, locked keyring, D-Bus errors...
            raise ProfileError(f"{profile.name}: the OS keyring cannot be read ({type(exc).__name__}).") from None
        if not key:
            raise ProfileError(
                f"{profile.name}: no key in the OS keyring (service {KEYRING_SERVICE!r}, user {profile.name!r})."
            )
        _remember(key)
        return key
    return None


def _remember(key: str) -> None:
    from fieldstudio.core.masking import remember_secret

    remember_secret(key)


def store_key_in_keyring(profile_name: str, key: str) -> None:
    """Put a key in the OS keyring (service ``fieldstudio``, user = profile name).

    Raises ProfileError if the keyring cannot be written.
    """
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, profile_name, key)
    except Exception as exc:
        raise ProfileError(f"{profile_name}: the OS keyring cannot be written ({type(exc).__name__}).") from None


def delete_key_from_keyring(profile_name: str, *, url_secret: bool = False) -> bool:
    """Remove the profile's key (with `url_secret`: its base URL's secret) from the OS keyring; False if there
    was none or it cannot be removed."""
    try:
        import keyring

        keyring.delete_password(KEYRING_SERVICE, profile_name + (URL_SECRET_SUFFIX if url_secret else ""))
    except Exception:
        return False
    return True


# -- the profile file --------------------------------------------------------------------------


def profiles_path() -> Path:
    """The JSON file holding the model profiles."""
    return MODEL_PROFILES.path()


def load_profiles(path: Path | None = None) -> dict[str, ModelProfile]:
    """All stored profiles by name (empty if the file does not exist yet).

    Raises ProfileError if the file cannot be read or is not a profile file.
    """
    path = path or profiles_path()
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read the model profiles ({exc}).") from None
    if not isinstance(document, dict) or not isinstance(document.get("profiles"), list):
        raise ProfileError(f"{path}: not a fieldstudio model profile file.")
    profiles: dict[str, ModelProfile] = {}
    for values in document["profiles"]:
        if not isinstance(values, dict):
            raise ProfileError(f"{path}: a profile entry is not an object.")
        profile = ModelProfile.from_dict(values)
        profiles[profile.name] = profile
    if any(split_url_secret(p.base_url)[1] is not None for p in profiles.values()):
        try:                                    # a file from an earlier version: its URL secrets leave it now
            save_profiles(profiles, path)
        except ProfileError as exc:
            import logging

            logging.getLogger(__name__).warning("%s", exc)
    return profiles


def save_profiles(profiles: dict[str, ModelProfile] | list[ModelProfile], path: Path | None = None) -> Path:
    """Write all profiles atomically (``core.atomic``: temporary file in the same folder, fsync, os.replace).

    A secret in a profile's base URL is moved to the OS keyring first (the profile object is changed: see the
    module's docstring). Returns the path written. Raises ProfileError if the folder or file cannot be written,
    or a URL's secret cannot be kept in the keyring; the previous file is then left as it was.
    """
    path = path or profiles_path()
    items = list(profiles.values()) if isinstance(profiles, dict) else list(profiles)
    for profile in items:
        _keep_url_secret_in_keyring(profile)
    document = {"format": "fieldstudio-model-profiles", "version": FILE_FORMAT_VERSION,
                "profiles": [p.to_dict() for p in sorted(items, key=lambda p: p.name.lower())]}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    except OSError as exc:
        raise ProfileError(f"{path}: cannot save the model profiles ({exc.strerror or exc}).") from None
    return path


def get_profile(name: str, path: Path | None = None) -> ModelProfile:
    """The stored profile called `name`. Raises ProfileError if there is none."""
    profiles = load_profiles(path)
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or "none yet"
        raise ProfileError(f"No model profile called {name!r} (profiles: {known}).")
    return profiles[name]


def add_profile(profile: ModelProfile, *, replace: bool = False, path: Path | None = None) -> Path:
    """Store a new profile (or replace one of the same name when `replace`).

    Raises ProfileError if the name is taken and `replace` is False, the base URL has ``;`` path parameters, or
    the file cannot be written.
    """
    refuse_path_parameters(profile.base_url)
    profiles = load_profiles(path)
    if profile.name in profiles and not replace:
        raise ProfileError(f"A model profile called {profile.name!r} exists already (use --replace to overwrite).")
    previous = profiles.get(profile.name)
    profiles[profile.name] = profile
    written = save_profiles(profiles, path)
    _drop_stale_url_secret(previous, profile)
    return written


def _drop_stale_url_secret(previous: ModelProfile | None, profile: ModelProfile) -> None:
    """Remove the keyring's base URL secret of a profile replaced by one without any."""
    if previous is not None and previous.url_secret_mask and not profile.url_secret_mask:
        delete_key_from_keyring(profile.name, url_secret=True)


def update_profile(profile: ModelProfile, path: Path | None = None) -> Path:
    """Overwrite the stored profile of the same name. Raises ProfileError if there is none, or the base URL has
    ``;`` path parameters."""
    refuse_path_parameters(profile.base_url)
    profiles = load_profiles(path)
    if profile.name not in profiles:
        raise ProfileError(f"No model profile called {profile.name!r}.")
    previous = profiles[profile.name]
    profiles[profile.name] = profile
    written = save_profiles(profiles, path)
    _drop_stale_url_secret(previous, profile)
    return written


def remove_profile(name: str, path: Path | None = None) -> ModelProfile:
    """Delete a stored profile and return it. Raises ProfileError if there is none.

    The keyring entry of its key, if any, is left to the caller (`delete_key_from_keyring`); that of its base
    URL's secret is removed.
    """
    profiles = load_profiles(path)
    if name not in profiles:
        raise ProfileError(f"No model profile called {name!r}.")
    removed = profiles.pop(name)
    save_profiles(profiles, path)
    if removed.url_secret_mask:
        delete_key_from_keyring(name, url_secret=True)
    return removed
