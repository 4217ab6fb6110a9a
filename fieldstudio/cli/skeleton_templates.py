"""`fieldstudio annotations skeleton P LABEL`: show or set a label's skeleton template (issue 32 item 1).

Calls :mod:`fieldstudio.annotations.skeleton_templates`, the service the window's Annotate ▸ Skeleton template of a
label… calls; a refusal prints one line and exits 2.
"""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from fieldstudio.cli import output as cli_support


def skeleton_cmd(
    project: cli_support.ProjectArg,
    label: Annotated[str, typer.Argument(help="the label (name or id)")],
    points: Annotated[Optional[str], typer.Option("--points", help="the point names in order, comma-separated: "
                                                  "thumb,index,middle,ring,little")] = None,
    limbs: Annotated[str, typer.Option("--limbs", help="limbs as 0-based point pairs: 0-1,1-2 (with --points)")] = "",
    reset: Annotated[bool, typer.Option("--reset", help="back to the built-in 17 COCO body points")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the template as JSON")] = False,
) -> None:
    """Show the skeleton template a new skeleton of LABEL gets (its own, else the 17 COCO body points); --points
    (and --limbs) give it its own, --reset takes it back to COCO's. One undoable edit; refused (exit 2) for empty or
    repeated names, a limb outside the points or from a point to itself, or a change of the number of points while
    skeletons use the template."""
    from fieldstudio.annotations import skeleton_templates as st

    if reset and points is not None:
        raise cli_support.fail("give --points or --reset, not both")
    if points is None and limbs:
        raise cli_support.fail("--limbs goes with --points")
    with cli_support.open_project(project) as p:
        try:
            lab = st.label_named(p, label)
            if reset or points is not None:
                names = None if reset else [n for n in points.split(",")]
                st.SetSkeletonTemplate(p, lab.id, names, [] if reset else st.parse_limbs(limbs)).do()
        except st.SkeletonTemplateError as exc:
            raise cli_support.fail(str(exc)) from None
        row = st.describe(p, lab.id)
    if as_json:
        cli_support.out.print_json(json.dumps(row))
        return
    whose = "its own" if row["own"] else "the built-in COCO person"
    cli_support.out.print(f"{row['label']}: {whose}, {len(row['points'])} points", markup=False)
    for i, name in enumerate(row["points"]):
        cli_support.out.print(f"  {i}  {name}", markup=False)
    cli_support.out.print("limbs: " + (", ".join(f"{a}-{b}" for a, b in row["limbs"]) or "none"), markup=False)
    if row["own"]:
        cli_support.out.print(f"{row['marks']} skeleton mark(s) use it", markup=False)
