"""The project's tables, as SQLAlchemy 2 ORM classes.

Identifiers are UUID4 hex strings (32 characters) so records made by different raters or machines merge
without collisions. Times are stored twice where they matter: the frame index (presentation order, as
ffmpeg's ``select=eq(n,N)`` counts) and the PTS in the stream's time base; seconds are derived from them.
Geometry is stored raw, in pixels of the upright full-resolution frame; calibrations are applied on read.
JSON columns hold small structured values (points, attributes, tolerances), never large blobs.

The schema is created by the Alembic migration ``0001_initial``; later changes add migrations
(``0002_judge_audit``: the judge audit's marks; ``0003_scorer_names``; ``0004_provider_batch``: the provider
batches of runs; ``0005_label_kinds_attributes``: each label's kinds and typed attributes;
``0006_shared_projects``: row versions, the change log, media roots; ``0007_score_hashes``: what each score
judged, by hash; ``0009_content_hashes``: the same hashes on the answer and task rows, ``store.content_hashes``;
``0010_ocr_words``: the words OCR read on scanned pages, ``media.document_ocr``; ``0011_score_currency``: a scoring's kept finding that every score is current, ``scoring.currency_records``; ``0012_judge_requests``: each
judge request that left this machine, ``inference.sent_log``).
Every type here is portable between SQLite and PostgreSQL (issue 22): ids are text, JSON is SQLAlchemy's
JSON (``json`` on PostgreSQL), times are timezone-aware ``DateTime`` (``timestamptz``), PTS and byte
sizes are 64-bit. Annotations, tasks and ratings carry a ``version`` (SQLAlchemy's version counter:
every UPDATE raises it and checks the value read) with ``updated_by``/``updated_at``, so an edit made
from a stale read is refused (``store.changes``).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from fieldstudio.store import content_hashes


BigInt = BigInteger().with_variant(Integer(), "sqlite")
"""A 64-bit integer: BIGINT on PostgreSQL; INTEGER on SQLite, which is 64-bit there (and so the tables made
before 0006_shared_projects match the models without being rebuilt)."""


def new_id() -> str:
    """A new UUID4 as 32 lowercase hex characters."""
    return uuid.uuid4().hex


def utcnow() -> datetime:
    """The current time in UTC (timezone-aware)."""
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of every fieldstudio table."""

    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class ProjectSetting(Base):
    """Key/value settings of the project (name, creation time, label colours)."""

    __tablename__ = "project_setting"
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON, nullable=True)


class Media(Base):
    """One image, video or document file.

    ``path`` is POSIX-style: relative to the folder this machine maps the named ``media_root`` to when
    set (``fieldstudio.media.roots``), else relative to the project file's folder when the file lies
    below it, absolute otherwise. ``width``/``height`` are upright pixels (EXIF orientation and video rotation
    applied). ``status`` is ``ok`` or ``unreadable`` (``error`` says why); an ``ok`` video with an ``error`` is
    damaged (media/damage.py: its frames that decode are usable, ``error`` says what the container promised and
    what decodes); a missing file is detected on read, not stored.
    """

    __tablename__ = "media"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    kind: Mapped[str] = mapped_column(String(16))  # image | video | document
    path: Mapped[str] = mapped_column(Text)
    file_name: Mapped[str] = mapped_column(Text, index=True)
    sha256: Mapped[str | None] = mapped_column(String(64), index=True)
    size_bytes: Mapped[int | None] = mapped_column(BigInt)
    status: Mapped[str] = mapped_column(String(16), default="ok")
    error: Mapped[str | None] = mapped_column(Text)
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    camera_group: Mapped[str | None] = mapped_column(String(200))
    media_root: Mapped[str | None] = mapped_column(String(100))  # named root ``path`` is relative to (media.roots)
    # images and videos
    width: Mapped[int | None] = mapped_column(Integer)
    height: Mapped[int | None] = mapped_column(Integer)
    format: Mapped[str | None] = mapped_column(String(32))
    orientation: Mapped[int | None] = mapped_column(Integer)  # EXIF orientation 1..8 as stored
    # videos
    codec: Mapped[str | None] = mapped_column(String(32))
    duration_s: Mapped[float | None] = mapped_column(Float)
    time_base_num: Mapped[int | None] = mapped_column(Integer)
    time_base_den: Mapped[int | None] = mapped_column(Integer)
    rotation: Mapped[int | None] = mapped_column(Integer)  # counter-clockwise degrees applied for display
    has_audio: Mapped[bool | None] = mapped_column(Boolean)
    is_vfr: Mapped[bool | None] = mapped_column(Boolean)
    frame_count: Mapped[int | None] = mapped_column(Integer)  # decoded frames; None until indexed
    avg_fps: Mapped[float | None] = mapped_column(Float)  # informational only, never used for time
    index_status: Mapped[str | None] = mapped_column(String(16))  # pending | packets | ready | failed
    # documents
    page_count: Mapped[int | None] = mapped_column(Integer)
    text_encoding: Mapped[str | None] = mapped_column(String(40))
    extra: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class FrameIndexRow(Base):
    """One decoded frame of a video: its index in presentation order and its PTS in the time base."""

    __tablename__ = "frame_index"
    media_id: Mapped[str] = mapped_column(ForeignKey("media.id", ondelete="CASCADE"), primary_key=True)
    frame_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    pts: Mapped[int] = mapped_column(BigInt)
    keyframe: Mapped[bool] = mapped_column(Boolean, default=False)


class DocumentPage(Base):
    """Text of one document page in reading order (ligatures expanded); ``needs_ocr`` if it has none."""

    __tablename__ = "document_page"
    media_id: Mapped[str] = mapped_column(ForeignKey("media.id", ondelete="CASCADE"), primary_key=True)
    page_number: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0-based
    text: Mapped[str] = mapped_column(Text, default="")
    needs_ocr: Mapped[bool] = mapped_column(Boolean, default=False)
    # what read ``text`` from the page's pixels ("rapidocr 3.10.0 PP-OCRv6 small"); NULL: the text layer's text
    ocr_engine: Mapped[str | None] = mapped_column(String(120), nullable=True, default=None)


class OcrWord(Base):
    """One word OCR read on a document page, in reading order, with its box in PDF points of the displayed page.

    One row per word rather than a JSON list per page: a scanned manual holds thousands of words, and the JSON
    columns here keep small values only. ``score`` is the recogniser's confidence (0-1).
    """

    __tablename__ = "ocr_word"
    media_id: Mapped[str] = mapped_column(ForeignKey("media.id", ondelete="CASCADE"), primary_key=True)
    page_number: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0-based
    position: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0-based, reading order on the page
    text: Mapped[str] = mapped_column(Text)
    score: Mapped[float] = mapped_column(Float)
    x0: Mapped[float] = mapped_column(Float)
    y0: Mapped[float] = mapped_column(Float)
    x1: Mapped[float] = mapped_column(Float)
    y1: Mapped[float] = mapped_column(Float)


class Thumbnail(Base):
    """A small JPEG preview of a media (first frame or page), longest side ``THUMB_SIDE`` pixels."""

    __tablename__ = "thumbnail"
    media_id: Mapped[str] = mapped_column(ForeignKey("media.id", ondelete="CASCADE"), primary_key=True)
    frame_index: Mapped[int] = mapped_column(Integer, primary_key=True, default=0)
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    jpeg: Mapped[bytes] = mapped_column(LargeBinary)


class Label(Base):
    """A label of the project's label set (e.g. person, forklift) with its display colour."""

    __tablename__ = "label"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    color: Mapped[str] = mapped_column(String(9), default="#ff8800")
    shortcut: Mapped[int | None] = mapped_column(Integer)  # 1..9, unique among labels sharing a kind
    # the kinds of mark ("box", "ruler", "segment", "event", "tag") whose label list offers it; None: all
    kinds: Mapped[list[Any] | None] = mapped_column(JSON)
    # typed attributes of the boxes carrying it: [{"name", "type": bool|choice|number|text, "choices"}]
    attributes: Mapped[list[Any] | None] = mapped_column(JSON)


class Calibration(Base):
    """A calibration stored raw and applied on read.

    ``kind`` is ``scale`` (``points`` = two image points over an object of ``length_m`` metres) or
    ``floor`` (``points`` = four image points of a floor rectangle ``width_m`` x ``depth_m``).
    It applies to one media (``media_id``) or to every media of a ``camera_group``. ``check_length``: the
    independent check a person made, ``{"p": [x, y], "q": [x, y], "known_m": m}`` (None without one).
    """

    __tablename__ = "calibration"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    media_id: Mapped[str | None] = mapped_column(ForeignKey("media.id", ondelete="CASCADE"), index=True)
    camera_group: Mapped[str | None] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    points: Mapped[list[Any]] = mapped_column(JSON)
    length_m: Mapped[float | None] = mapped_column(Float)
    width_m: Mapped[float | None] = mapped_column(Float)
    depth_m: Mapped[float | None] = mapped_column(Float)
    check_length: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Annotation(Base):
    """A box, ruler, polygon, polyline, points mark, segment, event or tag on a media.

    ``geometry``: box ``[x1, y1, x2, y2]``, ruler ``[[x1, y1], [x2, y2]]``, polygon / polyline / points
    ``[[x, y], ...]`` in upright image pixels;
    None for segments, events and tags. Video annotations carry ``frame_index`` and ``pts`` (and
    ``end_frame_index``/``end_pts`` for segments). A tag without a frame applies to the whole media.
    ``deleted`` marks a soft delete so that undo restores the same row.
    """

    __tablename__ = "annotation"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    media_id: Mapped[str] = mapped_column(ForeignKey("media.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # box | ruler | polygon | polyline | points | segment | event | tag
    label_id: Mapped[str | None] = mapped_column(ForeignKey("label.id", ondelete="SET NULL"))
    text: Mapped[str | None] = mapped_column(Text)  # tag text, free note
    frame_index: Mapped[int | None] = mapped_column(Integer)
    pts: Mapped[int | None] = mapped_column(BigInt)
    end_frame_index: Mapped[int | None] = mapped_column(Integer)
    end_pts: Mapped[int | None] = mapped_column(BigInt)
    geometry: Mapped[list[Any] | None] = mapped_column(JSON)
    attributes: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    track_id: Mapped[int | None] = mapped_column(Integer)
    is_keyframe: Mapped[bool] = mapped_column(Boolean, default=True)
    on_floor: Mapped[bool] = mapped_column(Boolean, default=False)  # ruler measured on the floor plane
    author: Mapped[str | None] = mapped_column(String(200))
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    updated_by: Mapped[str | None] = mapped_column(String(200))

    __table_args__ = (Index("ix_annotation_media_frame", "media_id", "frame_index"),)
    __mapper_args__ = {"version_id_col": version}


class Task(Base):
    """A question over media with its answer type and ground truth.

    ``external_id`` is the benchmark's id (e.g. ``2.1.0001``); ``source`` names where it came from
    (``fieldworkarena``, ``industryeqa``, ``openeqa``, ``csv``, ``manual``). ``ground_truth`` is the
    text a scorer compares with; ``ground_truth_annotation_id`` links it to an annotation that
    computes it. ``tolerances`` holds e.g. ``{"r_th": 0.5, "T_th": 60}``.
    """

    __tablename__ = "task"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    external_id: Mapped[str | None] = mapped_column(String(200), index=True)
    source: Mapped[str] = mapped_column(String(40), default="manual")
    query: Mapped[str] = mapped_column(Text)
    answer_type: Mapped[str] = mapped_column(String(32), default="free_text")
    ground_truth: Mapped[str | None] = mapped_column(Text)
    ground_truth_extra: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    ground_truth_annotation_id: Mapped[str | None] = mapped_column(
        ForeignKey("annotation.id", ondelete="SET NULL")
    )
    eval_func: Mapped[str | None] = mapped_column(String(40))
    output_format: Mapped[str | None] = mapped_column(String(16))
    category: Mapped[str | None] = mapped_column(String(100), index=True)
    sub_category: Mapped[str | None] = mapped_column(String(100))
    scenario: Mapped[str | None] = mapped_column(String(40))  # factory | warehouse | retail | other
    tolerances: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    notes: Mapped[str | None] = mapped_column(Text)
    missing_media: Mapped[bool] = mapped_column(Boolean, default=False)
    extra: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    updated_by: Mapped[str | None] = mapped_column(String(200))
    truth_sha256: Mapped[str | None] = mapped_column(String(64))  # store.content_hashes; kept by every write

    # the scoring's test of which scores still stand reads a task's hash from this index alone (scoring.currency)
    __table_args__ = (UniqueConstraint("source", "external_id", name="uq_task_source_external"),
                      Index("ix_task_truth", "id", "truth_sha256"))
    __mapper_args__ = {"version_id_col": version}


class TaskInput(Base):
    """One input of a task: a media (or a name not yet matched to a media) with an optional time range."""

    __tablename__ = "task_input"
    task_id: Mapped[str] = mapped_column(ForeignKey("task.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    media_id: Mapped[str | None] = mapped_column(ForeignKey("media.id", ondelete="SET NULL"))
    start_s: Mapped[float | None] = mapped_column(Float)
    end_s: Mapped[float | None] = mapped_column(Float)


class RatingSet(Base):
    """A named queue of items to rate against a written requirement.

    ``reasons``: the reason checklist (list of str). ``fields``: documentation fields, each
    ``{"name", "type": number|text|choice|yes_no, "unit", "tolerance", "choices"}``.
    """

    __tablename__ = "rating_set"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    requirement: Mapped[str] = mapped_column(Text, default="")
    reasons: Mapped[list[Any]] = mapped_column(JSON, default=list)
    fields: Mapped[list[Any]] = mapped_column(JSON, default=list)
    rules: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingItem(Base):
    """One photo, or one exact video frame, in a rating set, with its content hash and known ground truth."""

    __tablename__ = "rating_item"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    rating_set_id: Mapped[str] = mapped_column(ForeignKey("rating_set.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    media_id: Mapped[str | None] = mapped_column(ForeignKey("media.id", ondelete="SET NULL"))
    frame_index: Mapped[int | None] = mapped_column(Integer)
    sha256: Mapped[str | None] = mapped_column(String(64))
    ground_truth: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class Rating(Base):
    """One rater's verdict (accept, reject, unsure) on one item, with reasons and documentation fields."""

    __tablename__ = "rating"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    item_id: Mapped[str] = mapped_column(ForeignKey("rating_item.id", ondelete="CASCADE"), index=True)
    rater: Mapped[str] = mapped_column(String(200))
    verdict: Mapped[str] = mapped_column(String(8))  # accept | reject | unsure
    reasons: Mapped[list[Any]] = mapped_column(JSON, default=list)
    fields: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    seconds_spent: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    updated_by: Mapped[str | None] = mapped_column(String(200))

    __table_args__ = (UniqueConstraint("item_id", "rater", name="uq_rating_item_rater"),)
    __mapper_args__ = {"version_id_col": version}


class ModelProfile(Base):
    """A copy of a model profile's parameters as used by a run. Never holds an API key."""

    __tablename__ = "model_profile"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200))
    base_url: Mapped[str | None] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(String(200))
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Run(Base):
    """One answer source: a model over a set of tasks with one prompt strategy, or imported answers."""

    __tablename__ = "run"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16), default="model")  # model | import | scorer
    profile_id: Mapped[str | None] = mapped_column(ForeignKey("model_profile.id", ondelete="SET NULL"))
    strategy: Mapped[str | None] = mapped_column(String(60))
    strategy_version: Mapped[str | None] = mapped_column(String(20))
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Answer(Base):
    """One source's reply to one task. Token counts are None when the endpoint did not report them."""

    __tablename__ = "answer"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    run_id: Mapped[str] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    task_id: Mapped[str] = mapped_column(ForeignKey("task.id", ondelete="CASCADE"), index=True)
    raw_text: Mapped[str | None] = mapped_column(Text)
    parsed: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    prompt_tokens: Mapped[int | None] = mapped_column(Integer)
    completion_tokens: Mapped[int | None] = mapped_column(Integer)
    reasoning_tokens: Mapped[int | None] = mapped_column(Integer)
    cached_tokens: Mapped[int | None] = mapped_column(Integer)
    latency_s: Mapped[float | None] = mapped_column(Float)
    cost_usd: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(Text)
    retries: Mapped[int] = mapped_column(Integer, default=0)
    from_cache: Mapped[bool] = mapped_column(Boolean, default=False)
    frames: Mapped[list[Any] | None] = mapped_column(JSON)  # [{media_id, frame_index, pts_s, sha256}]
    trace: Mapped[list[Any] | None] = mapped_column(JSON)  # agent steps
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    content_sha256: Mapped[str | None] = mapped_column(String(64))  # store.content_hashes; kept by every write

    # the scoring's test of which scores still stand reads an answer's hash, run and task from this index alone,
    # without the row (scoring.currency)
    __table_args__ = (UniqueConstraint("run_id", "task_id", name="uq_answer_run_task"),
                      Index("ix_answer_content", "id", "content_sha256", "run_id", "task_id"))


class ProviderBatch(Base):
    """One batch of a run's requests sent through a provider's Batch API, or written to a file for ``vllm run-batch``.

    ``kind`` is ``api`` (uploaded: ``input_file_id``, ``provider_batch_id``, later ``output_file_id`` and
    ``error_file_id``) or ``file`` (written to ``path``; its output is imported by hand). ``answer_ids`` lists
    the answers whose requests it holds (each line's ``custom_id`` is the answer id); ``requests`` keeps, per
    answer id, the frames sent and the request's trace entry until the reply is imported (loaded only when
    asked for: it can be large). ``status`` is the
    provider's (``validating``, ``in_progress``, ``finalizing``, ``completed``, ``failed``, ``expired``,
    ``cancelling``, ``cancelled``) or ours before and after it: ``submitting`` (recorded before the batch is
    created, so an interrupted submission is found again), ``written`` (a file batch) and ``abandoned``.
    A batch is open until ``imported_at`` is set: its answers are never sent again meanwhile.
    ``request_counts`` is the provider's ``{total, completed, failed}``.
    """

    __tablename__ = "provider_batch"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    run_id: Mapped[str] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16), default="api")  # api | file
    provider_batch_id: Mapped[str | None] = mapped_column(String(200))
    input_file_id: Mapped[str | None] = mapped_column(String(200))
    output_file_id: Mapped[str | None] = mapped_column(String(200))
    error_file_id: Mapped[str | None] = mapped_column(String(200))
    path: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(32), default="submitting")
    answer_ids: Mapped[list[Any]] = mapped_column(JSON)
    requests: Mapped[dict[str, Any] | None] = mapped_column(JSON, deferred=True)
    request_counts: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    imported_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Score(Base):
    """One scorer's value for one answer, with its explanation and, for a judge, its raw verdict text.

    A person's override is a new row with ``overrides_id`` pointing at the row it replaces and a
    ``reason``; the history is the chain of rows. ``answer_sha256``, ``truth_sha256`` and ``scorer_sha256``
    are the SHA-256 of what it judged (``scoring.staleness``), ``judged_truth`` the reference text it judged;
    NULL hashes (rows from before ``0007_score_hashes``) read as stale.
    """

    __tablename__ = "score"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    answer_id: Mapped[str] = mapped_column(ForeignKey("answer.id", ondelete="CASCADE"), index=True)
    scorer: Mapped[str] = mapped_column(String(60))
    scorer_version: Mapped[str] = mapped_column(String(20))
    value: Mapped[float | None] = mapped_column(Float)
    correct: Mapped[bool | None] = mapped_column(Boolean)
    explanation: Mapped[str | None] = mapped_column(Text)
    judge: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # model, params, seed, raw text, cost
    author: Mapped[str | None] = mapped_column(String(200))
    reason: Mapped[str | None] = mapped_column(Text)
    overrides_id: Mapped[str | None] = mapped_column(ForeignKey("score.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    answer_sha256: Mapped[str | None] = mapped_column(String(64))
    truth_sha256: Mapped[str | None] = mapped_column(String(64))
    scorer_sha256: Mapped[str | None] = mapped_column(String(64))
    judged_truth: Mapped[str | None] = mapped_column(Text)


class ScoreCurrency(Base):
    """A scoring's finding that every answer it covers had a current score, kept until the answers, the tasks
    or the scores change (``scoring.currency_records``; issue 37 item 4).

    ``selection``: SHA-256 of what the scoring covered (scorer, version, parameters, runs, judge or not,
    fieldstudio's version); ``generation``: the project's write generation then (``store.write_generation``);
    ``answer_rows``, ``task_rows``, ``score_rows``: the three tables' row counts then (an insert raises one);
    ``counts``: the scoring's counts (``ScoringReport`` fields). Updates and deletes of those tables are caught
    by triggers (migration ``0011_score_currency``), inserts by the row counts.
    """

    __tablename__ = "score_currency"
    selection: Mapped[str] = mapped_column(String(64), primary_key=True)
    generation: Mapped[int] = mapped_column(BigInteger)
    answer_rows: Mapped[int] = mapped_column(BigInteger)
    task_rows: Mapped[int] = mapped_column(BigInteger)
    score_rows: Mapped[int] = mapped_column(BigInteger)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class JudgeAuditMark(Base):
    """A person's verdict on one judged score (the judge audit, issue 18 §5): was the answer correct?

    ``judge_correct`` and ``judge_model`` are copied from the score when it is marked, so the agreement
    stays what the person saw even after the answer is scored again. One mark per score and person.
    Added by migration ``0002_judge_audit``.
    """

    __tablename__ = "judge_audit"
    __table_args__ = (UniqueConstraint("score_id", "auditor", name="uq_judge_audit_score_auditor"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    score_id: Mapped[str] = mapped_column(ForeignKey("score.id", ondelete="CASCADE"), index=True)
    answer_id: Mapped[str] = mapped_column(ForeignKey("answer.id", ondelete="CASCADE"), index=True)
    scorer: Mapped[str] = mapped_column(String(60))
    judge_model: Mapped[str | None] = mapped_column(String(200))
    judge_correct: Mapped[bool] = mapped_column(Boolean)
    person_correct: Mapped[bool] = mapped_column(Boolean)
    auditor: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ResponseCache(Base):
    """Model responses keyed by a hash of profile parameters, strategy version, prompt and frame hashes."""

    __tablename__ = "response_cache"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class JudgeRequest(Base):
    """One judge request (scoring) that reached its endpoint: text only, never a frame (issue 34, "What left this
    machine"). Appended by the scoring writer (`scoring.store`) in the transaction of the scores it served, and
    never updated: re-scoring or clearing the response cache leaves the record. A reply from the response cache
    sent nothing and has no row; a call that could not connect has none either.

    ``endpoint`` is the profile's masked base URL (no secret), ``characters`` the prompt and system text sent.
    Added by migration ``0012_judge_requests``.
    """

    __tablename__ = "judge_request"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    endpoint: Mapped[str] = mapped_column(Text)
    profile: Mapped[str] = mapped_column(String(200))
    model: Mapped[str] = mapped_column(String(200))
    scorer: Mapped[str] = mapped_column(String(60))
    characters: Mapped[int] = mapped_column(Integer)


class ChangeLog(Base):
    """One committed change of an annotation, task or rating, in commit order (``seq``).

    Written by the write path (``store.changes``) in the same transaction as the change; an open window
    polls for rows above the last ``seq`` it saw. A rating's row names the rating and its set only, never
    the verdict, so a rater's window learns nothing of others' verdicts from it.
    """

    __tablename__ = "change_log"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_name: Mapped[str] = mapped_column(String(40))
    row_id: Mapped[str] = mapped_column(String(32))
    media_id: Mapped[str | None] = mapped_column(String(32))
    rating_set_id: Mapped[str | None] = mapped_column(String(32))
    action: Mapped[str] = mapped_column(String(8))  # insert | update | delete
    changed_by: Mapped[str | None] = mapped_column(String(200))
    changed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# the hashes a score is compared with, kept in step with every flush (schema 0009_content_hashes)
content_hashes.listen(Answer, Task)
