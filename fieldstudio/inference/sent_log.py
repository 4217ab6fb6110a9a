"""What left this machine: per endpoint and day, the frames and documents sent in model requests and whether the
frames were redacted by the privacy gate.

Read from what each answer keeps (`inference.runs.queue`): its ``frames`` (one record per frame sent, with the
request it went in and, when the gate blurred it, ``redaction``: the boxes and the detector's version), its
``trace`` (per request: the profile it went to and whether the response cache answered it, in which case nothing
left), and its task's document inputs (sent as their text; never redacted). The endpoint is the profile's base URL
as the run copied it (masked, never a secret): the run's profile, or the vision profile of an agent run.
Judge calls (scoring) send answer and reference texts, never a frame: each one that reached its endpoint is a
``judge_request`` row (`scoring.judging.JudgeCaller`), counted per endpoint and day as judge requests and the
characters of text sent.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from fieldstudio.store.models import Answer, JudgeRequest, Media, ModelProfile, Run, TaskInput
from fieldstudio.store.project import Project


@dataclass
class SentDay:
    """What went to one endpoint on one day (UTC).

    Attributes:
        endpoint: the base URL (masked); profiles: the profile names that sent to it.
        day: ``YYYY-MM-DD`` (UTC) of the answers.
        requests: requests that reached the endpoint (answers from the response cache do not count).
        frames: frames sent; frames_blurred: of those, how many went through the ``blur-faces`` gate;
            faces_blurred: the boxes blurred in them; frames_unredacted = frames - frames_blurred.
        documents: documents sent as text (never redacted).
        judge_requests: judge requests (scoring: text only) that reached the endpoint; judge_characters: the
            characters of prompt and system text they sent.
        detectors: the face detector versions that made the boxes.
        runs: the runs (names) that sent.
    """

    endpoint: str
    day: str
    profiles: set[str] = field(default_factory=set)
    requests: int = 0
    frames: int = 0
    frames_blurred: int = 0
    faces_blurred: int = 0
    documents: int = 0
    judge_requests: int = 0
    judge_characters: int = 0
    detectors: set[str] = field(default_factory=set)
    runs: set[str] = field(default_factory=set)

    @property
    def frames_unredacted(self) -> int:
        return self.frames - self.frames_blurred

    @property
    def redacted(self) -> str:
        """``all``, ``none``, ``some`` (frames blurred), or ``no frames``."""
        if not self.frames:
            return "no frames"
        return "all" if self.frames_blurred == self.frames else ("none" if not self.frames_blurred else "some")

    def as_dict(self) -> dict[str, Any]:
        """The row as plain JSON values (sets as sorted lists, with ``frames_unredacted`` and ``redacted``)."""
        return {"endpoint": self.endpoint, "day": self.day, "profiles": sorted(self.profiles),
                "requests": self.requests, "frames": self.frames, "frames_blurred": self.frames_blurred,
                "frames_unredacted": self.frames_unredacted, "faces_blurred": self.faces_blurred,
                "documents": self.documents, "judge_requests": self.judge_requests,
                "judge_characters": self.judge_characters, "redacted": self.redacted,
                "detectors": sorted(self.detectors),
                "runs": sorted(self.runs)}


def what_left(project: Project) -> list[SentDay]:
    """Per endpoint and day (newest day first, then endpoint), what the project's model runs and judge calls
    sent. Reads only."""
    with project.read() as s:
        rows = s.execute(
            select(Answer.task_id, Answer.frames, Answer.trace, Answer.created_at, Run.name, Run.params,
                   ModelProfile.name, ModelProfile.base_url)
            .join(Run, Run.id == Answer.run_id).outerjoin(ModelProfile, ModelProfile.id == Run.profile_id)
            .where(Run.kind == "model", Answer.trace.is_not(None))).all()
        documents: dict[str, int] = defaultdict(int)
        for task_id, in s.execute(select(TaskInput.task_id).join(Media, Media.id == TaskInput.media_id)
                                  .where(Media.kind == "document")):
            documents[task_id] += 1
        judged = s.execute(select(JudgeRequest.endpoint, JudgeRequest.profile, JudgeRequest.sent_at,
                                  JudgeRequest.characters)).all()
    days: dict[tuple[str, str], SentDay] = {}
    for endpoint, profile, sent_at, characters in judged:
        row = _row(days, endpoint, sent_at.strftime("%Y-%m-%d") if sent_at else "unknown")
        row.judge_requests += 1
        row.judge_characters += characters
        row.profiles.add(profile)
    for task_id, frames, trace, created, run_name, params, profile_name, base_url in rows:
        endpoints = {profile_name: base_url or "?"}
        vision = (params or {}).get("vision_profile") or {}
        if vision.get("name"):
            endpoints[vision["name"]] = vision.get("base_url") or "?"
        requests = [t for t in trace or [] if isinstance(t, dict) and t.get("type") == "request"]
        day = created.strftime("%Y-%m-%d") if created else "unknown"
        sent_first = None
        for position, request in enumerate(requests):
            if request.get("from_cache"):
                continue
            row = _row(days, endpoints.get(request.get("profile"), base_url or "?"), day)
            row.requests += 1
            row.profiles.add(str(request.get("profile")))
            row.runs.add(run_name)
            sent_first = row if sent_first is None else sent_first
            for frame in frames or []:
                if frame.get("request", 0) != position:
                    continue
                row.frames += 1
                redaction = frame.get("redaction")
                if redaction and redaction.get("gate") == "blur-faces":
                    row.frames_blurred += 1
                    row.faces_blurred += len(redaction.get("boxes") or [])
                    row.detectors.add(str(redaction.get("detector")))
        if sent_first is not None:          # a document's text goes in the answer's first request that left
            sent_first.documents += documents.get(task_id, 0)
    return sorted(days.values(), key=lambda r: (_neg_day(r.day), r.endpoint))


def _row(days: dict[tuple[str, str], SentDay], endpoint: str, day: str) -> SentDay:
    key = (endpoint, day)
    if key not in days:
        days[key] = SentDay(endpoint, day)
    return days[key]


def _neg_day(day: str) -> tuple[int, ...]:
    return tuple(-int(p) for p in day.split("-")) if day[:1].isdigit() else (1,)
