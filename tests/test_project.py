"""The schema revisions fieldstudio reads from its migration scripts agree with Alembic's own reading."""


def test_revisions_read_without_alembic_match_alembic():
    from alembic.script import ScriptDirectory

    from fieldstudio.store import project as project_module

    scripts = ScriptDirectory.from_config(project_module._alembic_config())
    assert project_module.head_revision() == scripts.get_current_head()
    assert project_module.known_revisions() == {r.revision for r in scripts.walk_revisions()}
