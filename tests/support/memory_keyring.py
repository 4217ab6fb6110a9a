"""A keyring backend that keeps passwords in a dict, so that tests never touch the OS keyring.

The ``memory_keyring`` fixture (tests/conftest.py) installs one for a test; a test may also install its own. It is
only ever installed that way (``keyring.set_keyring``): keyring's own detection of the best backend never picks it
(its ``priority`` raises, which keyring reads as "not viable"). With a plain priority, merely importing this module
made the detection choose it, so the keyring the fixture restored afterwards was itself a memory keyring, shared by
every later test (an isolation leak).
"""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.compat import properties
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """Passwords in ``passwords``, keyed by (service, username); deleting a missing one raises as keyring does."""

    @properties.classproperty
    def priority(cls) -> float:
        raise RuntimeError("installed by tests only (keyring.set_keyring), never by keyring's detection")

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.passwords:
            raise PasswordDeleteError("no such password")
        del self.passwords[(service, username)]
