"""The command line: each command calls the same services the GUI calls.

``fieldstudio`` alone opens the window on the welcome screen; ``fieldstudio P.fieldstudio`` opens a
project; every other use is a sub-command (``fieldstudio --help`` lists them).
"""

from __future__ import annotations

import json
import logging
import sys

from pathlib import Path

import typer

from fieldstudio import __version__
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.wording import plural
from fieldstudio.store.location import is_database_url, mask_in_text, project_ref
from fieldstudio.store.project import PROJECT_SUFFIX, Project

from fieldstudio.cli import annotations as cli_annotations
from fieldstudio.cli import benchmarks as cli_benchmarks
from fieldstudio.cli import costs as cli_costs
from fieldstudio.cli import ethogram as cli_ethogram
from fieldstudio.cli import evidence as cli_evidence
from fieldstudio.cli import export as cli_export
from fieldstudio.cli import measurements as cli_measurements
from fieldstudio.cli import models as cli_models
from fieldstudio.cli import privacy as cli_privacy
from fieldstudio.cli import ocr as cli_ocr
from fieldstudio.cli import projects as cli_projects
from fieldstudio.cli import rate as cli_rate
from fieldstudio.cli import score_report as cli_report
from fieldstudio.cli import run as cli_run
from fieldstudio.cli import runs as cli_runs
from fieldstudio.cli import selftest as cli_selftest
from fieldstudio.cli import sweep as cli_sweep
from fieldstudio.cli import people as cli_people
from fieldstudio.cli import tasks as cli_tasks
from fieldstudio.cli.output import ProjectArg, fail, open_project, out, progress_bar, project_to_create

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=False,
    help="fieldstudio: annotate field-work footage and compare vision-language models on it.",
    context_settings={"help_option_names": ["-h", "--help"]},
)

COMMAND_GROUPS = (cli_tasks, cli_run, cli_runs, cli_sweep, cli_report, cli_evidence, cli_costs, cli_benchmarks,
                  cli_export, cli_annotations, cli_measurements, cli_ethogram, cli_rate, cli_models, cli_privacy,
                  cli_selftest, cli_projects, cli_ocr, cli_people)
"""The modules that add their commands to ``app`` (each has ``register(app)``); the project commands are below.

Each command imports its services when it runs, so ``fieldstudio --help`` loads only typer and these modules.
"""


@app.command()
def new(project: str = typer.Argument(..., help="project file to create (.fieldstudio is added), or a PostgreSQL "
                                      "URL postgresql+psycopg://user@host:port/database (made if missing)"),
        name: str = typer.Option(None, help="display name (default: the file or database name)")) -> None:
    """Create an empty project: a file, or a shared project in a PostgreSQL database."""
    path = project_to_create(project)
    try:
        created = Project.create(path, name=name)
    except FieldstudioError as exc:
        raise fail(mask_in_text(str(exc)))
    where = created.location
    created.close()
    out.print(f"created {where}", markup=False)


def print_add_report(report) -> None:  # noqa: ANN001 - AddReport
    """Print what ``add_paths`` did, one line per unreadable file with its reason (any name prints)."""
    from fieldstudio.core.file_names import printable_path

    counts = ", ".join(plural(report.imported[k], k)
                       for k in ("image", "video", "document"))
    out.print(f"imported {report.imported_total} media ({counts})")
    if report.duplicates:
        out.print(f"skipped {len(report.duplicates)} duplicate(s) already in the project")
    if report.skipped:
        out.print(f"ignored {len(report.skipped)} file(s) in folders that are not media")
    if report.unreadable:
        out.print(f"{len(report.unreadable)} file(s) could not be read:")
        for path, reason in report.unreadable:
            out.print(f"  {printable_path(path)}: {reason}", highlight=False, markup=False)
    if report.damaged:
        out.print(f"{len(report.damaged)} file(s) imported DAMAGED (only part of them decodes):")
        for path, reason in report.damaged:
            out.print(f"  {printable_path(path)}: {reason}", highlight=False, markup=False)
    if report.cancelled:
        out.print("cancelled before every file was added")


@app.command()
def add(project: ProjectArg,
        paths: list[Path] = typer.Argument(..., help="files or folders (folders are searched recursively)"),
        no_index: bool = typer.Option(False, "--no-index", help="do not build the frame index of new videos now"),
        no_ocr: bool = typer.Option(False, "--no-ocr", help="do not read scanned pages now (`fieldstudio ocr` later)"),
        max_image_pixels: int = typer.Option(
            250_000_000, "--max-image-pixels", min=1,
            help="refuse images whose header claims more pixels (width x height) than this")) -> None:
    """Add media files or folders to PROJECT; prints counts and every file that could not be read.

    Scanned pages of new documents are read by OCR (``--no-ocr``: later, with `fieldstudio ocr`).
    Run again after an interrupted add, it finishes the frame indexes and thumbnails of the media added before.
    Exit 0 when anything was imported or finished, or every file was in the project already; else 1."""
    from fieldstudio.media import inventory, library, thumbnails, video_index

    with open_project(project) as p:
        with progress_bar("Adding media") as update:
            report = library.add_paths(p, paths, progress=update, max_image_pixels=max_image_pixels)
        print_add_report(report)
        earlier: list[str] = []
        if not no_index and not report.cancelled:
            todo = inventory.unfinished_media(p)       # this add's media, and those an interrupted one left
            earlier = [i for i in todo.ids if i not in set(report.media_ids)]
            if todo.videos_to_index:
                with progress_bar("Indexing frames") as update:
                    failures = video_index.index_videos(p, todo.videos_to_index, progress=update)
                for media_id, reason in failures:
                    out.print(f"  frame index of {media_id[:8]} failed: {reason}", markup=False)
                checked = list(dict.fromkeys(report.media_ids + todo.videos_to_index))
                videos = [(name, why) for name, why in inventory.damaged_media(p, checked)
                          if name not in {path.name for path, _ in report.damaged}]
                for name, why in videos:
                    out.print(f"  {name} is DAMAGED: {why}", markup=False, highlight=False)
            if todo.without_thumbnail:
                with progress_bar("Thumbnails") as update:
                    thumbnails.make_thumbnails(p, todo.without_thumbnail, progress=update)
            if not no_ocr and report.imported.get("document"):
                cli_ocr.read_scanned_pages(p, report.media_ids)
            if earlier:
                out.print(f"finished {len(earlier)} media added before (frame index, thumbnails): an earlier add "
                          "was interrupted", markup=False)
    all_present = bool(report.duplicates) and not report.unreadable and not report.imported_total
    if all_present and not earlier:
        out.print("nothing new: every file is in the project already", markup=False)
    raise typer.Exit(0 if report.imported_total or earlier or all_present else 1)


def project_summary(p: Project) -> dict:
    """Counts per kind of record, as ``fieldstudio info --json`` prints them (each read by the package that owns
    the table)."""
    from dataclasses import asdict

    from fieldstudio.annotations.annotation_records import count_annotations
    from fieldstudio.inference.runs.run_records import count_answers, count_runs
    from fieldstudio.media import inventory
    from fieldstudio.media.library import media_counts
    from fieldstudio.ratings.rating_records import count_ratings
    from fieldstudio.scoring.store import count_scores, count_stale_scores
    from fieldstudio.tasks.task_records import count_tasks

    return {
        "name": p.name,
        "path": str(p.path),
        "schema": p.schema_revision(),
        "media": media_counts(p),
        "unreadable": inventory.unreadable_count(p),
        "tasks": count_tasks(p),
        "annotations": count_annotations(p),
        "ratings": count_ratings(p),
        "runs": count_runs(p),
        "answers": count_answers(p),
        "scores": count_scores(p),
        "scores_stale": count_stale_scores(p),
        "videos": [asdict(v) for v in inventory.video_summaries(p)],
        "documents": [asdict(d) for d in inventory.document_summaries(p)],
    }


@app.command()
def info(project: ProjectArg,
         as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """Print what PROJECT holds: media per kind (videos' frames, documents' pages needing OCR), unreadable files,
    tasks, annotations, ratings, runs, scores."""
    with open_project(project) as p:
        summary = project_summary(p)
    if as_json:
        out.print_json(json.dumps(summary))
        return
    mc = summary["media"]
    out.print(f"{summary['name']}  ({summary['path']}, schema {summary['schema']})", markup=False)
    out.print(f"media: {plural(mc['image'], 'image')}, {plural(mc['video'], 'video')}, "
              f"{plural(mc['document'], 'document')}; {summary['unreadable']} unreadable")
    for v in summary["videos"]:
        dur = f"{v['duration_s']:.2f} s" if v["duration_s"] else "?"
        flags = " VFR" if v["vfr"] else ""
        flags += f" rotated {v['rotation']}°" if v["rotation"] else ""
        flags += f"; DAMAGED: {v['damaged']}" if v.get("damaged") else ""
        out.print(f"  {v['file_name']}: {v['frames'] or '?'} frames, {dur}{flags}", markup=False)
    for d in summary["documents"]:
        ocr, read = d["needs_ocr_pages"], d["ocr_read_pages"]
        flags = f"; scanned, needs OCR: page{'s' if len(ocr) > 1 else ''} {', '.join(map(str, ocr))}" if ocr else ""
        flags += f"; text read by OCR: page{'s' if len(read) > 1 else ''} {', '.join(map(str, read))}" if read else ""
        pages = plural(d["pages"], "page") if d["pages"] else "? pages"
        out.print(f"  {d['file_name']}: {pages}{flags}", markup=False)
    a = summary["annotations"]
    out.print("annotations: " + ", ".join(f"{n} {k}" for k, n in a.items()))
    out.print(f"tasks: {summary['tasks']}; ratings: {summary['ratings']}; runs: {summary['runs']}; "
              f"answers: {summary['answers']}; scores: {summary['scores']}"
              + (f" ({summary['scores_stale']} stale: `fieldstudio score` scores them again)"
                 if summary["scores_stale"] else ""))


@app.command()
def frame(project: ProjectArg,
          media: str = typer.Argument(..., help="media file name or id"),
          index: int = typer.Option(0, "--index", "-n", help="frame index (0-based, presentation order)"),
          out_path: Path = typer.Option(..., "--out", "-o", help="image file to write (.png or .jpg)")) -> None:
    """Write the exact frame INDEX of MEDIA as an image and print its PTS."""
    from fieldstudio.media import images
    from fieldstudio.media.frames import get_frame

    with open_project(project) as p:
        try:
            f = get_frame(p, media, index)
        except IndexError as exc:
            raise fail(str(exc))
        images.write_image(out_path, f.rgb)
    h, w = f.rgb.shape[:2]
    when = f" at PTS {f.pts} ({f.pts_seconds:.6f} s)" if f.pts is not None else ""
    out.print(f"wrote frame {index}{when}, {w}x{h}, to {out_path}", markup=False)


@app.command()
def relink(project: ProjectArg,
           folder: Path = typer.Argument(..., help="folder to search for moved files")) -> None:
    """Find moved media files in FOLDER by their SHA-256 and update their paths."""
    from fieldstudio.media import library

    with open_project(project) as p, progress_bar("Searching") as update:
        found = library.relink(p, folder, progress=update)
    out.print(f"relinked {len(found)} media")
    for media_id, path in found.items():
        out.print(f"  {media_id[:8]} -> {path}", markup=False)


@app.command()
def demo(no_gui: bool = typer.Option(False, "--no-gui", help="build the project without opening the window"),
         out_path: Path = typer.Option(None, "--out", help="project file to write (default: in the user data folder)"),
         reset: bool = typer.Option(False, "--reset", help="build it again (asks first); the previous file is "
                                    "kept aside as demo-previous.fieldstudio (-2, -3 … when that exists)"),
         yes: bool = typer.Option(False, "--yes", "-y", help="with --reset: do not ask"),
         ) -> None:
    """Build the sample project from sample_data/ and open it; an existing demo project opens as it is.

    The work done in it is kept; --reset makes it afresh after asking (--yes does not ask).
    """
    import shutil

    from fieldstudio.demo.project import build_demo, default_demo_path

    if not no_gui:
        _require_display()  # before building anything: it would say "demo project: ..." and then fail
    path = out_path or default_demo_path()
    if path.is_file() and not reset:
        out.print(f"demo project: {path} (it exists: opening it as it is; --reset makes it afresh)", markup=False)
    else:
        kept, n = path.with_name(f"{path.stem}-previous{path.suffix}"), 2
        while kept.exists():  # an earlier reset's copy holds earlier work: never written over
            kept, n = path.with_name(f"{path.stem}-previous-{n}{path.suffix}"), n + 1
        if path.is_file() and not yes and not _confirm(f"Rebuild {path}? The work done in it moves to {kept.name}"):
            out.print(f"not rebuilt: {path} stays as it is (--yes rebuilds without asking)", markup=False)
            raise typer.Exit(1)
        if path.is_file():
            shutil.copy2(path, kept)
            out.print(f"the previous demo project is kept as {kept}", markup=False)
        try:
            report = build_demo(path)
        except FieldstudioError as exc:
            raise fail(str(exc))
        out.print(f"demo project: {path}", markup=False)
        print_add_report(report)
    if not no_gui:
        _launch_gui(path)


def _confirm(question: str) -> bool:
    """The user's yes to ``question``; no answer at all (standard input closed, as from a launcher) is a no."""
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:
        out.print()
        return False


def _gui_app():  # noqa: ANN202 - the fieldstudio.gui.app module
    try:
        from fieldstudio.gui import app as gui_app
    except ImportError as exc:
        raise fail(f"the window is not part of this build yet ({exc.name or exc}); every command line "
                   "feature works without it (`fieldstudio --help`)")
    return gui_app


def _require_display() -> None:
    """Exit 2 with one line when the environment names no display at all (gui.app.display_problem); a named
    but unusable display is found by Qt itself when the window starts (gui.app.platform_failure)."""
    problem = _gui_app().display_problem()
    if problem is not None:
        raise fail(problem)


def _launch_gui(path: Path | str | None) -> None:
    raise typer.Exit(_gui_app().run_gui(path))


@app.command("open")
def open_cmd(project: str = typer.Argument(None, help="project file or PostgreSQL URL")) -> None:
    """Open the window on PROJECT (or on the welcome screen)."""
    _launch_gui(None if project is None else project_ref(project))


@app.command()
def version() -> None:
    """Print fieldstudio's version."""
    out.print(__version__)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: ``fieldstudio`` alone opens the window; ``fieldstudio P.fieldstudio`` opens P."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        args = ["open"]
    elif (args[0].endswith(PROJECT_SUFFIX) or is_database_url(args[0])) and not args[0].startswith("-"):
        args = ["open", *args]
    try:
        app(args=args, prog_name="fieldstudio")
    except Exception as exc:  # a failure of the disk or the server is one line (exit 2); a bug keeps its traceback
        from fieldstudio.store.failures import one_line

        message = one_line(exc, where=next((a for a in args[1:] if a.endswith(PROJECT_SUFFIX) or is_database_url(a)),
                                           None))
        if message is None:
            raise
        if logging.getLogger().handlers:     # the log file, when set up, keeps the traceback (stderr does not)
            logging.getLogger(__name__).error("%s", message, exc_info=exc)
        fail(message)
        sys.exit(2)


for _group in COMMAND_GROUPS:
    _group.register(app)
