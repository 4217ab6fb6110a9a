"""Atomic writes leave files with the permissions an ordinary new file would have."""


def test_written_files_get_the_usual_permissions(tmp_path):
    import os
    import stat

    from fieldstudio.core.atomic import atomic_write_text

    old = os.umask(0o022)
    try:
        path = tmp_path / "export.csv"
        atomic_write_text(path, "a,b\n")
        assert stat.S_IMODE(path.stat().st_mode) == 0o644  # 0666 & ~0022, as open() would give
    finally:
        os.umask(old)


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    import pytest

    from fieldstudio.core.atomic import atomic_path, atomic_write_text

    path = tmp_path / "project.fieldstudio"
    atomic_write_text(path, "old")
    with pytest.raises(RuntimeError), atomic_path(path) as tmp:
        tmp.write_text("half")
        raise RuntimeError("the writer failed")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    with atomic_path(path) as tmp:
        tmp.write_text("new")
    assert path.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_a_database_is_never_written_over_unless_the_writer_makes_one(tmp_path):
    import sqlite3

    import pytest

    from fieldstudio.core.atomic import ReplacesDatabase, atomic_path, atomic_write_text

    db = tmp_path / "p.fieldstudio"
    with sqlite3.connect(db) as con:
        con.execute("create table t (x)")
    before = db.read_bytes()
    with pytest.raises(ReplacesDatabase, match="p.fieldstudio is a database"):
        atomic_write_text(db, "a,b\n")
    assert db.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [db.name]
    with atomic_path(db, replaces_database=True) as tmp:     # a project copy writes a database on purpose
        tmp.write_bytes(b"new")
    assert db.read_bytes() == b"new"
