"""`fieldstudio models ...`: add, list, test and remove model profiles (OpenAI-compatible endpoints).

Profiles live in the user's config folder (see `fieldstudio.inference.profiles`); keys stay in an
environment variable or the OS keyring and are never printed.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.table import Table

from fieldstudio.cli.output import fail, out
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.inference import profiles as store
from fieldstudio.inference.probe import test_profile
from fieldstudio.privacy import gate
from fieldstudio.inference.profiles import (DEFAULT_DEADLINE_S, DEFAULT_MAX_REPLY_BYTES, PRESET_KEY_ENV, PRESETS,
                                            ModelProfile)

models_app = typer.Typer(
    help="Model profiles: an OpenAI-compatible endpoint, a model id, its key's source, prices and limits.",
    no_args_is_help=True,
)


def _fail(message: str) -> typer.Exit:
    """A refused profile command exits 2 on one line, as every other command's refusal does; exit 1 is kept for
    "ran, but the model cannot answer" (``models test``)."""
    return fail(message, code=2)


@models_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="Name of the profile, e.g. qwen-local or gpt-4o-mini.")],
    model: Annotated[str, typer.Option("--model", help="Model id sent with each request.")],
    base_url: Annotated[Optional[str], typer.Option(
        "--base-url", help="Endpoint root; /v1 is added when missing. Optional with --preset.")] = None,
    preset: Annotated[Optional[str], typer.Option(
        "--preset", help=f"Server type: {', '.join(PRESETS)}.")] = None,
    api_key_env: Annotated[Optional[str], typer.Option(
        "--api-key-env", help="NAME of the environment variable holding the key (not the key).")] = None,
    use_keyring: Annotated[bool, typer.Option(
        "--keyring", help="Keep the key in the OS keyring; asks for it (hidden) if none is stored.")] = False,
    price_in: Annotated[Optional[float], typer.Option(
        "--price-in", help="USD per million input tokens.")] = None,
    price_out: Annotated[Optional[float], typer.Option(
        "--price-out", help="USD per million output tokens.")] = None,
    price_cached: Annotated[Optional[float], typer.Option(
        "--price-cached", help="USD per million cached input tokens (default: the input price).")] = None,
    price_reasoning: Annotated[Optional[float], typer.Option(
        "--price-reasoning", help="USD per million reasoning tokens (default: the output price).")] = None,
    prices_date: Annotated[Optional[str], typer.Option(
        "--prices-date", help="When the prices were read, e.g. 2026-03-01.")] = None,
    batch_api: Annotated[bool, typer.Option(
        "--batch-api", help="The endpoint offers OpenAI's Batch API (/v1/files, /v1/batches): runs can be sent "
        "as batches (`fieldstudio run ... --batch`).")] = False,
    batch_discount: Annotated[Optional[float], typer.Option(
        "--batch-discount", help="Fraction taken off every price for batch requests (OpenAI: 0.5 = half price); "
        "unset, a batch's cost is unknown.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Requests in flight at once.")] = 1,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Read timeout per request, seconds: the longest silence within a reply.")] = 120.0,
    deadline: Annotated[float, typer.Option(
        "--deadline", help="Overall deadline of one call, seconds (connect, first byte, whole reply, retries).")]
        = DEFAULT_DEADLINE_S,
    max_reply_bytes: Annotated[int, typer.Option(
        "--max-reply-bytes", help="Size cap of one reply, bytes: a longer reply is cut there and flagged.")]
        = DEFAULT_MAX_REPLY_BYTES,
    retries: Annotated[int, typer.Option(
        "--retries", help="Extra attempts after 429 / 5xx / refused connections (timeouts are not retried).")] = 2,
    max_images: Annotated[Optional[int], typer.Option(
        "--max-images", help="Most images per request (vLLM's default is 1); more frames are thinned to it, "
        "and the answer says so.")] = None,
    cost_per_hour: Annotated[Optional[float], typer.Option(
        "--cost-per-hour", help="USD per hour of serving, for a local model or a rented GPU without token prices: "
        "a reply costs its latency at this rate.")] = None,
    max_request_bytes: Annotated[Optional[int], typer.Option(
        "--max-request-bytes", help="Largest request body the endpoint accepts, bytes: a larger request is sent "
        "at a lower JPEG quality or with fewer frames, and the answer says so.")] = None,
    detail: Annotated[str, typer.Option("--detail", help="Image detail: auto, low or high.")] = "auto",
    longest_side: Annotated[int, typer.Option(
        "--longest-side", help="Resize images so the longest side is at most this many pixels.")] = 1024,
    temperature: Annotated[Optional[float], typer.Option("--temperature", help="Sampling temperature.")] = 0.0,
    seed: Annotated[Optional[int], typer.Option("--seed", help="Seed sent with each request.")] = None,
    privacy: Annotated[Optional[str], typer.Option(
        "--privacy", help="Privacy gate: local-only (refuse any endpoint not on this machine or a --lan-range), "
        "blur-faces (faces blurred in every frame sent; the project's media are never changed) or send-as-is. "
        "Default: blur-faces for an endpoint not on this machine, send-as-is for one on it.")] = None,
    lan_range: Annotated[Optional[list[str]], typer.Option(
        "--lan-range", help="A LAN range counted as local (CIDR, e.g. 192.168.1.0/24); repeat for several.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a profile of the same name.")] = False,
) -> None:
    """Add a model profile. Run `fieldstudio models test NAME` afterwards to check it."""
    if api_key_env and use_keyring:
        raise _fail("choose either --api-key-env or --keyring, not both.")
    if api_key_env is None and not use_keyring and preset in PRESET_KEY_ENV:
        api_key_env = PRESET_KEY_ENV[preset]
    try:
        profile = ModelProfile(
            name=name, base_url=base_url or "", model=model, preset=preset, api_key_env=api_key_env,
            use_keyring=use_keyring, price_input_per_mtok=price_in, price_output_per_mtok=price_out,
            price_cached_per_mtok=price_cached, price_reasoning_per_mtok=price_reasoning,
            prices_date=prices_date, cost_per_hour_usd=cost_per_hour, batch_api=batch_api, batch_discount=batch_discount,
            max_images_per_request=max_images, max_request_bytes=max_request_bytes, image_detail=detail,
            longest_image_side=longest_side, timeout_s=timeout, deadline_s=deadline,
            max_reply_bytes=max_reply_bytes, retries=retries, concurrency=concurrency, temperature=temperature,
            seed=seed, privacy=privacy, lan_ranges=list(lan_range or []))
        profile.privacy = profile.privacy_mode      # the default is written down, so the file says what applies
        if use_keyring:
            try:
                store.resolve_api_key(profile)
            except FieldstudioError:
                key = typer.prompt(f"API key for {profile.name}", hide_input=True).strip()
                if not key:
                    raise _fail("no key given.") from None
                store.store_key_in_keyring(profile.name, key)
        path = store.add_profile(profile, replace=replace)
    except FieldstudioError as exc:
        raise _fail(str(exc)) from None
    console = out
    console.print(f"Added model profile {profile.name!r}: {profile.model} at {profile.shown_url}")
    console.print(f"Key: {profile.key_hint()}. Saved in {path}.")
    console.print(privacy_line(profile, chosen=privacy is not None))
    if profile.url_secret_mask:
        console.print(f"The password or key in the base URL was moved to the OS keyring (service "
                      f"{store.KEYRING_SERVICE!r}, user {profile.name + store.URL_SECRET_SUFFIX!r}); the file holds "
                      "the URL without it.")
    console.print(f"Check it with: fieldstudio models test {profile.name}")


def privacy_line(profile: ModelProfile, *, chosen: bool = True) -> str:
    """``Privacy gate: <mode>: <what it does>`` and, for a default, that it is the default of the endpoint."""
    why = "" if chosen else (" (the default for an endpoint on this machine)" if profile.privacy == gate.SEND_AS_IS
                             else " (the default for an endpoint not on this machine; change it with --privacy)")
    ranges = f"; LAN ranges counted as local: {', '.join(profile.lan_ranges)}" if profile.lan_ranges else ""
    bodies = ("; whole people blurred too (HOG people detector)"
              if profile.privacy_bodies and profile.privacy_mode == gate.BLUR_FACES else "")
    return f"Privacy gate: {gate.MODES[profile.privacy_mode]}{why}{bodies}{ranges}."


@models_app.command("privacy")
def set_privacy(
    name: Annotated[str, typer.Argument(help="Name of the profile.")],
    mode: Annotated[str, typer.Argument(help="local-only, blur-faces or send-as-is.")],
    lan_range: Annotated[Optional[list[str]], typer.Option(
        "--lan-range", help="LAN ranges counted as local (CIDR); given, they replace the profile's.")] = None,
    bodies: Annotated[Optional[bool], typer.Option(
        "--bodies/--no-bodies", help="blur-faces: also blur whole people (OpenCV's HOG people detector), or not; "
        "not given, the profile's choice stays.")] = None,
) -> None:
    """Set a profile's privacy gate: what may leave this machine in a request to its endpoint."""
    try:
        profile = store.get_profile(name)
        profile.privacy = gate.check_mode(mode)
        if bodies is not None:
            if bodies and mode != gate.BLUR_FACES:
                raise ValueError(f"--bodies goes with blur-faces: {mode} blurs nothing")
            profile.privacy_bodies = bodies
        if lan_range is not None:
            profile.lan_ranges = list(lan_range)
        profile = ModelProfile.from_dict(profile.to_dict())     # checked as a new profile would be
        store.update_profile(profile)
    except (FieldstudioError, ValueError) as exc:
        raise _fail(str(exc)) from None
    out.print(f"{profile.name}: {privacy_line(profile)}")


@models_app.command("list")
def list_profiles() -> None:
    """List the model profiles (keys are never shown)."""
    try:
        profiles = store.load_profiles()
    except FieldstudioError as exc:
        raise _fail(str(exc)) from None
    console = out
    if not profiles:
        console.print("No model profiles yet. Add one with: fieldstudio models add NAME --base-url URL --model ID")
        return
    table = Table("name", "model", "base URL", "key", "USD/Mtok in/out", "batch", "images", "privacy", "tested")
    for profile in sorted(profiles.values(), key=lambda p: p.name.lower()):
        prices = "/".join("?" if p is None else f"{p:g}"
                          for p in (profile.price_input_per_mtok, profile.price_output_per_mtok))
        caps = profile.capabilities
        images = {True: "yes", False: "no", None: "?"}[caps.images_accepted]
        if caps.images_accepted and (caps.max_images_per_request or profile.max_images_per_request):
            images += f" (max {caps.max_images_per_request or profile.max_images_per_request})"
        tested = "never" if not caps.tested_at else ("ok " if caps.text_ok else "FAILED ") + caps.tested_at[:10]
        batch = "no" if not profile.batch_api else (
            "yes, discount ?" if profile.batch_discount is None else f"yes, -{profile.batch_discount:.0%}")
        table.add_row(profile.name, profile.model, profile.shown_url, profile.key_hint(), prices,
                      batch, images, profile.privacy_mode, tested)
    console.print(table)


@models_app.command("test")
def test(name: Annotated[str, typer.Argument(help="Name of the profile to test.")]) -> None:
    """Send a few small requests (text, a test image, JSON mode, streaming) and report what works.

    The findings are saved with the profile. Exit code 1 if the model cannot answer text.
    """
    try:
        profile = store.get_profile(name)
    except FieldstudioError as exc:
        raise _fail(str(exc)) from None
    console = out
    console.print(f"Testing {profile.name!r}: {profile.model} at {profile.shown_url} ...")
    report = test_profile(profile)
    marks = {True: "[green]ok[/green]  ", False: "[red]FAIL[/red]", None: "[yellow]--[/yellow]  "}
    for step in report.steps:
        console.print(f"{marks[step.ok]} {step.name}: ", markup=True, end="")
        console.print(step.detail)
    if report.reachable:
        profile.capabilities = report.capabilities()
        if report.max_images_per_request and not profile.max_images_per_request:
            profile.max_images_per_request = report.max_images_per_request
        try:
            store.update_profile(profile)
        except FieldstudioError as exc:
            console.print(f"(the findings could not be saved: {exc})")
    if report.ok:
        images = {True: "accepts images", False: "does NOT accept images",
                  None: "image support unknown"}[report.images_accepted]
        console.print(f"{profile.name}: answers text and {images}.")
    else:
        console.print(f"{profile.name}: not usable yet.")
        raise typer.Exit(1)


@models_app.command("remove")
def remove(name: Annotated[str, typer.Argument(help="Name of the profile to remove.")]) -> None:
    """Remove a model profile (and its key from the OS keyring, if it kept one there)."""
    try:
        removed = store.remove_profile(name)
    except FieldstudioError as exc:
        raise _fail(str(exc)) from None
    if removed.use_keyring:
        store.delete_key_from_keyring(removed.name)
    out.print(f"Removed model profile {removed.name!r}.")


def register(app: typer.Typer) -> None:
    """Add the ``models add|list|test|remove`` group to the main command line."""
    app.add_typer(models_app, name="models", help="Model profiles: add, list, test, privacy, remove.")
