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

ROOT = Path(__file__).resolve().parents[1]


def _slim():
    spec = importlib.util.spec_from_file_location("slim_bundle", ROOT / "installers/linux/slim_bundle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lib(folder: Path, soname: str, source: str, *, version: str | None = None, links: tuple[str, ...] = ()) -> Path:
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
