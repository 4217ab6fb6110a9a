"""The privacy gate of a model profile: what may leave this machine in a request to its endpoint.

Three modes (`MODES`): ``local-only`` refuses every request to an endpoint that is not on this machine (loopback)
or in the LAN ranges the profile lists; ``blur-faces`` blurs every face in each frame before it is encoded for a
request (the pixels sent, never the project's media) and records the boxes and the detector's version, and with the
profile's "also blur whole people" (``bodies``) the people the HOG detector finds as well; ``send-as-is``
sends frames unchanged. A profile that names no mode gets `default_mode`: ``blur-faces`` for an endpoint that is not
local, ``send-as-is`` for one on this machine.

When the face detector (or, for bodies, the people detector) cannot be loaded, or a frame is too large for it,
`FaceRedactor.redact` raises `GateRefused`:
the frame is never sent unblurred, and the run stops saying why.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:                   # the detector (onnxruntime) and the blur (OpenCV) load on first use
    import numpy as np

    from fieldstudio.privacy.faces import FaceDetector

LOCAL_ONLY = "local-only"
BLUR_FACES = "blur-faces"
SEND_AS_IS = "send-as-is"
#: Each mode and what it does, as the profile dialog and `models add --privacy` say it.
MODES: dict[str, str] = {
    LOCAL_ONLY: "local only: refuse any endpoint not on this machine or in the LAN ranges listed",
    BLUR_FACES: "blur faces in every frame before it is sent (the project's media are never changed)",
    SEND_AS_IS: "send frames as they are",
}
#: Host names that are this machine without asking a resolver.
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


class GateRefused(FieldstudioError):
    """The privacy gate refused a request: nothing was sent; the message says why and what to change."""


#: The widest LAN range accepted per IP version (``parse_lan_ranges``): 10.0.0.0/8 is the widest private IPv4 block.
_WIDEST_PREFIX = {4: 8, 6: 32}


def parse_lan_ranges(ranges: Sequence[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The networks of LAN ranges written as CIDR (``192.168.1.0/24``, ``fd12:3456:789a::/48``) or single addresses.

    A range counts as local only when it is a private, loopback or link-local one no wider than /8 (IPv4) or /32
    (IPv6): a public range, or one as wide as the internet, would make "local only" mean nothing.
    Raises ValueError naming the first range that is not one, or that is refused."""
    out = []
    for text in ranges:
        try:
            net = ipaddress.ip_network(text.strip(), strict=False)
        except ValueError:
            raise ValueError(f"{text!r} is not a LAN range (write it as 192.168.1.0/24 or one address)") from None
        if not (net.is_private or net.is_loopback or net.is_link_local):
            raise ValueError(f"{text!r} is not a private, loopback or link-local range: it cannot count as local")
        if net.prefixlen < _WIDEST_PREFIX[net.version]:
            raise ValueError(f"{text!r} is wider than /{_WIDEST_PREFIX[net.version]}: name the LAN's own range, "
                             "e.g. 192.168.1.0/24")
        out.append(net)
    return out


def endpoint_host(base_url: str) -> str:
    """The host name or address of an endpoint's base URL (lower case; empty when it has none)."""
    return (urlsplit(base_url).hostname or "").lower()


def endpoint_is_local(base_url: str, lan_ranges: Sequence[str] = (), *, resolve: bool = True) -> bool:
    """Whether the endpoint is on this machine (a loopback address or name) or inside one of `lan_ranges`.

    A host name other than ``localhost`` counts as local only when `resolve` is set and every address it
    resolves to is local; a name that does not resolve is not local. Raises ValueError for a bad range."""
    networks = parse_lan_ranges(lan_ranges)
    host = endpoint_host(base_url)
    if not host:
        return False
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        if not resolve:
            return False
        try:
            infos = socket.getaddrinfo(host, None)
        except (OSError, UnicodeError):
            return False
        addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    return bool(addresses) and all(a.is_loopback or any(a in n for n in networks) for a in addresses)


def default_mode(base_url: str, lan_ranges: Sequence[str] = ()) -> str:
    """``send-as-is`` for an endpoint on this machine or a listed LAN range (judged without a resolver), else
    ``blur-faces``."""
    try:
        local = endpoint_is_local(base_url, lan_ranges, resolve=False)
    except ValueError:
        local = False
    return SEND_AS_IS if local else BLUR_FACES


def check_mode(mode: str | None) -> str | None:
    """`mode` if it is one of `MODES` or None; raises ValueError listing the modes otherwise."""
    if mode is not None and mode not in MODES:
        raise ValueError(f"unknown privacy mode {mode!r}; choose one of {', '.join(MODES)}")
    return mode


def remote_refusal(profile_name: str, mode: str, base_url: str, lan_ranges: Sequence[str]) -> str | None:
    """Why a profile with privacy ``mode`` may not reach ``base_url``: for a ``local-only`` profile whose endpoint
    is not on this machine nor in ``lan_ranges``, or whose URL or ranges cannot be read, the reason; else None."""
    if mode != LOCAL_ONLY:
        return None
    try:
        local = endpoint_is_local(base_url, lan_ranges)
    except ValueError as exc:
        return f"{profile_name}: {exc}"
    if local:
        return None
    listed = ", ".join(lan_ranges) or "none listed"
    return (f"{profile_name}: the privacy gate is \"local only\" and {endpoint_host(base_url) or '?'} "
            f"is not on this machine nor in the profile's LAN ranges ({listed}); nothing was sent. "
            "Add its range to the profile, or choose another privacy mode")


def refuse_remote(profile_name: str, base_url: str, lan_ranges: Sequence[str]) -> None:
    """For a ``local-only`` profile: raise GateRefused with :func:`remote_refusal`'s reason unless its endpoint is
    on this machine or a listed range."""
    if why := remote_refusal(profile_name, LOCAL_ONLY, base_url, lan_ranges):
        raise GateRefused(why)


class FaceRedactor:
    """Blurs the faces of frames about to be encoded for a request (``blur-faces``); thread-safe.

    Args:
        detector: makes the face detector on first use (default: the process's shared CenterFace detector).
        bodies: also blur whole people: the boxes of OpenCV's HOG people detector (``media.people``), each
            widened by `BODY_MARGIN`.
    """

    mode = BLUR_FACES
    #: Each side of a person's box is widened by this fraction of its size (an arm or a foot the box may miss).
    BODY_MARGIN = 0.1

    def __init__(self, detector: Callable[[], FaceDetector] | None = None, *, bodies: bool = False):
        if detector is None:
            from fieldstudio.privacy.faces import shared_detector as detector
        self._make = detector
        self.bodies = bodies
        self._detector: FaceDetector | None = None
        self._lock = threading.Lock()

    def detector(self) -> FaceDetector:
        """The loaded detector. Raises GateRefused when it cannot be loaded (nothing is then sent)."""
        from fieldstudio.privacy.faces import FaceModelError

        with self._lock:
            if self._detector is None:
                try:
                    self._detector = self._make()
                except FaceModelError as exc:
                    raise GateRefused(f"the privacy gate blurs faces and {exc}; no frame was sent") from None
            return self._detector

    def redact(self, rgb: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
        """(the picture with its faces blurred, its record: ``{"gate": "blur-faces", "detector": version,
        "boxes": [[x0, y0, x1, y1, score], ...]}`` in pixels of the picture given; with ``bodies`` also
        ``"body_detector": version, "body_boxes": [[x0, y0, x1, y1, score], ...]``).

        Raises GateRefused when a detector cannot be loaded or the picture is too large for it."""
        from fieldstudio.privacy.blur import blur_faces
        from fieldstudio.privacy.faces import FaceImageTooLarge

        detector = self.detector()
        try:
            boxes = detector.detect(rgb)
        except FaceImageTooLarge as exc:
            raise GateRefused(f"the privacy gate cannot look for faces in this frame: {exc}; it was not sent") \
                from None
        record = {"gate": self.mode, "detector": detector.version, "boxes": [b.as_list() for b in boxes]}
        blurred = blur_faces(rgb, boxes)
        if self.bodies:
            from fieldstudio.media import people

            try:
                found = people.detect_people(rgb)
            except FieldstudioError as exc:     # no HOG in this OpenCV, or a picture too large for it
                raise GateRefused(f"the privacy gate also blurs whole people and {exc}; no frame was sent") \
                    from None
            blurred = blur_faces(blurred, found, margin=self.BODY_MARGIN)
            record.update(body_detector=people.detector_version(), body_boxes=[b.as_list() for b in found])
        return blurred, record


def redactor_for(*modes: str | None, bodies: bool = False) -> FaceRedactor | None:
    """The face blur frames go through when any of ``modes`` (privacy modes of the profiles that may receive
    them: a run's profile and, in agent mode, its vision profile) is ``blur-faces``; None when none is.
    ``bodies``: one of those profiles also blurs whole people."""
    return FaceRedactor(bodies=bodies) if BLUR_FACES in modes else None
