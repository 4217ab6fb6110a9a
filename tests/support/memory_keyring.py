"""A keyring backend that keeps passwords in a dict, so that tests never touch the OS keyring.

The ``memory_keyring`` fixture (tests/conftest.py) installs one for a test; a test may also install its own.
"""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """Passwords in ``passwords``, keyed by (service, username); deleting a missing one raises as keyring does."""

    priority = 1

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
