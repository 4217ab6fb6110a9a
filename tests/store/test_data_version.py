"""``store.data_version`` (issue 37: a kept Compare view is shown again only while its project is unchanged):
every commit, by this process's sessions, the score store's own connection or another process, and a file
replaced at the same path, gives a new value; reads do not."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys

from fieldstudio.store import data_version as dv
from fieldstudio.store.models import Task
from fieldstudio.store.project import Project


def test_every_commit_and_a_replaced_file_change_the_value_and_reads_do_not(project, tmp_path, backend):
    if backend == "postgresql":
        assert dv.data_version(project) is None               # no such counter: callers read again
        return
    first = dv.data_version(project)
    assert first is not None and dv.data_version(project) == first
    project.name                                              # a read
    assert dv.data_version(project) == first
    with project.write() as s:
        s.add(Task(source="csv", external_id="t1", query="q"))
    second = dv.data_version(project)
    assert second != first
    con = sqlite3.connect(project.path)                       # another connection, as the score store's
    con.execute("UPDATE task SET query = 'changed'")
    con.commit()
    con.close()
    third = dv.data_version(project)
    assert third != second
    code = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
            "c.execute(\"UPDATE task SET query = 'other'\"); c.commit()")
    subprocess.run([sys.executable, "-c", code, str(project.path)], check=True)    # another process
    fourth = dv.data_version(project)
    assert fourth != third and dv.data_version(project) == fourth
    copy = tmp_path / "copy.fieldstudio"
    other = Project.create(copy)
    other.close()
    assert dv.data_version(Project.open(copy)) != fourth      # watching another file
    project.engine.dispose()
    shutil.copy(copy, project.path)                           # a file put in the project's place
    assert dv.data_version(project) not in (fourth, None)
    dv.forget()


def test_load_view_gives_the_same_view_until_a_commit(project, backend):
    from fieldstudio.compare import views as cv
    from fieldstudio.store.models import Answer, Run

    with project.write() as s:
        task, run = Task(source="csv", external_id="t1", query="q", ground_truth="3"), Run(name="m", kind="import")
        s.add_all([task, run])
        s.flush()
        s.add(Answer(run_id=run.id, task_id=task.id, raw_text="3"))
    first = cv.load_view(project, None)
    if backend == "postgresql":
        assert cv.load_view(project, None) is not first     # always read again
        return
    assert cv.load_view(project, None) is first
    assert cv.load_view(project, first.scorer) is first       # the scorer chosen for None, asked by name
    assert cv.load_view(project, None, n_resamples=100) is not first
    with project.write() as s:
        s.query(Answer).update({Answer.raw_text: "4"})
    again = cv.load_view(project, None)
    assert again is not first and list(again.answers["answer"]) == ["4"]
    dv.forget()
