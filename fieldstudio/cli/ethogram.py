"""`fieldstudio ethogram ...`: the project's ethogram and its behaviour events (issue 32 item 2).

Every command calls :mod:`fieldstudio.annotations.behaviour` (``ethogram``, ``coding``, ``observations``), the
services the window's Annotate ▸ Ethogram…, the Behaviour dock and Compare coders… call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from fieldstudio.cli import output as cli_support

cli_support.ProjectArg = cli_support.ProjectArg
MediaArg = Annotated[str, typer.Argument(help="video file name or id")]
CoderOpt = Annotated[Optional[str], typer.Option("--coder", help="only this coder's events (default: everyone's)")]
OneCoderOpt = Annotated[Optional[str], typer.Option("--coder", help="whose events (needed when several coders "
                                                    "coded the video: their records are never added together)")]


def register(app: typer.Typer) -> None:
    """Add the ``ethogram`` group to ``app``."""
    group = typer.Typer(help="Behaviour coding: the ethogram (behaviours, subjects, modifiers), coded events, "
                        "time budget, two coders' agreement, BORIS and ELAN files.", no_args_is_help=True)
    app.add_typer(group, name="ethogram")

    @group.command("show")
    def show_cmd(project: cli_support.ProjectArg,
                 as_json: Annotated[bool, typer.Option("--json", help="print the ethogram as JSON")] = False) -> None:
        """Print the behaviours (key, type, colour, exclusive group, modifiers) and the subjects (key)."""
        from fieldstudio.annotations.behaviour import ethogram as eth

        with cli_support.open_project(project) as p:
            e = eth.load(p)
        if as_json:
            cli_support.out.print_json(json.dumps(e.to_json()))
            return
        for b in e.behaviours:
            extra = (f"  group {b.group}" if b.group else "") + (
                f"  modifiers {', '.join(b.modifiers)}" if b.modifiers else "")
            cli_support.out.print(f"behaviour  {b.key or '-'}  {b.name}  {b.type}  {b.colour}{extra}", markup=False)
        for s in e.subjects:
            cli_support.out.print(f"subject    {s.key or '-'}  {s.name}", markup=False)
        cli_support.out.print(f"{len(e.behaviours)} behaviour(s), {len(e.subjects)} subject(s)")

    @group.command("add-behaviour")
    def add_behaviour_cmd(
        project: cli_support.ProjectArg,
        name: Annotated[str, typer.Argument(help="the behaviour's name (its code)")],
        key: Annotated[str, typer.Option("--key", help="the one key that codes it")],
        point: Annotated[bool, typer.Option("--point", help="a point event (one frame); default: a state event")] = False,
        colour: Annotated[str, typer.Option("--colour", help="#rrggbb (default: the next colour of the palette)")] = "",
        group_name: Annotated[str, typer.Option("--group", help="mutually exclusive group")] = "",
        modifier: Annotated[Optional[list[str]], typer.Option("--modifier", help="a modifier to choose from "
                                                              "(repeat for several)")] = None,
        description: Annotated[str, typer.Option("--description")] = "",
    ) -> None:
        """Add a behaviour, or replace the one of that name."""
        from fieldstudio.annotations.behaviour import ethogram as eth

        with cli_support.open_project(project) as p:
            e = eth.with_behaviour(eth.load(p), eth.Behaviour(
                name=name, key=key, colour=colour, type="point" if point else "state", group=group_name,
                modifiers=tuple(modifier or ()), description=description))
            eth.SetEthogram(p, e).do()
        b = e.behaviour(name)
        cli_support.out.print(f"behaviour {b.name}: key {b.key}, {b.type}, {b.colour}", markup=False)

    @group.command("add-subject")
    def add_subject_cmd(project: cli_support.ProjectArg, name: Annotated[str, typer.Argument(help="the subject's name")],
                        key: Annotated[str, typer.Option("--key", help="the key that selects it")] = "") -> None:
        """Add a subject, or replace the one of that name."""
        from fieldstudio.annotations.behaviour import ethogram as eth

        with cli_support.open_project(project) as p:
            eth.SetEthogram(p, eth.with_subject(eth.load(p), eth.Subject(name=name, key=key))).do()
        cli_support.out.print(f"subject {name}" + (f": key {key}" if key else ""), markup=False)

    @group.command("remove")
    def remove_cmd(project: cli_support.ProjectArg, name: Annotated[str, typer.Argument(help="behaviour or subject")]) -> None:
        """Remove a behaviour or a subject from the ethogram (events already coded keep its name)."""
        from fieldstudio.annotations.behaviour import ethogram as eth

        with cli_support.open_project(project) as p:
            eth.SetEthogram(p, eth.without(eth.load(p), name)).do()
        cli_support.out.print(f"removed {name}", markup=False)

    @group.command("import")
    def import_cmd(project: cli_support.ProjectArg, source: Annotated[Path, typer.Argument(
            help="a BORIS project file (.boris) or an ethogram JSON written by `ethogram export`")]) -> None:
        """Replace the ethogram with the one in SOURCE (BORIS's behaviours, subjects, modifiers, exclusions)."""
        from fieldstudio.annotations.behaviour import ethogram as eth
        from fieldstudio.annotations.behaviour.boris_project import read_boris_ethogram
        from fieldstudio.core.json_limits import load_json

        with cli_support.open_project(project) as p:
            try:
                value = load_json(source.read_bytes())
            except (OSError, ValueError) as exc:
                raise cli_support.fail(f"{source.name}: {exc}") from None
            e = read_boris_ethogram(source) if isinstance(value, dict) and "behaviors_conf" in value else \
                eth.Ethogram.from_json(value)
            eth.SetEthogram(p, e, text="Import ethogram").do()
        cli_support.out.print(f"{len(e.behaviours)} behaviour(s), {len(e.subjects)} subject(s) from {source.name}",
                              markup=False)

    @group.command("export")
    def export_cmd(project: cli_support.ProjectArg, target: Annotated[Path, typer.Argument(help="JSON file to write")]) -> None:
        """Write the ethogram as JSON (read back by `ethogram import`)."""
        from fieldstudio.annotations.behaviour import ethogram as eth
        from fieldstudio.core.atomic import atomic_write_text

        with cli_support.open_project(project) as p:
            e = eth.load(p)
        atomic_write_text(target, json.dumps(e.to_json(), indent=2, ensure_ascii=False) + "\n")
        cli_support.out.print(f"wrote {target}", markup=False)

    @group.command("code")
    def code_cmd(
        project: cli_support.ProjectArg, media: MediaArg,
        behaviour: Annotated[str, typer.Argument(help="behaviour name")],
        frame: Annotated[int, typer.Option("--frame", help="frame index the event is recorded on")],
        subject: Annotated[str, typer.Option("--subject", help="subject name (default: no focal subject)")] = "",
        modifier: Annotated[Optional[list[str]], typer.Option("--modifier", help="modifier (repeat)")] = None,
        coder: Annotated[Optional[str], typer.Option("--coder", help="who codes (default: $FIELDSTUDIO_USER "
                                                     "or the login name)")] = None,
        picture: Annotated[Optional[Path], typer.Option(
            "--picture", help="the picture on show when the key was pressed while playing (a screenshot of the "
            "video): recorded on the frame whose pixels it shows, searched 12 frames either side of --frame "
            "(frame_found picture); with no clear match on --frame (frame_found clock)")] = None,
    ) -> None:
        """Record a behaviour as its key would in the window: a point event, a state's start or its stop (and the
        stop of the running exclusive states)."""
        from fieldstudio.annotations.behaviour import coding
        from fieldstudio.annotations.behaviour import ethogram as eth
        from fieldstudio.media import library
        from fieldstudio.store.changes import current_user

        with cli_support.open_project(project) as p:
            video = library.find_media(p, media)
            if subject:
                eth.load(p).subject(subject)
            found, why = "", ""
            if picture is not None:
                frame, found, why = _frame_of_picture(p, video, picture, frame)
            edit, message = coding.code_behaviour(p, eth.load(p), video.id, behaviour, frame, subject=subject,
                                                  modifiers=tuple(modifier or ()), coder=coder or current_user(),
                                                  found=found)
            edit.do()
        cli_support.out.print(message + (f" (found by the {found}: {why})" if found else ""), markup=False)

    @group.command("events")
    def events_cmd(project: cli_support.ProjectArg, media: MediaArg, coder: CoderOpt = None,
                   as_json: Annotated[bool, typer.Option("--json", help="print a JSON list")] = False) -> None:
        """List the behaviour events of a video: start and stop (frame, seconds), subject, behaviour, modifiers,
        coder."""
        from fieldstudio.annotations.behaviour import behaviour_events as events
        from fieldstudio.media import library

        with cli_support.open_project(project) as p:
            rows = events.list_events(p, library.find_media(p, media).id, coder=coder)
        if as_json:
            cli_support.out.print_json(json.dumps([
                {"id": e.id, "behaviour": e.behaviour, "subject": e.subject, "modifiers": list(e.modifiers),
                 "type": e.type, "frame_index": e.frame_index, "start_s": e.start_s,
                 "end_frame_index": e.end_frame_index, "stop_s": e.stop_s, "coder": e.coder,
                 "frame_found": e.frame_found or None, "end_frame_found": e.end_frame_found or None} for e in rows]))
            return
        for e in rows:
            def by(found: str) -> str:
                return ", clock" if found == "clock" else ""

            stop = "running" if e.is_open else f"{e.end_frame_index} ({e.stop_s:.3f} s{by(e.end_frame_found)})"
            cli_support.out.print(
                f"{e.id}  {e.subject or '-'}  {e.behaviour}  {e.type}  frame {e.frame_index} ({e.start_s:.3f} s"
                f"{by(e.frame_found)})"
                + ("" if e.type == "point" else f" to {stop}")
                + (f"  [{', '.join(e.modifiers)}]" if e.modifiers else "") + f"  by {e.coder}", markup=False)
        cli_support.out.print(f"{len(rows)} event(s)")

    @group.command("budget")
    def budget_cmd(
        project: cli_support.ProjectArg, media: MediaArg, coder: OneCoderOpt = None,
        start: Annotated[Optional[float], typer.Option("--from", help="observed from (s; default 0)")] = None,
        end: Annotated[Optional[float], typer.Option("--to", help="observed to (s; default the video's "
                                                     "duration)")] = None,
        as_csv: Annotated[bool, typer.Option("--csv", help="print CSV")] = False,
    ) -> None:
        """The time budget per subject and behaviour: count, total and mean duration, % of the observed time."""
        from fieldstudio.annotations.behaviour import observations, time_budget

        with cli_support.open_project(project) as p:
            result = observations.budget(p, media, start_s=start, end_s=end, coder=coder)
        if as_csv:
            cli_support.out.print(time_budget.budget_csv(result.rows), end="", markup=False)
            return
        cli_support.out.print(f"{result.media_name}: observed {result.start_s:.3f} s to {result.end_s:.3f} s "
                              f"({result.end_s - result.start_s:.3f} s)"
                              + (f", coder {result.coder}" if result.coder else ""), markup=False)
        for r in result.rows:
            s, b, t, n, total, mean, pct = r.cells()
            tail = "" if total is None else f"  total {total:.3f} s  mean {mean:.3f} s  {pct:.2f} %"
            cli_support.out.print(f"{s or '-'}  {b}  {t}  count {n}{tail}", markup=False)

    @group.command("agreement")
    def agreement_cmd(
        project: cli_support.ProjectArg, media: MediaArg,
        coder_a: Annotated[str, typer.Option("--coder-a", help="first coder")],
        coder_b: Annotated[str, typer.Option("--coder-b", help="second coder")],
        slice_s: Annotated[float, typer.Option("--slice", help="time slice (s) of Cohen's kappa")] = 1.0,
        tolerance: Annotated[float, typer.Option("--tolerance", help="largest start difference (s) of two "
                                                 "matched events")] = 1.0,
        with_modifiers: Annotated[bool, typer.Option("--modifiers", help="codes include the modifiers")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Two coders compared on one video: Cohen's kappa per time slice (as BORIS computes it) and events
        matched within a tolerance (same subject and behaviour)."""
        from fieldstudio.annotations.behaviour import observations

        with cli_support.open_project(project) as p:
            c = observations.compare_coders(p, media, coder_a, coder_b, slice_s=slice_s, tolerance_s=tolerance,
                                            with_modifiers=with_modifiers)
        k, m = c.kappa, c.matched
        if as_json:
            cli_support.out.print_json(json.dumps({
                "media": c.media_name, "coder_a": c.coder_a, "coder_b": c.coder_b, "kappa": k.kappa,
                "slice_s": k.slice_s, "slices": k.slices, "cells": k.n, "agreements": k.agreements,
                "expected": k.expected, "needleman_wunsch_identity": c.identity, "matched": len(m.pairs), "only_a": len(m.only_a), "only_b": len(m.only_b),
                "tolerance_s": m.tolerance_s, "match_agreement": m.agreement}))
            return
        for line in c.lines():
            cli_support.out.print(line, markup=False)

    @group.command("export-events")
    def export_events_cmd(
        project: cli_support.ProjectArg, media: MediaArg, target: Annotated[Path, typer.Argument(help="file to write")],
        fmt: Annotated[str, typer.Option("--format", "-f", help=(
            "boris-csv, boris-tsv (BORIS's tabular events), boris-xlsx (the sheet BORIS's Observations > Import "
            "observations reads into an open observation) or elan"))] = "boris-csv",
        coder: OneCoderOpt = None,
    ) -> None:
        """Write a video's events as BORIS's tabular events (CSV or TSV), the XLSX sheet BORIS imports into an
        observation, or ELAN's tab-delimited text."""
        from fieldstudio.annotations.behaviour import observations

        with cli_support.open_project(project) as p:
            written, running = observations.export_events(p, media, target, fmt, coder=coder)
        cli_support.out.print(f"{written} event(s) written to {target}"
                              + (f"; {running} running state(s) left out" if running else ""), markup=False)

    @group.command("import-events")
    def import_events_cmd(
        project: cli_support.ProjectArg, media: MediaArg,
        source: Annotated[Path, typer.Argument(help="BORIS tabular events (.csv or .tsv)")],
        coder: Annotated[str, typer.Option("--coder", help="whose events these are (e.g. the BORIS observer)")],
    ) -> None:
        """Import BORIS's tabular events onto a video as one coder's; missing behaviours and subjects are added
        to the ethogram."""
        from fieldstudio.annotations.behaviour import observations

        with cli_support.open_project(project) as p:
            report = observations.import_events(p, media, source, coder=coder)
            if report.edit is not None:
                report.edit.do()
        for line in report.lines():
            cli_support.out.print(line, markup=False)
        raise typer.Exit(0 if report.events or report.already else 1)



def _frame_of_picture(project, video, picture: Path, estimate: int) -> tuple[int, str, str]:  # noqa: ANN001
    """The frame ``picture`` shows near ``estimate`` (``media.picture_match``), how it was found, and why."""
    from fieldstudio.media.frames import FrameSource
    from fieldstudio.media.images import read_image
    from fieldstudio.media.picture_match import match_picture

    source = FrameSource(project, max_readers=1)
    try:
        reader = source.reader(video)
        match = match_picture(read_image(picture), reader.get, estimate, len(reader))
    finally:
        source.close()
    return match.frame_index, match.found, match.why
