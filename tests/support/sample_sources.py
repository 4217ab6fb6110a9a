"""A small project the coverage, audit and Compare-tab tests share: 42 yes/no tasks and two answer sources.

* "sample: careful" answers the ground truth on 31 tasks and "I am not sure" on the other 11, which the
  deterministic matchers leave unscored (a hedge);
* "sample: guesser" answers "Yes" everywhere: right on the 21 tasks whose ground truth is "Yes", wrong on
  the 21 "No" ones.

By hand, scored with the matchers: careful 31/42 scored, all 31 correct, mean of scored 1.000, headline
31/42 = 0.7381 (the 11 count 0); guesser 42/42 scored, mean and headline 21/42 = 0.5.
"""

from __future__ import annotations

from fieldstudio.scoring.scorers import REGISTRY
from tests.support.scoring_fixtures import add_run, add_task, scored_now

MATCHER_SCORER = "fs-match" if "fs-match" in REGISTRY else "fwa-official"
"""The scorer that runs fieldstudio's deterministic matchers without a judge (``fs-match`` once it is its own
scorer; before that ``fwa-official`` without a judge)."""
N_TASKS, N_UNSURE = 42, 11
UNSURE = "I am not sure"


def ground_truth(i: int) -> str:
    return "Yes" if i % 2 == 0 else "No"


def build(project) -> dict[str, object]:
    """Add the tasks and both sources; returns {"tasks": [task ids], "careful": run id, "guesser": run id}."""
    tasks = [add_task(project, f"1.{1 + i % 3}.{i:04d}", ground_truth(i), eval_func="fuzzy_match",
                      query=f"Is rule {i} followed?", answer_type="yes_no") for i in range(N_TASKS)]
    careful = add_run(project, "sample: careful", {t: (UNSURE if i < N_UNSURE else ground_truth(i))
                                                   for i, t in enumerate(tasks)})
    guesser = add_run(project, "sample: guesser", {t: "Yes" for t in tasks})
    return {"tasks": tasks, "careful": careful, "guesser": guesser}


JUDGE_MODEL = "judge-llm-1"


def add_judged_scores(project, ids: dict[str, object], scorer: str = "fwa-official") -> None:
    """Judged score rows written straight into the project for ``build``'s answers: a lenient judge
    (``JUDGE_MODEL``) that calls every answer correct (value 1), "I am not sure" included.

    By hand, against the deterministic matchers: careful's 31 right answers agree, its 11 hedges are left to
    the judge (no matcher decides them); guesser's "Yes" agrees on the 21 "Yes" tasks and is flagged on the
    21 "No" tasks (the matcher says incorrect)."""
    from fieldstudio.store.models import Answer, Score

    with project.write() as s:
        for run in (ids["careful"], ids["guesser"]):
            for a in s.query(Answer).filter(Answer.run_id == run):
                s.add(Score(answer_id=a.id, scorer=scorer, **scored_now(s, a.id, scorer), value=1.0, correct=True,
                            explanation="judge reply 'correct' -> 1",
                            judge={"model": JUDGE_MODEL, "profile": "lenient", "raw": "correct", "cost_usd": 0.001}))

CAREFUL_RUN_NAME, GUESSER_RUN_NAME = "sample: careful", "sample: guesser"
