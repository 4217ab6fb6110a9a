"""`fieldstudio ratings ...` and `fieldstudio acceptability ...`: rating sets, agreement, rating packages,
and the programmatic acceptability scorer. Each command calls the same services the GUI calls
(``ratings.records``, ``core.agreement``, ``ratings.csv_table``, ``ratings.packages``,
``ratings.acceptability.service``). Register with ``register(app)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.table import Table

from fieldstudio.cli.output import ProjectArg, RawCellsOpt, fail, open_project, out
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.project import Project

ratings_app = typer.Typer(help="Rating sets: create, import ratings, agreement between raters, packages.",
                          no_args_is_help=True)
acceptability_app = typer.Typer(help="The programmatic acceptability scorer: measure, tune on raters, score.",
                                no_args_is_help=True)

ProjectArg = ProjectArg
SetOpt = Annotated[str, typer.Option("--set", help="rating set name (or id)")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]


def register(app: typer.Typer) -> None:
    """Add the ``ratings`` and ``acceptability`` command groups to the main app."""
    app.add_typer(ratings_app, name="ratings", help="Rating sets: create, import, agreement, packages.")
    app.add_typer(acceptability_app, name="acceptability",
                  help="Programmatic acceptability scorer: measure, tune, score.")


def _print(text: str) -> None:
    out.print(text, markup=False)


def _num(v: Any, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _ci(estimate: Any, lo: Any, hi: Any) -> str:
    if estimate is None:
        return "undefined"
    return f"{estimate:.3f}" + ("" if lo is None else f" [{lo:.3f}, {hi:.3f}]")


# --------------------------------------------------------------------------- ratings


def _parse_field(text: str) -> dict[str, Any]:
    """``name:type[:unit[:tolerance]]`` or ``name:choice:a|b|c``."""
    parts = text.split(":")
    if len(parts) < 2:
        raise FieldstudioError(f"field {text!r}: write name:type, e.g. tape:number:in:0.125 or state:choice:on|off")
    spec: dict[str, Any] = {"name": parts[0], "type": parts[1]}
    if parts[1] == "choice":
        spec["choices"] = parts[2].split("|") if len(parts) > 2 else []
    else:
        if len(parts) > 2 and parts[2]:
            spec["unit"] = parts[2]
        if len(parts) > 3 and parts[3]:
            spec["tolerance"] = parts[3]
    return spec


def _item_refs(project: Project, items: list[str]) -> list[tuple[str, int | None]]:
    from fieldstudio.ratings.csv_table import parse_item_ref

    return [parse_item_ref(project, text) for text in items]


@ratings_app.command("new")
def new_set(project: ProjectArg, name: Annotated[str, typer.Argument(help="name of the new rating set")],
            requirement: Annotated[str, typer.Option("--requirement", "-r", help="what an acceptable item shows")] = "",
            fields: Annotated[Optional[list[str]], typer.Option(
                "--field", help="documentation field name:type[:unit[:tolerance]] (type number, text, choice, "
                                "yes_no; choice: name:choice:a|b|c); repeat for several")] = None,
            items: Annotated[Optional[list[str]], typer.Option(
                "--item", help="media file name, or name#frame for a video frame; repeat for several")] = None,
            ) -> None:
    """Create a rating set with its requirement, documentation fields and (optionally) items."""
    from fieldstudio.ratings import rating_records as ratings

    with open_project(project) as p:
        info = ratings.create_rating_set(p, name, requirement, fields=[_parse_field(f) for f in fields or []])
        added = ratings.add_items(p, info.id, _item_refs(p, items or []))
    _print(f"created rating set {info.name!r} with {len(added.added)} item(s)")


@ratings_app.command("add-items")
def add_items_cmd(project: ProjectArg, rating_set: SetOpt,
                  items: Annotated[list[str], typer.Argument(help="media file names, or name#frame")]) -> None:
    """Append photos or video frames to a rating set's queue."""
    from fieldstudio.ratings import rating_records as ratings

    with open_project(project) as p:
        report = ratings.add_items(p, rating_set, _item_refs(p, items))
    _print(f"added {len(report.added)} item(s); {len(report.duplicates)} already in the set")


@ratings_app.command("list")
def list_sets(project: ProjectArg, as_json: JsonOpt = False) -> None:
    """List the rating sets with their items, ratings and raters."""
    from fieldstudio.ratings import rating_records as ratings

    with open_project(project) as p:
        sets = ratings.list_rating_sets(p)
    if as_json:
        out.print_json(json.dumps([{"name": s.name, "id": s.id, "requirement": s.requirement, "items": s.items,
                                       "ratings": s.ratings, "raters": s.raters} for s in sets]))
        return
    if not sets:
        _print("no rating sets yet: `fieldstudio ratings new P NAME` or `fieldstudio ratings import P FILE.csv`")
        return
    table = Table("name", "items", "ratings", "raters", "requirement")
    for s in sets:
        table.add_row(s.name, str(s.items), str(s.ratings), ", ".join(s.raters), s.requirement)
    out.print(table)


@ratings_app.command("import")
def import_csv(project: ProjectArg,
               file: Annotated[Path, typer.Argument(help="CSV: rating_set, item, rater, verdict, then any fields")],
               ) -> None:
    """Import ratings from a CSV file (item = media file name, or name#frame); creates missing rating sets."""
    from fieldstudio.ratings.csv_table import import_ratings_csv

    with open_project(project) as p:
        report = import_ratings_csv(p, file)
    _print(f"{report.ratings} of {report.rows} rating(s) imported; {report.items_added} item(s) added")
    for name in report.sets_created:
        _print(f"created rating set {name!r}")
    for line, reason in report.problems:
        _print(f"  line {line}: {reason}")
    raise typer.Exit(0 if report.ratings or not report.rows else 1)


@ratings_app.command("export")
def export_csv(project: ProjectArg, rating_set: SetOpt,
               out: Annotated[Path, typer.Argument(help="CSV file to write")], raw_cells: RawCellsOpt = False) -> None:
    """Write every rating of a set as CSV (the import format)."""
    from fieldstudio.ratings.csv_table import write_ratings_csv

    with open_project(project) as p:
        n = write_ratings_csv(p, rating_set, out, raw_cells=raw_cells)
    _print(f"wrote {n} rating(s) to {out}")


def agreement_of(p: Project, name: str, *, n_resamples: int, seed: int) -> Any:
    """The AgreementSummary of one rating set (the service behind the agreement panel)."""
    from fieldstudio.core.agreement import agreement_summary
    from fieldstudio.ratings import rating_records as ratings

    humans, sources = ratings.verdict_tables(p, name)
    return agreement_summary(humans, sources=sources, numeric_fields=ratings.numeric_field_tables(p, name),
                             n_resamples=n_resamples, seed=seed)


def _print_summary(name: str, d: dict[str, Any]) -> None:
    _print(f"{name}: {d['n_items']} item(s) rated, {d['n_raters']} rater(s), {d['n_ratings']} rating(s), "
           f"{d['n_unsure']} unsure (excluded), {d['majority_ties']} tie(s)")
    _print(f"  Krippendorff's alpha (nominal): {_ci(d['alpha'], *d['alpha_ci'])}")
    for field_name, iv in d["field_alpha"].items():
        _print(f"  alpha (interval) of {field_name}: {_ci(iv['estimate'], iv['ci_low'], iv['ci_high'])}")
    for rater, acc in d["acceptance"].items():
        _print(f"  {rater}: accepts {_num(acc['acceptance_rate'])} of {acc['accept'] + acc['reject']} decided")
    for pair in d["pairwise"]:
        _print(f"  {pair['rater_a']} / {pair['rater_b']}: agree {_num(pair['rate'])} on {pair['n']}, "
               f"kappa {_num(pair['kappa'])}")
    for group, label in (("raters_vs_majority", "vs majority of the others"), ("sources_vs_majority", "vs majority")):
        for who, v in d[group].items():
            a = v["agreement"]
            _print(f"  {who} {label}: {_ci(a['estimate'], a['ci_low'], a['ci_high'])} on {v['n']} "
                   f"(ties {v['ties']}, no majority {v['no_majority']}, unsure {v['unsure']})")


@ratings_app.command("agreement")
def agreement_cmd(project: ProjectArg,
                  rating_set: Annotated[Optional[str], typer.Option(
                      "--set", help="one rating set (default: all)")] = None,
                  as_json: JsonOpt = False,
                  csv_out: Annotated[Optional[Path], typer.Option("--csv", help="also write the table as CSV")] = None,
                  resamples: Annotated[int, typer.Option("--resamples", help="bootstrap replicates")] = 1000,
                  seed: Annotated[int, typer.Option("--seed", help="bootstrap seed")] = 0,
                  raw_cells: RawCellsOpt = False) -> None:
    """Agreement between raters: alpha, pairwise agreement, each rater and each scorer against the majority."""
    from fieldstudio.ratings import rating_records as ratings
    from fieldstudio.ratings.csv_table import write_agreement_csv

    with open_project(project) as p:
        names = [rating_set] if rating_set else [s.name for s in ratings.list_rating_sets(p)]
        if not names:
            raise fail("no rating sets in this project", 1)
        summaries = {n: agreement_of(p, n, n_resamples=resamples, seed=seed) for n in names}
        names = [ratings.get_rating_set(p, n).name for n in names]
    results = [{"rating_set": n, **s.to_dict()} for n, s in zip(names, summaries.values())]
    if csv_out is not None:
        if len(results) > 1:
            raise fail("--csv needs --set (one rating set per file)")
        write_agreement_csv(next(iter(summaries.values())), csv_out, rating_set=names[0], raw_cells=raw_cells)
    if as_json:
        out.print_json(json.dumps(results[0] if rating_set else results))
        return
    for r in results:
        _print_summary(r["rating_set"], r)


@ratings_app.command("export-package")
def export_package_cmd(project: ProjectArg, rating_set: SetOpt,
                       out: Annotated[Path, typer.Argument(help="package to write: .zip (with media) or .json")],
                       rater: Annotated[Optional[list[str]], typer.Option(
                           "--rater", help="include this rater's ratings (sending work back); repeat")] = None,
                       all_ratings: Annotated[bool, typer.Option("--all-ratings", help="include every rating")] = False,
                       no_media: Annotated[bool, typer.Option("--no-media", help="leave the media files out")] = False,
                       ground_truth: Annotated[bool, typer.Option("--ground-truth",
                                                                  help="include known ground truth")] = False) -> None:
    """Export a rating set for an offline rater (blind: no answers unless --rater/--all-ratings)."""
    from fieldstudio.ratings.packages import export_package

    ratings_of: Any = "all" if all_ratings else (rater or None)
    with open_project(project) as p:
        report = export_package(p, rating_set, out, ratings_of=ratings_of, include_media=not no_media,
                                include_ground_truth=ground_truth)
    _print(f"wrote {out}: {report.items} item(s), {report.ratings} rating(s), {report.media_files} media file(s)")
    if report.missing:
        _print(f"  media files not found on disk (not included): {', '.join(report.missing)}")


@ratings_app.command("import-package")
def import_package_cmd(project: ProjectArg,
                       file: Annotated[Path, typer.Argument(help="rating package (.zip or .json)")]) -> None:
    """Merge a rating package by UUID: no duplicates, nothing lost; importing twice changes nothing."""
    from fieldstudio.ratings.packages import import_package

    with open_project(project) as p:
        r = import_package(p, file)
    _print(f"{r.rating_set!r}{' (created)' if r.set_created else ''}: items {r.items_added} added, "
           f"{r.items_known} known, {r.items_aliased} matched by media; media {r.media_added} added; ratings "
           f"{r.ratings_added} added, {r.ratings_updated} updated, {r.ratings_unchanged} unchanged")
    if r.media_missing:
        _print(f"  media not found: {', '.join(r.media_missing)}")
    for label, who, kept in r.conflicts:
        _print(f"  conflict on {label} by {who}: kept the {kept} version, the other is in its history")


# --------------------------------------------------------------------------- acceptability


def _load_rules(p: Project, rating_set: str, rules_file: Path | None) -> Any:
    from fieldstudio.ratings.acceptability.rules import load_rules
    from fieldstudio.ratings.acceptability.service import rules_of

    return load_rules(rules_file) if rules_file else rules_of(p, rating_set)


RulesOpt = Annotated[Optional[Path], typer.Option("--rules", help="rules JSON (default: the set's stored rules)")]


@acceptability_app.command("measure")
def measure_cmd(project: ProjectArg, rating_set: SetOpt, as_json: JsonOpt = False) -> None:
    """Measure every item of a rating set (sharpness, exposure, contrast, box share, in frame, occlusion)."""
    from fieldstudio.ratings.acceptability.service import measure_rating_set

    with open_project(project) as p:
        measured = measure_rating_set(p, rating_set)
    if as_json:
        out.print_json(json.dumps([{"item_id": m.item_id, "item": m.label, "measures": m.measures,
                                       "target_box": m.target_box, "target_source": m.target_source,
                                       "error": m.error} for m in measured]))
        return
    for m in measured:
        if m.measures is None:
            _print(f"{m.label}: {m.error}")
            continue
        ms = m.measures
        _print(f"{m.label} ({m.target_source}): sharpness_norm {ms['sharpness_norm']:.1f}, "
               f"highlights {ms['highlights_clipped']:.3f}, shadows {ms['shadows_clipped']:.3f}, "
               f"mean luma {ms['mean_luma']:.1f}, rms contrast {ms['rms_contrast']:.3f}, "
               f"box share {ms['box_area_share']:.3f}, in frame {ms['box_in_frame']}, "
               f"occluded {ms['occluded_fraction']:.3f}")


@acceptability_app.command("tune")
def tune_cmd(project: ProjectArg, rating_set: SetOpt,
             seed: Annotated[int, typer.Option("--seed", help="seed of the 60/40 split and the bootstrap")] = 0,
             rules_file: RulesOpt = None,
             save: Annotated[Optional[Path], typer.Option("--save", help="also write the tuned rules here")] = None,
             as_json: JsonOpt = False,
             resamples: Annotated[int, typer.Option("--resamples", help="bootstrap replicates")] = 1000) -> None:
    """Tune the thresholds on 60 % of the rated items and report on the held-out 40 % (stored with the set)."""
    from fieldstudio.ratings.acceptability.rules import save_rules
    from fieldstudio.ratings.acceptability.service import tune_rating_set

    with open_project(project) as p:
        report = tune_rating_set(p, rating_set, rules=_load_rules(p, rating_set, rules_file), seed=seed,
                                 n_resamples=resamples)
    if save is not None:
        save_rules(report.rules, save)
    d = report.to_dict()
    if as_json:
        out.print_json(json.dumps(d))
        return
    _print(f"tuned on {d['n_train']} item(s) (agreement {_num(d['train_agreement'])}), held out {d['n_test']} "
           f"(seed {seed}); {d['ties']} tie(s) and {d['no_majority']} item(s) without a majority left out")
    for t in report.rules.terms:
        _print(f"  {t.name}" + (f" ± {t.gray:g}" if t.gray else ""))
    _print(f"held-out ({d['test_unsure']} left unsure by the rules):")
    for k, iv in d["test"].items():
        _print(f"  {k}: {_ci(iv['estimate'], iv['ci_low'], iv['ci_high'])} on {iv['n']}")
    for who, v in d["raters_vs_majority"].items():
        a = v["agreement"]
        _print(f"  rater {who} vs majority of the others: {_ci(a['estimate'], a['ci_low'], a['ci_high'])} on {v['n']}")


@acceptability_app.command("score")
def score_cmd(project: ProjectArg, rating_set: SetOpt, rules_file: RulesOpt = None, as_json: JsonOpt = False) -> None:
    """Apply the rules to every item; store the verdicts as the scorer `acceptability-rules`."""
    from fieldstudio.ratings.acceptability.service import SOURCE, score_rating_set

    with open_project(project) as p:
        report = score_rating_set(p, rating_set, rules=_load_rules(p, rating_set, rules_file))
    if as_json:
        out.print_json(json.dumps({"source": SOURCE, "counts": report.counts, "errors": report.errors,
                                      "verdicts": {k: {"verdict": v.verdict, "failing": v.failing,
                                                       "undecided": v.undecided, "reasons": v.reasons}
                                                   for k, v in report.verdicts.items()}}))
        return
    c = report.counts
    _print(f"stored {sum(c.values())} verdict(s) as {SOURCE}: {c['accept']} accept, {c['reject']} reject, "
           f"{c['unsure']} unsure")
    for label, reason in report.errors:
        _print(f"  {label}: not measured ({reason})")
