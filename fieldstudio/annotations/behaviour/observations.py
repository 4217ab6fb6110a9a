"""An observation in BORIS's sense, one video's behaviour events, read for both fronts: the time budget over the
observed interval, two coders compared, and the events written to or read from BORIS's and ELAN's files.

The CLI (``fieldstudio ethogram ...``) and the window (Annotate ▸ Ethogram…, the Behaviour dock, Compare
coders…) call these functions and nothing else. Errors: NotFound (media), FieldstudioError (the reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import (boris_tabular, coder_agreement, elan_text, state_overlap, store_rule,
                                               time_budget)
from fieldstudio.annotations.behaviour import ethogram as eth
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.media import library
from fieldstudio.media.video_index import first_frame_seconds, load_frame_table
from fieldstudio.store.edits import Edit, EditGroup
from fieldstudio.store.project import Project

EXPORT_FORMATS = ("boris-csv", "boris-tsv", "boris-xlsx", "elan")


@dataclass(frozen=True)
class Budget:
    """The time budget of one video: ``rows``, the observed interval in seconds and whose events it counts."""

    media_name: str
    start_s: float
    end_s: float
    coder: str | None
    rows: tuple[time_budget.BudgetRow, ...]


def observed_interval(project: Project, media_id: str, start_s: float | None = None,
                      end_s: float | None = None) -> tuple[float, float]:
    """``(start_s, end_s)``: the chosen interval, the media's duration filling what is not chosen (seconds after
    the first frame; from the frame table's last frame when the duration is unknown). Raises FieldstudioError
    when neither is known."""
    media = library.find_media(project, media_id)
    end = end_s
    if end is None:
        end = media.duration_s
        if end is None:
            table = load_frame_table(project, media)
            if table is None or not len(table):
                raise FieldstudioError(f"{media.file_name}: its duration is unknown; give the interval's end")
            end = table.seconds(len(table) - 1) - table.seconds(0)
    return (0.0 if start_s is None else start_s), end


def one_coder(project: Project, media_id: str, file_name: str, coder: str | None) -> str | None:
    """The coder whose record to read: ``coder``, or the video's only coder when None (None when there is none).
    Raises FieldstudioError naming the coders when ``coder`` coded nothing here, or when it is None and several
    did: their records are never added together (two coders' states would overlap, and BORIS pairs START and STOP
    within one observation)."""
    known = events.coders(project, media_id)
    if coder is None:
        if len(known) > 1:
            raise FieldstudioError(f"{file_name}: {len(known)} coders recorded events ({', '.join(known)}); "
                                   "choose one coder")
        return known[0] if known else None
    if coder not in known:
        raise FieldstudioError(f"{file_name}: no events coded by {coder!r}; coders: {', '.join(known) or 'none'}")
    return coder


def budget(project: Project, media_ref: str, *, start_s: float | None = None, end_s: float | None = None,
           coder: str | None = None) -> Budget:
    """The time budget of ``media_ref``'s events, one coder's (``coder``, or the only coder: see
    :func:`one_coder`, whose refusals it raises) over the observed interval."""
    media = library.find_media(project, media_ref)
    coder = one_coder(project, media.id, media.file_name, coder)
    start, end = observed_interval(project, media.id, start_s, end_s)
    order = [b.name for b in eth.load(project).behaviours]
    rows = time_budget.time_budget(events.list_events(project, media.id, coder=coder), start, end, order)
    return Budget(media.file_name, start, end, coder, tuple(rows))


@dataclass(frozen=True)
class CoderComparison:
    """Coder ``a`` against coder ``b`` on one video: ``kappa`` per time slice and events ``matched``."""

    media_name: str
    coder_a: str
    coder_b: str
    kappa: coder_agreement.KappaResult
    matched: coder_agreement.MatchResult
    identity: float | None = None

    def lines(self) -> list[str]:
        """The result as the CLI prints it and the window shows it, one line each."""
        k, m = self.kappa, self.matched
        out = [f"{self.media_name}: {self.coder_a} (A) against {self.coder_b} (B)",
               f"Cohen's kappa (time slice {k.slice_s:g} s): K = {k.kappa:.3f}  "
               f"({k.slices} slice(s) from {k.first_s:.3f} s to {k.last_s:.3f} s, {k.n} cell(s), "
               f"{k.agreements} agree, {k.expected:.2f} by chance)",
               "Needleman-Wunsch identity (same slices): " + (
                   f"{self.identity:.3f} %" if self.identity is not None else
                   f"not computed (over {coder_agreement.MAX_ALIGNED_SLICES:,} slices: choose a longer slice)"),
               f"events matched within {m.tolerance_s:g} s: {len(m.pairs)} matched, {len(m.only_a)} only in A, "
               f"{len(m.only_b)} only in B; agreement {100 * m.agreement:.1f} %"]
        for a, b, diff in m.pairs:
            out.append(f"  = {a.subject or '-'} {a.behaviour}  {a.start_s:.3f} s / {b.start_s:.3f} s ({diff:+.3f} s)")
        for tag, left in (("A", m.only_a), ("B", m.only_b)):
            for e in left:
                out.append(f"  only {tag}: {e.subject or '-'} {e.behaviour}  {e.start_s:.3f} s")
        return out


def compare_coders(project: Project, media_ref: str, coder_a: str, coder_b: str, *, slice_s: float = 1.0,
                   tolerance_s: float = 1.0, with_modifiers: bool = False) -> CoderComparison:
    """Cohen's kappa and the Needleman-Wunsch identity per ``slice_s``, and event matching within ``tolerance_s``,
    of two coders' events on one video (:mod:`coder_agreement`). Raises FieldstudioError naming the coders there are when one has no events."""
    media = library.find_media(project, media_ref)
    for who in (coder_a, coder_b):
        one_coder(project, media.id, media.file_name, who)
    a = events.list_events(project, media.id, coder=coder_a)
    b = events.list_events(project, media.id, coder=coder_b)
    return CoderComparison(media.file_name, coder_a, coder_b,
                           coder_agreement.cohen_kappa(a, b, slice_s, with_modifiers=with_modifiers),
                           coder_agreement.match_events(a, b, tolerance_s),
                           coder_agreement.needleman_wunsch_identity(a, b, slice_s, with_modifiers=with_modifiers))


def export_events(project: Project, media_ref: str, path: Path, fmt: str, *, coder: str | None = None) -> tuple[int, int]:
    """Write ``media_ref``'s events, one coder's (``coder``, or the only coder: see :func:`one_coder`, whose
    refusals it raises), to ``path`` as ``fmt`` (one of :data:`EXPORT_FORMATS`); returns (events written, running
    states left out)."""
    if fmt not in EXPORT_FORMATS:
        raise FieldstudioError(f"format {fmt!r}: choose one of {', '.join(EXPORT_FORMATS)}")
    media = library.find_media(project, media_ref)
    coder = one_coder(project, media.id, media.file_name, coder)
    evs = events.list_events(project, media.id, coder=coder)
    if fmt == "elan":
        Path(path).write_text(elan_text.elan_text(evs), encoding="utf-8")
        return sum(not e.is_open for e in evs), sum(e.is_open for e in evs)
    if fmt == "boris-xlsx":
        rows, running = boris_tabular.import_sheet_rows(evs)
        boris_tabular.write_import_sheet(Path(path).with_suffix(".xlsx"), rows)
        return len(evs) - running, running
    duration = media.duration_s if media.duration_s is not None else observed_interval(project, media.id)[1]
    rows, running = boris_tabular.tabular_rows(evs, file_name=media.file_name, duration_s=duration,
                                               fps=media.avg_fps, description=f"coded by {coder}" if coder else "")
    path = Path(path)
    if fmt == "boris-tsv" and path.suffix.lower() not in (".tsv", ".tab", ".txt"):
        path = path.with_suffix(".tsv")
    boris_tabular.write_tabular(path, rows)
    return len(evs) - running, running


@dataclass
class EventImport:
    """What an import of events would store: ``edit`` (one undo step: the events and the ethogram's new
    entries), how many ``events`` (``already``: as many left out, being in the project already), the behaviours and subjects it adds to the ethogram, and ``problems``."""

    edit: Edit | None
    events: int = 0
    already: int = 0
    new_behaviours: list[str] = field(default_factory=list)
    new_subjects: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The import report, one line each."""
        out = [f"{self.events} event(s) imported"]
        if self.already:
            out.append(f"already in the project: {self.already} event(s)")
        if self.new_behaviours:
            out.append(f"added to the ethogram (no key yet): {', '.join(self.new_behaviours)}")
        if self.new_subjects:
            out.append(f"subjects added: {', '.join(self.new_subjects)}")
        return out + self.problems


def _identity(subject: str, behaviour: str, start: int, stop: int | None, modifiers) -> tuple:  # noqa: ANN001
    """What makes two events of one coder on one video the same event."""
    return subject, behaviour, start, stop, tuple(sorted(modifiers))


def import_events(project: Project, media_ref: str, path: Path, *, coder: str,
                  progress: Callable[[int, int], None] | None = None) -> EventImport:
    """Read BORIS's tabular events from ``path`` and build the edit storing them on ``media_ref`` as ``coder``'s
    (not applied: the caller applies it, the window on its undo stack). Behaviours and subjects the ethogram lacks
    are added to it. An event already stored (same subject, behaviour, frames and modifiers by ``coder``) is not
    added again; a state overlapping ``coder``'s record (:mod:`state_overlap`) is not stored, and its line is
    reported. Raises FieldstudioError for a file that is not BORIS's tabular events."""
    media = library.find_media(project, media_ref)
    parsed = boris_tabular.read_tabular(Path(path))
    table = load_frame_table(project, media)
    if table is None or not len(table):
        raise FieldstudioError(f"{media.file_name}: its frame index is not built yet; index the video first")
    origin = first_frame_seconds(project, media.id) or 0.0
    last = len(table) - 1

    end_s = table.seconds(last) - origin  # the last frame's time, seconds after the first frame
    step_s = end_s / last if last else 0.0
    past_end: list[str] = []

    def frame_of(seconds: float, given: int | None, what: str) -> int:
        if given is not None and 0 <= given <= last:
            return given
        if seconds > end_s + step_s:  # beyond the video: the event is put on its last frame, and the report says so
            past_end.append(f"{what} at {seconds:.3f} s is past the video's end ({end_s:.3f} s): put on its last "
                            f"frame {last}")
        return table.index_at(seconds + origin)

    ethogram = eth.load(project)
    report = EventImport(edit=None, problems=list(parsed.problems))
    known_b = {b.name for b in ethogram.behaviours}
    known_s = {s.name for s in ethogram.subjects}
    edits: list[Edit] = []
    recorded = events.list_events(project, media.id, coder=coder)
    stored = {_identity(x.subject, x.behaviour, x.frame_index, x.end_frame_index, x.modifiers) for x in recorded}
    for e in parsed.events:
        if e.behaviour not in known_b:
            ethogram = eth.with_behaviour(ethogram, eth.Behaviour(name=e.behaviour, key="", colour="", type=e.type,
                                                                  modifiers=e.modifiers))
            known_b.add(e.behaviour)
            report.new_behaviours.append(e.behaviour)
        else:
            b = ethogram.behaviour(e.behaviour)
            extra = [m for m in e.modifiers if m not in b.modifiers]
            if extra:
                ethogram = eth.with_behaviour(ethogram, replace(b, modifiers=b.modifiers + tuple(extra)))
        if e.subject and e.subject not in known_s:
            ethogram = eth.with_subject(ethogram, eth.Subject(name=e.subject))
            known_s.add(e.subject)
            report.new_subjects.append(e.subject)
        who = f"{e.behaviour} ({e.subject})" if e.subject else e.behaviour
        start = frame_of(e.start_s, e.frame, f"the start of {who}")
        stop = None if e.stop_s is None else frame_of(e.stop_s, e.end_frame, f"the stop of {who}")
        if e.type == "point":
            stop = start
        identity = _identity(e.subject, e.behaviour, start, stop, e.modifiers)
        if identity in stored:
            report.already += 1
            continue
        if e.type != "point" and (in_way := state_overlap.in_the_way(
                ethogram, recorded, behaviour=e.behaviour, subject=e.subject, start=start, stop=stop)) is not None:
            report.problems.append(f"line {e.line}: {who} from frame {start}"
                                   + ("" if stop is None else f" to {stop}")
                                   + f" not imported: {store_rule.describe(in_way)}")
            continue
        stored.add(identity)
        # later lines of the file are checked against this one too
        recorded.append(events.BehaviourEvent(f"line {e.line}", media.id, e.behaviour, e.subject, e.modifiers, e.type,
                                              start, e.start_s, stop, e.stop_s, coder))
        edits.append(events.add_event_edit(project, media.id, e.behaviour, e.type, start, subject=e.subject,
                                           modifiers=e.modifiers, coder=coder, end_frame_index=stop))
        report.events += 1
    if report.new_behaviours or report.new_subjects or ethogram != eth.load(project):
        edits.insert(0, eth.SetEthogram(project, ethogram, text="Add imported behaviours"))
    report.problems.extend(past_end)
    if edits:
        report.edit = EditGroup(f"Import {report.events} behaviour event(s)", edits, project=project)
    return report
