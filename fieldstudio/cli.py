"""The command line: each command calls the same services the GUI calls.

``fieldstudio`` alone opens the window on the welcome screen; ``fieldstudio P.fieldstudio`` opens a
project; every other use is a sub-command (``fieldstudio --help`` lists them).
"""

from __future__ import annotations

import json
import sys

from pathlib import Path

import typer

from fieldstudio import __version__
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.project import PROJECT_SUFFIX, Project

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=False,
    help="fieldstudio: annotate field-work footage and compare vision-language models on it.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
from fieldstudio.cli_models import models_app  # noqa: E402
from fieldstudio.cli_support import fail, open_project, out, progress_bar  # noqa: E402

app.add_typer(models_app, name="models", help="Model profiles: add, list, test, remove.")


def _project_path(path: Path) -> Path:
    return path if path.suffix == PROJECT_SUFFIX else path.with_name(path.name + PROJECT_SUFFIX)


@app.command()
def new(project: Path = typer.Argument(..., help="project file to create (.fieldstudio is added)"),
        name: str = typer.Option(None, help="display name (default: the file name)")) -> None:
    """Create an empty project file."""
    path = _project_path(project)
    try:
        Project.create(path, name=name).close()
    except FieldstudioError as exc:
        raise fail(str(exc))
    out.print(f"created {path}")


def print_add_report(report) -> None:  # noqa: ANN001 - AddReport
    """Print what ``add_paths`` did, one line per unreadable file with its reason."""
    counts = ", ".join(f"{report.imported[k]} {k}{'s' if report.imported[k] != 1 else ''}"
                       for k in ("image", "video", "document"))
    out.print(f"imported {report.imported_total} media ({counts})")
    if report.duplicates:
        out.print(f"skipped {len(report.duplicates)} duplicate(s) already in the project")
    if report.skipped:
        out.print(f"ignored {len(report.skipped)} file(s) in folders that are not media")
    if report.unreadable:
        out.print(f"{len(report.unreadable)} file(s) could not be read:")
        for path, reason in report.unreadable:
            out.print(f"  {path}: {reason}", highlight=False, markup=False)
    if report.cancelled:
        out.print("cancelled before every file was added")


@app.command()
def add(project: Path = typer.Argument(..., help="project file"),
        paths: list[Path] = typer.Argument(..., help="files or folders (folders are searched recursively)"),
        no_index: bool = typer.Option(False, "--no-index", help="do not build the frame index of new videos now")) -> None:
    """Add media files or folders to PROJECT; prints counts and every file that could not be read."""
    from fieldstudio.media import library, thumbnails

    with open_project(project) as p:
        with progress_bar("Adding media") as update:
            report = library.add_paths(p, paths, progress=update)
        print_add_report(report)
        if report.media_ids and not no_index:
            with progress_bar("Indexing frames") as update:
                failures = library.index_videos(p, report.media_ids, progress=update)
            for media_id, reason in failures:
                out.print(f"  frame index of {media_id[:8]} failed: {reason}", markup=False)
            with progress_bar("Thumbnails") as update:
                thumbnails.make_thumbnails(p, report.media_ids, progress=update)
    raise typer.Exit(0 if report.imported_total else 1)


def project_summary(p: Project) -> dict:
    """Counts per kind of record, as ``fieldstudio info --json`` prints them."""
    from sqlalchemy import func, select

    from fieldstudio.media.library import media_counts
    from fieldstudio.store import models as m

    with p.read() as s:
        def count(model, *where) -> int:  # noqa: ANN001
            return s.scalar(select(func.count()).select_from(model).where(*where)) or 0

        annotations = dict.fromkeys(("box", "ruler", "segment", "event", "tag"), 0)
        for kind, n in s.execute(select(m.Annotation.kind, func.count()).where(m.Annotation.deleted.is_(False))
                                 .group_by(m.Annotation.kind)):
            annotations[kind] = n
        summary = {
            "name": p.name,
            "path": str(p.path),
            "schema": p.schema_revision(),
            "media": media_counts(p),
            "unreadable": count(m.Media, m.Media.status == "unreadable"),
            "tasks": count(m.Task),
            "annotations": annotations,
            "ratings": count(m.Rating),
            "runs": count(m.Run),
            "answers": count(m.Answer),
            "scores": count(m.Score),
        }
        videos = s.execute(select(m.Media.file_name, m.Media.frame_count, m.Media.duration_s, m.Media.is_vfr,
                                  m.Media.rotation).where(m.Media.kind == "video", m.Media.status == "ok")).all()
        summary["videos"] = [{"file_name": f, "frames": n, "duration_s": d, "vfr": v, "rotation": r}
                             for f, n, d, v, r in videos]
    return summary


@app.command()
def info(project: Path = typer.Argument(..., help="project file"),
         as_json: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """Print what PROJECT holds: media per kind, unreadable files, tasks, annotations, ratings, runs, scores."""
    with open_project(project) as p:
        summary = project_summary(p)
    if as_json:
        out.print_json(json.dumps(summary))
        return
    mc = summary["media"]
    out.print(f"{summary['name']}  ({summary['path']}, schema {summary['schema']})", markup=False)
    out.print(f"media: {mc['image']} images, {mc['video']} videos, {mc['document']} documents; "
              f"{summary['unreadable']} unreadable")
    for v in summary["videos"]:
        dur = f"{v['duration_s']:.2f} s" if v["duration_s"] else "?"
        flags = " VFR" if v["vfr"] else ""
        flags += f" rotated {v['rotation']}°" if v["rotation"] else ""
        out.print(f"  {v['file_name']}: {v['frames'] or '?'} frames, {dur}{flags}", markup=False)
    a = summary["annotations"]
    out.print("annotations: " + ", ".join(f"{n} {k}" for k, n in a.items()))
    out.print(f"tasks: {summary['tasks']}; ratings: {summary['ratings']}; runs: {summary['runs']}; "
              f"answers: {summary['answers']}; scores: {summary['scores']}")


@app.command()
def frame(project: Path = typer.Argument(..., help="project file"),
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
def relink(project: Path = typer.Argument(..., help="project file"),
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
         ) -> None:
    """Build the sample project from sample_data/ (real media and a manual) and open it."""
    from fieldstudio.demo import build_demo, default_demo_path

    path = out_path or default_demo_path()
    try:
        report = build_demo(path)
    except FieldstudioError as exc:
        raise fail(str(exc))
    out.print(f"demo project: {path}", markup=False)
    print_add_report(report)
    if not no_gui:
        _launch_gui(path)


def _launch_gui(path: Path | None) -> None:
    try:
        from fieldstudio.gui.app import run_gui
    except ImportError as exc:
        raise fail(f"the window is not part of this build yet ({exc.name or exc}); every command line "
              "feature works without it (`fieldstudio --help`)")
    raise typer.Exit(run_gui(path))


@app.command("open")
def open_cmd(project: Path = typer.Argument(None, help="project file")) -> None:
    """Open the window on PROJECT (or on the welcome screen)."""
    _launch_gui(project)


def print_import_report(report) -> None:  # noqa: ANN001 - datasets.records.ImportReport
    """Print formats, tasks per category, missing media, unmapped tasks and every problem."""
    for file, fmt in report.formats.items():
        out.print(f"{file}: {fmt}", markup=False)
    if report.tasks_imported:
        out.print(f"tasks: {report.created} created, {report.updated} updated")
        for category, n in sorted(report.tasks_per_category.items()):
            out.print(f"  {category or '(none)'}: {n}", markup=False)
    if report.answers_imported or report.run_id:
        out.print(f"answers: {report.answers_imported} imported")
    if report.unknown_ids:
        out.print(f"{len(report.unknown_ids)} answer id(s) name no task: {', '.join(report.unknown_ids[:10])}",
                  markup=False)
    if report.missing_media:
        out.print(f"{len(report.missing_media)} task(s) name media that are not in the project "
                  "(imported and marked; add the media, then import again to link them)")
        for ext_id, names in list(report.missing_media.items())[:10]:
            out.print(f"  {ext_id}: {', '.join(names)}", markup=False)
        if len(report.missing_media) > 10:
            out.print(f"  ... and {len(report.missing_media) - 10} more")
    if report.unmapped:
        out.print(f"no sub-category for: {', '.join(report.unmapped)}", markup=False)
    for problem in report.problems:
        out.print(str(problem), markup=False)


@app.command("import-tasks")
def import_tasks_cmd(project: Path = typer.Argument(..., help="project file"),
                     files: list[Path] = typer.Argument(..., help="task files: FieldWorkArena, IndustryEQA, "
                                                        "OpenEQA JSON or CSV (format detected)")) -> None:
    """Import benchmark task files with their ground truth; prints counts per category and every problem."""
    from fieldstudio.datasets.task_import import import_tasks

    with open_project(project) as p, progress_bar("Importing tasks") as update:
        report = import_tasks(p, files, progress=update)
    print_import_report(report)
    raise typer.Exit(0 if report.tasks_imported else 1)


@app.command("import-answers")
def import_answers_cmd(project: Path = typer.Argument(..., help="project file"),
                       path: Path = typer.Argument(..., help="FieldWorkArena logs (file or folder), IndustryEQA "
                                                   "or OpenEQA answers, or CSV task_id,answer"),
                       name: str = typer.Option(..., "--name", help="name of this answer source")) -> None:
    """Import answers produced elsewhere as a named answer source."""
    from fieldstudio.datasets.task_import import import_answers

    with open_project(project) as p, progress_bar("Importing answers") as update:
        report = import_answers(p, path, name, progress=update)
    print_import_report(report)
    raise typer.Exit(0 if report.answers_imported else 1)


@app.command()
def version() -> None:
    """Print fieldstudio's version."""
    out.print(__version__)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: ``fieldstudio`` alone opens the window; ``fieldstudio P.fieldstudio`` opens P."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        args = ["open"]
    elif args[0].endswith(PROJECT_SUFFIX) and not args[0].startswith("-"):
        args = ["open", *args]
    app(args=args, prog_name="fieldstudio")


# Commands of the later features live in their own modules; each adds its commands to ``app``.
from fieldstudio import cli_export, cli_rate, cli_report, cli_run, cli_selftest, cli_tasks  # noqa: E402

for _module in (cli_export, cli_run, cli_report, cli_rate, cli_tasks, cli_selftest):
    _module.register(app)
