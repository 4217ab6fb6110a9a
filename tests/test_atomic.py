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
