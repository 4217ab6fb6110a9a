"""The benchmark files fieldstudio knows, by SHA-256: which file of which repository, at which commit.

fieldstudio never ships the benchmarks' judge prompts; it reads them at run time from the user's copy of
the benchmark (``scoring.official.source``) and accepts a file only when its fingerprint is listed here.
The fingerprint is the SHA-256 of the file's UTF-8 text with CRLF line ends made LF and the newlines at
its end dropped, so a Windows checkout (git's autocrlf) and a copy saved without a final newline match
too; any other change of a byte gives another fingerprint and the file is refused.

Tests register stand-in files of the same structure through :func:`register_stand_in`, which works only
while pytest runs a test (``PYTEST_CURRENT_TEST`` is set); a stand-in is never accepted outside tests.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KnownFile", "KNOWN", "BENCHMARKS", "ROLES", "fingerprint", "known_versions", "register_stand_in",
           "clear_stand_ins"]

BENCHMARKS = ("fieldworkarena", "openeqa", "industryeqa")
"""Benchmarks whose own judge files fieldstudio can read."""


@dataclass(frozen=True)
class KnownFile:
    """One known version of one benchmark file.

    ``benchmark``: a name in :data:`BENCHMARKS`; ``role``: what the file is for (see :data:`ROLES`);
    ``path``: its path inside the benchmark's repository (forward slashes); ``sha256``: its fingerprint
    (:func:`fingerprint`); ``version``: repository and commit, shown to the user and stored with every
    verdict; ``variant``: which behaviour of the evaluator applies ("offline" or "leaderboard" for
    FieldWorkArena, "" otherwise); ``stand_in``: a test's stand-in file.
    """

    benchmark: str
    role: str
    path: str
    sha256: str
    version: str
    variant: str = ""
    stand_in: bool = False


ROLES: dict[str, tuple[str, ...]] = {
    "fieldworkarena": ("evaluator",),
    "openeqa": ("llm_match", "mmbench", "mmbench-extra"),
    "industryeqa": ("direct_match", "direct", "reasoning"),
}
"""The files each benchmark's scorers need, by role."""

_FWA = "FujitsuResearch/FieldWorkArena@8ebe8dae3067a75e0029e30f8445b7d0337efec8"
_GREEN = "ast-fri/FieldWorkArena-GreenAgent@1cc12de27e2f453b98c532e4881f81918a19d2fc"
_OPENEQA = "facebookresearch/open-eqa@cfa3fce4595c1622bb2f8a38ae2ca9aae9eb685b"
_IEQA = "JackYFL/IndustryEQA@90418b6"

KNOWN: tuple[KnownFile, ...] = (
    KnownFile("fieldworkarena", "evaluator", "tools/evaluation/metrics/automatic/automatic_evaluation.py",
              "205e3e6dafb623665af2d8b4a8d4e272f803f3815f486c866bd0ce5c39005877", _FWA, "offline"),
    KnownFile("fieldworkarena", "evaluator", "src/fieldworkarena/agent/metrics/automatic/automatic_evaluation.py",
              "ce24164e0006467a41ca3dfb3e998b97287c18c57fbebc37c6fc1ebb366f0dac", _GREEN, "leaderboard"),
    KnownFile("openeqa", "llm_match", "openeqa/evaluation/llm_match.py",
              "fa3a72c1063a480c23c73bd1803c277bd58463242b843ba43781d32c28c2b6cd", _OPENEQA),
    KnownFile("openeqa", "mmbench", "prompts/mmbench.txt",
              "52d45f6ab14192af88903d43f2d83f83f1a77b5b6350e9878a8e2fdb640e1cdf", _OPENEQA),
    KnownFile("openeqa", "mmbench-extra", "prompts/mmbench-extra.txt",
              "6bd42d3f018277b8cded4b94892032cae1dd828d6a09d64918475b4530c7ce67", _OPENEQA),
    KnownFile("industryeqa", "direct_match", "industryeqa/evaluation/direct_match.py",
              "307f8599af8ade3c03d770032486e892a2739732e9acb4a402fb3f2f1c31ce78", _IEQA),
    KnownFile("industryeqa", "direct", "prompts/direct_match.txt",
              "f49379b101c6ce759901753530ec58afc5cbd49fb9d57e1c720a42cc354ac6f0", _IEQA),
    KnownFile("industryeqa", "reasoning", "prompts/reasoning_match.txt",
              "b4cd296b05938ec968ca08ad33de456fcb672a23112f279d9f302ee7a945f9f1", _IEQA),
)
"""Every known version; a role may have several (FieldWorkArena's offline evaluator and its leaderboard copy)."""

_STAND_INS: list[KnownFile] = []


def fingerprint(path: Path) -> str:
    """The SHA-256 (64 hex digits) of the file's text as described in the module docstring.

    Raises OSError when the file cannot be read, UnicodeDecodeError when it is not UTF-8 text."""
    data = Path(path).read_bytes().replace(b"\r\n", b"\n").rstrip(b"\n")
    data.decode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _in_a_test() -> bool:
    return bool(os.environ.get("PYTEST_CURRENT_TEST"))


def known_versions(benchmark: str, role: str) -> list[KnownFile]:
    """The known versions of one file (with the registered stand-ins while a test runs), official first."""
    found = [k for k in KNOWN if k.benchmark == benchmark and k.role == role]
    if _in_a_test():
        found += [k for k in _STAND_INS if k.benchmark == benchmark and k.role == role]
    return found


def register_stand_in(benchmark: str, role: str, path: str, sha256: str, variant: str = "") -> KnownFile:
    """Accept a test's stand-in file (same structure, own text) as a known version, for tests only.

    Raises RuntimeError outside a pytest test and ValueError for an unknown benchmark or role."""
    if not _in_a_test():
        raise RuntimeError("stand-in benchmark files are accepted only inside tests")
    if role not in ROLES.get(benchmark, ()):
        raise ValueError(f"no role {role!r} for benchmark {benchmark!r}")
    known = KnownFile(benchmark, role, path, sha256, f"test stand-in {path}", variant, stand_in=True)
    _STAND_INS.append(known)
    return known


def clear_stand_ins() -> None:
    """Forget every registered stand-in (a test fixture's teardown)."""
    _STAND_INS.clear()
