"""The judge audit (issue 18 §5) and the matcher audit beside a judge (§3): a person's marks on judged answers,
the judge's agreement with them, the false accepts, undo; and the cells where the deterministic matchers
decide otherwise than the judge. Expected values worked out by hand from tests/support/sample_sources.py."""

from __future__ import annotations

import pytest

from fieldstudio.compare import audit
from fieldstudio.compare import views as cv
from fieldstudio.compare.answer_table import load_answers
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.models import Answer, JudgeAuditMark, Score
from fieldstudio.store.project import Project
from tests.support import sample_sources
from tests.support.sample_sources import CAREFUL_RUN_NAME, GUESSER_RUN_NAME
from tests.support.scoring_fixtures import scored_now

SCORER = "fwa-official"


@pytest.fixture
def judged(project):
    ids = sample_sources.build(project)
    sample_sources.add_judged_scores(project, ids, SCORER)
    return project, ids


def _score_id(project, run_id: str, task_id: str) -> str:
    with project.read() as s:
        a = s.query(Answer).filter(Answer.run_id == run_id, Answer.task_id == task_id).one()
        return s.query(Score).filter(Score.answer_id == a.id).one().id


def test_matchers_flag_the_judged_answers_they_decide_otherwise(judged):
    project, ids = judged
    answers = load_answers(project, SCORER)
    m = audit.matcher_audit(project, answers, SCORER)
    assert len(m) == 84 and m["judge_pass"].all()
    by_answer = dict(zip(answers["answer_id"], zip(answers["source"], answers["task_id"])))
    flagged = {by_answer[a] for a in m.loc[m["flag"], "answer_id"]}
    no_tasks = {t for i, t in enumerate(ids["tasks"]) if i % 2 == 1}
    assert flagged == {(GUESSER_RUN_NAME, t) for t in no_tasks}            # the 21 "No" tasks, guesser only
    undecided = m[m["matcher_correct"].isna()]
    assert len(undecided) == 11 and {by_answer[a][0] for a in undecided["answer_id"]} == {CAREFUL_RUN_NAME}
    view = cv.load_view(project, SCORER, n_resamples=100)
    g = view.grid
    assert int(g.flag.sum()) == 21 and int(g.tasks["flagged"].sum()) == 21
    row, col = g.cell_of(sorted(no_tasks)[0], GUESSER_RUN_NAME)
    assert g.matcher_note[row, col].startswith("deterministic matchers: incorrect")
    assert g.matcher_note[row, col].endswith("the judge says correct: check by hand")


def test_marks_agreement_kappa_and_false_accepts_by_hand(judged):
    project, ids = judged
    t = ids["tasks"]
    marks = [(ids["careful"], t[0], False),     # "I am not sure", judge correct: a false accept
             (ids["careful"], t[11], True),     # right, judge right
             (ids["guesser"], t[1], False),     # "Yes" on a "No" task, judge correct: a false accept
             (ids["guesser"], t[0], True)]      # "Yes" on a "Yes" task
    for run, task, verdict in marks:
        audit.MarkJudged(project, _score_id(project, run, task), verdict, "Dana").do()
    table = audit.audit_agreement(project)
    assert len(table) == 1
    r = table.iloc[0]
    # n 4, agree 2: accuracy 0.5; the judge passes all 4, the person 2: p_e = 1 x 0.5 + 0 x 0.5 = 0.5,
    # kappa = (0.5 - 0.5) / 0.5 = 0; SE = sqrt(0.5 x 0.5 / (4 x 0.25)) = 0.5, interval 0 ± 1.959964 x 0.5
    assert (r["scorer"], r["judge_model"], r["n"], r["agree"]) == (SCORER, sample_sources.JUDGE_MODEL, 4, 2)
    assert r["accuracy"] == pytest.approx(0.5) and r["kappa"] == pytest.approx(0.0)
    assert (r["kappa_ci_low"], r["kappa_ci_high"]) == (pytest.approx(-0.979982), pytest.approx(0.979982))
    # Wilson for 2/4: z²/n = 0.960365; centre 0.5; half 1.959964 x sqrt(0.0625 + 0.060023) / 1.960365 = 0.349961
    assert (r["accuracy_ci_low"], r["accuracy_ci_high"]) == (pytest.approx(0.150039, abs=1e-5),
                                                             pytest.approx(0.849961, abs=1e-5))
    assert (r["false_accepts"], r["false_rejects"]) == (2, 0)
    fa = audit.false_accepts(project)
    assert sorted(fa["answer"]) == ["I am not sure", "Yes"]


def test_a_mark_is_undoable_replaced_and_kept_on_reopen(judged):
    project, ids = judged
    sid = _score_id(project, ids["careful"], ids["tasks"][0])
    first = audit.MarkJudged(project, sid, True, "Dana")
    first.do()
    second = audit.MarkJudged(project, sid, False, "Dana")
    second.do()
    with project.read() as s:
        assert [m.person_correct for m in s.query(JudgeAuditMark)] == [False]    # one mark per score and person
    second.undo()
    with project.read() as s:
        assert [m.person_correct for m in s.query(JudgeAuditMark)] == [True]
    first.undo()
    with project.read() as s:
        assert s.query(JudgeAuditMark).count() == 0
    first.do()                                                               # redo
    path = project.path
    project.close()
    with Project.open(path) as p:
        assert audit.audit_agreement(p).iloc[0]["n"] == 1
    with Project.open(path) as p, pytest.raises(FieldstudioError, match="needs the name"):
        audit.MarkJudged(p, sid, True, "  ").do()


def test_only_judged_scores_are_audited_and_the_sample_is_seeded(judged):
    project, ids = judged
    with project.write() as s:
        a = s.query(Answer).filter(Answer.run_id == ids["careful"]).first()
        plain = Score(answer_id=a.id, scorer="fwa-paper", **scored_now(s, a.id, "fwa-paper"), value=1.0, correct=True)
        s.add(plain)
        s.flush()
        plain_id = plain.id
    with pytest.raises(FieldstudioError, match="not a judge's verdict"):
        audit.MarkJudged(project, plain_id, True, "Dana").do()
    one = audit.audit_sample(project, SCORER, size=10, seed=3)
    again = audit.audit_sample(project, SCORER, size=10, seed=3)
    other = audit.audit_sample(project, SCORER, size=10, seed=4)
    assert one["answer_id"].tolist() == again["answer_id"].tolist() != other["answer_id"].tolist()
    first = [one["answer_id"].iloc[5]]
    assert audit.audit_sample(project, SCORER, size=3, seed=9, first=first)["answer_id"].iloc[0] == first[0]
    assert one["mark"].isna().all() and len(audit.judged_answers(project, SCORER)) == 84


def test_report_shows_the_judge_audit_and_the_matcher_flags(judged, tmp_path):
    import json

    from fieldstudio.compare.report_export import export_report

    project, ids = judged
    for task in ids["tasks"][:12]:                 # 12 marks: guesser's "Yes"; person right by the ground truth
        i = ids["tasks"].index(task)
        audit.MarkJudged(project, _score_id(project, ids["guesser"], task), i % 2 == 0, "Dana").do()
    export_report(project, tmp_path / "r.html", scorer=SCORER, n_resamples=100)
    html = (tmp_path / "r.html").read_text()
    # 12 marks: the judge passes all; the person passes the 6 "Yes" tasks: accuracy 6/12, 6 false accepts
    assert "<td>judge-llm-1</td><td class=\"num\">12</td><td class=\"num\">6</td><td>0.500 [" in html
    assert "Deterministic matchers beside the judge: 21 of 84 judged answers decided otherwise" in html
    export_report(project, tmp_path / "r.json", scorer=SCORER, n_resamples=100)
    entry = json.loads((tmp_path / "r.json").read_text())["judge_audit"][0]
    assert (entry["n"], entry["agree"], entry["false_accepts"]) == (12, 6, 6) and entry["accuracy"] == 0.5


def test_several_people_agreement_beside_the_judge(judged):
    import krippendorff
    import numpy as np

    project, ids = judged
    t = ids["tasks"]
    # three people on the same six judged answers of the guesser (True: correct)
    marks = {"Ana": [True, False, True, False, True, True],
             "Ben": [True, False, True, True, True, True],
             "Cy": [True, False, False, False, True, True]}
    for person, verdicts in marks.items():
        for task, verdict in zip(t[:6], verdicts):
            audit.MarkJudged(project, _score_id(project, ids["guesser"], task), verdict, person).do()
    table = audit.people_agreement(project, n_resamples=200)
    alpha = table[table["measure"] == "Krippendorff's alpha"].iloc[0]
    expected = krippendorff.alpha(reliability_data=np.array([[int(v) for v in marks[p]] for p in marks]),
                                  level_of_measurement="nominal")      # the library, as an independent check
    assert (alpha["people"], alpha["n"]) == ("Ana, Ben, Cy", 6) and alpha["estimate"] == pytest.approx(expected)
    assert alpha["ci_low"] <= alpha["estimate"] <= alpha["ci_high"]
    kappas = table[table["measure"] == "Cohen's kappa"].set_index("people")
    # Ana / Ben by hand: 5 of 6 agree, p_o = 5/6; Ana passes 4/6, Ben 5/6: p_e = 4/6 x 5/6 + 2/6 x 1/6 = 22/36;
    # kappa = (30/36 - 22/36) / (14/36) = 8/14
    assert kappas.loc["Ana / Ben", "estimate"] == pytest.approx(8 / 14) and kappas.loc["Ana / Ben", "n"] == 6
    assert list(kappas.index) == ["Ana / Ben", "Ana / Cy", "Ben / Cy"]
    # the judge's agreement with them stays one row per judge: 18 marks
    assert audit.audit_agreement(project).iloc[0]["n"] == 18


def test_report_shows_the_peoples_agreement_beside_the_judges(judged, tmp_path):
    import json

    from fieldstudio.compare.report_export import export_report

    project, ids = judged
    for person, verdicts in {"Ana": [True, False, True, False], "Ben": [True, False, True, True]}.items():
        for task, verdict in zip(ids["tasks"][:4], verdicts):
            audit.MarkJudged(project, _score_id(project, ids["guesser"], task), verdict, person).do()
    export_report(project, tmp_path / "r.html", scorer=SCORER, n_resamples=100)
    html = (tmp_path / "r.html").read_text()
    assert "People with each other" in html and "<td>Ana / Ben</td>" in html
    export_report(project, tmp_path / "r.json", scorer=SCORER, n_resamples=100)
    people = json.loads((tmp_path / "r.json").read_text())["judge_audit_people"]
    # 3 of 4 agree; Ana passes 2/4, Ben 3/4: p_e = 0.5 x 0.75 + 0.5 x 0.25 = 0.5, kappa = (0.75 - 0.5) / 0.5 = 0.5
    kappa = next(p for p in people if p["measure"] == "Cohen's kappa")
    assert (kappa["people"], kappa["n"]) == ("Ana / Ben", 4) and kappa["estimate"] == pytest.approx(0.5)


def test_marks_of_a_score_gone_stale_leave_the_agreement(judged):
    """Found by an independent review: the guesser's "Yes" on a "No" task, judged correct and marked wrong, was
    still a false accept after the reference changed to "Yes" (the mark judged another ground truth)."""
    from fieldstudio.tasks import task_records

    project, ids = judged
    t = ids["tasks"]
    audit.MarkJudged(project, _score_id(project, ids["guesser"], t[1]), False, "Dana").do()
    audit.MarkJudged(project, _score_id(project, ids["guesser"], t[0]), True, "Dana").do()
    assert audit.audit_agreement(project).iloc[0]["n"] == 2 and len(audit.false_accepts(project)) == 1
    task_records.update_task(project, t[1], ground_truth="Yes")
    marks = audit.audit_marks(project)
    assert marks.loc[marks["score_id"] == _score_id(project, ids["guesser"], t[1]), "stale_reason"].iloc[0] \
        .startswith("the ground truth changed")
    assert audit.audit_agreement(project).iloc[0]["n"] == 1
    assert audit.false_accepts(project).empty
