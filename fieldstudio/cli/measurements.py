"""`fieldstudio calibrations list|use`: which calibration measures each media; the same services as the window's
Calibrations panel (``annotations.calibrations``: ``in_use_status``, ``ChooseCalibration``).
"""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from fieldstudio.cli import output as cli_support


def register(app: typer.Typer) -> None:
    """Add the ``calibrations`` group (list, use) to ``app``."""
    group = typer.Typer(help="Calibrations: list them with the one in use, choose which one applies.",
                        no_args_is_help=True)
    app.add_typer(group, name="calibrations")

    @group.command("list")
    def list_cmd(
        project: Annotated[str, typer.Argument(help="project file (.fieldstudio) or PostgreSQL URL")],
        as_json: Annotated[bool, typer.Option("--json", help="print a JSON list")] = False,
    ) -> None:
        """Print every calibration: what it applies to, its kind and size, and whether it is in use.

        When a media or camera group has both a scale and a floor calibration, one is in use (it measures every
        ruler, box and trajectory) and the other is "not in use"; `calibrations use` chooses.
        """
        from fieldstudio.annotations import calibrations as cal
        from fieldstudio.media import inventory

        with cli_support.open_project(project) as p:
            names = inventory.media_names(p)
            rows = [{"id": r.id, "applies_to": names.get(r.media_id, r.media_id) if r.media_id
                     else f"camera group {r.camera_group}", "media_id": r.media_id, "camera_group": r.camera_group,
                     "kind": r.kind, "description": r.describe(), "status": cal.in_use_status(p, r)}
                    for r in cal.list_calibrations(p)]
        if as_json:
            cli_support.out.print_json(json.dumps(rows))
            return
        for r in rows:
            cli_support.out.print(f"{r['id']}  {r['applies_to']}  {r['kind']}  {r['status']}  {r['description']}",
                                  markup=False)
        cli_support.out.print(f"{len(rows)} calibration(s)")

    @group.command("use")
    def use_cmd(
        project: Annotated[str, typer.Argument(help="project file (.fieldstudio) or PostgreSQL URL")],
        kind: Annotated[str, typer.Argument(help="scale or floor: the calibration that measures from now on")],
        camera_group: Annotated[Optional[str], typer.Option("--group", "-g", help="for this camera group")] = None,
        media: Annotated[Optional[str], typer.Option("--media", "-m", help=(
            "for this media only (file name or id; wins over its group's choice)"))] = None,
    ) -> None:
        """Choose which calibration applies to a camera group (or one media) that has both a scale and a floor.

        Every ruler, box width and trajectory of its media is then measured with it; the other is kept, "not in
        use". Without a choice the floor applies.
        """
        from fieldstudio.annotations import calibrations as cal
        from fieldstudio.annotations import rows as views
        from fieldstudio.annotations.edits import ChooseCalibration
        from fieldstudio.media import library

        if kind not in cal.KINDS:
            raise cli_support.fail(f"{kind!r}: choose scale or floor")
        if (camera_group is None) == (media is None):
            raise cli_support.fail("give --group NAME or --media FILE (one of them)")
        with cli_support.open_project(project) as p:
            media_id = library.find_media(p, media).id if media else None
            if camera_group is not None and camera_group not in views.camera_groups(p):
                raise cli_support.fail(f"no camera group {camera_group!r} (groups: "
                                       f"{', '.join(views.camera_groups(p)) or 'none'})")
            ChooseCalibration(p, kind, media_id=media_id, camera_group=camera_group).do()
            scope = f"camera group {camera_group!r}" if camera_group else media
            present = [r for r in cal.list_calibrations(p) if (r.media_id == media_id if media_id
                                                                else r.camera_group == camera_group)]
        kinds = {r.kind for r in present}
        note = "" if kind in kinds else f" (it has no {kind} calibration yet: the choice applies once it has one)"
        cli_support.out.print(f"{scope}: the {kind} calibration is in use{note}", markup=False)

