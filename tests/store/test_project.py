"""Project files: the schema revisions read from the migration scripts agree with Alembic's own reading,
and a file name that means something in a URI still opens that very file."""

import sqlite3

import pytest

from fieldstudio.core.errors import ProjectError
from fieldstudio.store.project import Project


def test_revisions_read_without_alembic_match_alembic():
    from alembic.script import ScriptDirectory

    from fieldstudio.store import project as project_module

    scripts = ScriptDirectory.from_config(project_module._alembic_config())
    assert project_module.head_revision() == scripts.get_current_head()
    assert project_module.known_revisions() == {r.revision for r in scripts.walk_revisions()}


@pytest.mark.parametrize("name", ["a#b", "what?", "x%20y", "%C3%BC", "100%", "Baustelle Süd ü"])
def test_file_names_with_uri_characters_open_that_very_file(tmp_path, name):
    # "#", "?" and "%XX" mean something in a URI: the project must still be this file, and no other
    path = tmp_path / f"{name}.fieldstudio"
    with Project.create(path, name=name):
        pass
    with Project.open(path) as p:
        assert p.name == name
        p.set_setting("marker", 7)
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)  # sqlite3 on the percent-encoded name
    assert con.execute("SELECT value FROM project_setting WHERE key = 'marker'").fetchone() == (7,)  # JSON 7, read as an integer
    con.close()
    assert sorted(f.name for f in tmp_path.iterdir() if not f.name.endswith(("-wal", "-shm"))) == [path.name]


def test_two_threads_migrating_two_files_at_once_both_end_at_the_head_schema(tmp_path):
    # the window opens one project on a worker while the user may open another on the GUI thread
    import threading

    from fieldstudio.store.schema_revisions import file_revision, head_revision

    for attempt in range(3):
        paths = [tmp_path / f"{attempt}-{side}.fieldstudio" for side in "ab"]
        for path in paths:  # an SQLite file without tables: migrated from "no schema"
            con = sqlite3.connect(path)
            con.execute("CREATE TABLE t (x)")
            con.execute("DROP TABLE t")
            con.commit()
            con.close()
        errors = []

        def open_and_close(path):
            try:
                Project.open(path).close()
            except Exception as exc:  # noqa: BLE001 - collected for the assertion below
                errors.append(repr(exc))

        threads = [threading.Thread(target=open_and_close, args=(p,)) for p in paths]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == []
        for path in paths:
            assert file_revision(path) == head_revision()
            con = sqlite3.connect(path)
            assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'media'").fetchone() == (1,)
            con.close()


def test_a_folder_named_like_a_project_is_refused_as_a_folder(tmp_path):
    folder = tmp_path / "site.fieldstudio"
    folder.mkdir()
    with pytest.raises(ProjectError, match="site.fieldstudio: is a folder, not a project file"):
        Project.open(folder)
