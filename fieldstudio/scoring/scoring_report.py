"""``ScoringReport``: what one ``score_answers`` call did, counted while the answers are scored."""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["ScoringReport", "reason_head"]


@dataclass
class ScoringReport:
    """What ``score_answers`` did.

    ``answers``: answers considered; ``scored``: rows with a value; ``unscored``: rows without (reasons
    counted in ``unscored_reasons``, shortened to their first clause); ``failed_answers``: answers whose
    model call failed; ``kept_overrides``: answers left alone because a person set their score;
    ``kept_judged``: judged values kept by a run without a judge; ``current``: answers whose score in force
    still stands (it judged this answer, ground truth and scorer: not scored again, counted in ``scored`` /
    ``unscored`` / ``kept_overrides`` by that row); ``stale``: answers scored again because their score no longer
    stood (``scoring.staleness``); ``written``: rows inserted or updated;
    ``judge_calls`` / ``judge_cache_hits``: model requests made / answered from the cache;
    ``judge_cost_usd``: cost of the requests made (None when unknown for any of them, see
    ``judge_cost_complete``); ``judge_failed``: answers whose judge call failed or whose reply could not
    be used (not cached: asked again next time); ``prompt_source``: where the judge prompts came from
    (the benchmark's files with their versions and fingerprints, or fieldstudio's own templates);
    ``judge_settings``: the settings the judge was asked with (``JudgeSettings.describe``), and
    ``official_model`` the benchmark's own judge model when it differs from the one asked;
    ``per_run``: run id -> (scored, unscored); ``never_sent``: answers of the runs left out because a run stopped
    before asking them (pending: not scored, missing in the summaries; ``store.sent_only``).
    """

    scorer: str
    version: str
    answers: int = 0
    scored: int = 0
    unscored: int = 0
    failed_answers: int = 0
    kept_overrides: int = 0
    kept_judged: int = 0
    current: int = 0
    stale: int = 0
    written: int = 0
    judge: str | None = None
    judge_calls: int = 0
    judge_cache_hits: int = 0
    judge_cost_usd: float | None = None
    judge_cost_complete: bool = True
    cancelled: bool = False
    judge_failed: int = 0
    prompt_source: str | None = None
    judge_settings: str | None = None
    official_model: str | None = None
    unscored_reasons: Counter = field(default_factory=Counter)
    per_run: dict[str, list[int]] = field(default_factory=dict)
    never_sent: int = 0

    @property
    def currency_text(self) -> str:
        """'; 812 already current (not scored again), 12 stale scored again' (empty when neither happened): what
        both fronts print after the counts."""
        parts = ([f"{self.current} already current (not scored again)"] if self.current else []) + \
            ([f"{self.stale} stale scored again"] if self.stale else [])
        return ("; " + ", ".join(parts)) if parts else ""



@functools.lru_cache(maxsize=4096)
def reason_head(text: str) -> str:
    """The key of ``ScoringReport.unscored_reasons``: an explanation's first clause."""
    return re.split(r"[:;(]", text or "unscored", maxsplit=1)[0].strip() or "unscored"

