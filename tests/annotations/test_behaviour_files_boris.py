"""BORIS's tabular events checked with BORIS's own code (issue 32 "Done when"; boris-behav-obs 10.0.2, the ``readers``
test extra).

BORIS has no reader of its tabular events: its only imports of coded events are
``boris/import_observations.py`` ``load_observations_from_boris_project`` (a ``.boris`` project file) and
``load_observations_from_spreadsheet`` (an XLSX or ODS sheet with the columns time, subject, code, modifier and
comment), both methods of its main window. So the layout is checked against the code that defines it: BORIS's own
writer, ``boris/export_observation.py`` ``export_tabular_events`` (what Observations ▸ Export events ▸ Tabular
events runs, headless), is given an observation holding the events the test codes (times from the hand-written
frame table), and writes the same bytes as our export; our import reads BORIS's file back as those events. And the
closest reader BORIS has, its spreadsheet import, loads our ``boris-xlsx`` sheet into an observation. Three
behaviours for two subjects: point and state events, modifiers, a state stopped by an exclusive one.
"""

from __future__ import annotations

import csv
from decimal import Decimal

import pytest

from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import coding, observations
from tests.support.annotation_fixtures import START_PTS, TIME_BASE, VIDEO_ID, hand_pts
from tests.support.format_readers import boris

# (behaviour, frame, subject, modifiers) in coding order: A lifts (heavy) on 3, walks on 9 (which stops lift: one
# exclusive group) until 20, enters the zone on 5 (coded after B) and 24; B enters the zone on 5, lifts (light) from
# 12 to 18, enters the zone again on 22
CODED = [("lift", 3, "A", ("heavy",)), ("enter zone", 5, "B", ()), ("enter zone", 5, "A", ()), ("walk", 9, "A", ()),
         ("lift", 12, "B", ("light",)), ("lift", 18, "B", ()), ("walk", 20, "A", ()), ("enter zone", 22, "B", ()),
         ("enter zone", 24, "A", ())]
# the same record as BORIS holds it, its events sorted as lists (time, subject, code, modifiers: A before B on 5):
# (frame, subject, code, modifier string) per START, STOP or POINT
BORIS_EVENTS = [(3, "A", "lift", "heavy"), (5, "A", "enter zone", ""), (5, "B", "enter zone", ""),
                (9, "A", "lift", "heavy"), (9, "A", "walk", ""), (12, "B", "lift", "light"),
                (18, "B", "lift", "light"), (20, "A", "walk", ""), (22, "B", "enter zone", ""),
                (24, "A", "enter zone", "")]


def _s(frame: int) -> float:
    """Seconds of ``frame`` after the first frame, from the hand-written frame table."""
    return float((hand_pts(frame) - START_PTS) * TIME_BASE)


@pytest.fixture
def two_subjects_coded(ethogram_project):
    """``ethogram_project`` with CODED recorded by coder "ann" (every state stopped)."""
    project, ethogram = ethogram_project
    for name, frame, subject, mods in CODED:
        edit, _ = coding.code_behaviour(project, ethogram, VIDEO_ID, name, frame, subject=subject, modifiers=mods,
                                        coder="ann")
        edit.do()
    return project


def _boris_writes(tmp_path, output_format: str, *, exclusive_stop_as_boris_records: bool = False):
    """BORIS's own ``export_tabular_events`` on an observation of walk.mp4 holding BORIS_EVENTS; the file's path.
    ``exclusive_stop_as_boris_records``: the STOP of A's lift (stopped by walk on 9) as BORIS's ``write_event``
    records an exclusive stop in a media observation: 1 ms before walk's start, its frame "NA"."""
    cfg, writer = boris("config"), boris("export_observation")
    length = Decimal(f"{_s(29):.3f}")   # no container duration in the test media: the last frame's time, as ours
    ethogram = {"0": {cfg.TYPE: cfg.STATE_EVENT, "key": "l", cfg.BEHAVIOR_CODE: "lift", "description": "",
                      cfg.BEHAVIOR_CATEGORY: ""},
                "1": {cfg.TYPE: cfg.STATE_EVENT, "key": "w", cfg.BEHAVIOR_CODE: "walk", "description": "",
                      cfg.BEHAVIOR_CATEGORY: ""},
                "2": {cfg.TYPE: cfg.POINT_EVENT, "key": "z", cfg.BEHAVIOR_CODE: "enter zone", "description": "",
                      cfg.BEHAVIOR_CATEGORY: ""}}
    observation = {
        cfg.TYPE: cfg.MEDIA, "date": "", cfg.DESCRIPTION: "coded by ann", cfg.TIME_OFFSET: Decimal("0.0"),
        cfg.FILE: {cfg.PLAYER1: ["walk.mp4"]},
        cfg.MEDIA_INFO: {cfg.LENGTH: {"walk.mp4": length}, cfg.FPS: {"walk.mp4": 22.5}},
        cfg.EVENTS: [[Decimal(f"{_s(f):.3f}"), subject, code, modifier, "", f]
                     for f, subject, code, modifier in BORIS_EVENTS]}
    if exclusive_stop_as_boris_records:
        at = BORIS_EVENTS.index((9, "A", "lift", "heavy"))
        observation[cfg.EVENTS][at] = [Decimal(f"{_s(9):.3f}") - Decimal("0.001"), "A", "lift", "heavy", "", cfg.NA]
    pj = {cfg.ETHOGRAM: ethogram, cfg.OBSERVATIONS: {"walk.mp4": observation}}
    parameters = {"time": cfg.TIME_FULL_OBS, cfg.SELECTED_SUBJECTS: ["A", "B"],
                  cfg.SELECTED_BEHAVIORS: ["lift", "walk", "enter zone"]}
    path = tmp_path / f"boris.{output_format}"
    ok, message = writer.export_tabular_events(pj, parameters, "walk.mp4", observation, ethogram, str(path),
                                               output_format)
    assert ok, message
    return path


def _rows(path, delimiter: str) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return [row for row in csv.reader(f, delimiter=delimiter) if row]


@pytest.mark.parametrize("fmt, output_format, delimiter", [("boris-tsv", "tsv", "\t"), ("boris-csv", "csv", ",")])
def test_boris_writes_the_same_table_as_ours_for_the_same_events(two_subjects_coded, tmp_path, fmt, output_format,
                                                                   delimiter):
    ours = tmp_path / f"ours.{output_format}"
    assert observations.export_events(two_subjects_coded, VIDEO_ID, ours, fmt) == (7, 0)   # 3 states, 4 points
    theirs = _boris_writes(tmp_path, output_format)
    ours_rows, boris_rows = _rows(ours, delimiter), _rows(theirs, delimiter)
    assert ours_rows[0] == boris_rows[0]                 # the header: BORIS's columns, one "Modifier #1"
    assert len(ours_rows) == len(boris_rows) == 1 + len(BORIS_EVENTS)
    for n, (mine, boris_row) in enumerate(zip(ours_rows, boris_rows)):
        assert dict(zip(ours_rows[0], mine)) == dict(zip(boris_rows[0], boris_row)), f"row {n}"
    assert ours.read_bytes() == theirs.read_bytes()      # CRLF line ends and quoting too
    header = ours_rows[0]
    picked = [(r[header.index("Subject")], r[header.index("Behavior")], r[header.index("Behavior type")],
               r[header.index("Time")]) for r in ours_rows[1:]]
    assert picked[:5] == [("A", "lift", "START", f"{_s(3):.3f}"), ("A", "enter zone", "POINT", f"{_s(5):.3f}"),
                          ("B", "enter zone", "POINT", f"{_s(5):.3f}"), ("A", "lift", "STOP", f"{_s(9):.3f}"),
                          ("A", "walk", "START", f"{_s(9):.3f}")]


def test_our_import_reads_borises_own_file_as_the_coded_events(two_subjects_coded, tmp_path):
    path = _boris_writes(tmp_path, "tsv")
    report = observations.import_events(two_subjects_coded, VIDEO_ID, path, coder="boris")
    assert not report.problems and report.events == 7
    report.edit.do()
    got = sorted((e.subject, e.behaviour, e.type, e.frame_index, e.end_frame_index, e.modifiers)
                 for e in events.list_events(two_subjects_coded, VIDEO_ID, coder="boris"))
    assert got == [("A", "enter zone", "point", 5, 5, ()), ("A", "enter zone", "point", 24, 24, ()),
                   ("A", "lift", "state", 3, 9, ("heavy",)),
                   ("A", "walk", "state", 9, 20, ()), ("B", "enter zone", "point", 5, 5, ()),
                   ("B", "enter zone", "point", 22, 22, ()), ("B", "lift", "state", 12, 18, ("light",))]


def test_a_state_boris_stopped_by_an_exclusive_one_ends_on_the_frame_the_next_starts(two_subjects_coded, tmp_path):
    path = _boris_writes(tmp_path, "tsv", exclusive_stop_as_boris_records=True)
    rows = _rows(path, "\t")
    stop = next(r for r in rows if r[rows[0].index("Behavior type")] == "STOP")
    assert (stop[rows[0].index("Behavior")], stop[rows[0].index("Time")], stop[rows[0].index("Image index")]) == \
        ("lift", f"{Decimal(f'{_s(9):.3f}') - Decimal('0.001')}", "NA")   # as BORIS wrote it
    assert _s(8) <= float(stop[rows[0].index("Time")]) < _s(9)          # the time alone is on frame 8
    report = observations.import_events(two_subjects_coded, VIDEO_ID, path, coder="boris")
    assert not report.problems and report.events == 7
    report.edit.do()
    lift = [(e.frame_index, e.end_frame_index) for e in events.list_events(two_subjects_coded, VIDEO_ID, coder="boris")
            if (e.subject, e.behaviour) == ("A", "lift")]
    assert lift == [(3, 9)]             # walk starts on 9: lift ends there, as our coding ended it (not on 8)


class _SilentBox:
    """Stands in for BORIS's QMessageBox: its import reports success in a modal box nobody would close here."""

    shown: list[str] = []

    @classmethod
    def information(cls, _parent, _title, text, *args):
        cls.shown.append(text)

    warning = critical = information


def test_borises_spreadsheet_import_loads_our_sheet_into_an_observation(two_subjects_coded, tmp_path, monkeypatch):
    """BORIS's only import of events from a file besides a project: ``load_observations_from_spreadsheet`` (a method
    of its main window: it needs the project ``pj``, the open observation's id, and two refreshers) reads our
    ``boris-xlsx`` export into the open observation; BORIS's own ``events_start_stop`` then pairs the STARTs and
    STOPs as ours."""
    path = tmp_path / "ours.xlsx"
    assert observations.export_events(two_subjects_coded, VIDEO_ID, path, "boris-xlsx") == (7, 0)
    cfg, importer, project_functions = boris("config"), boris("import_observations"), boris("project_functions")
    monkeypatch.setattr(importer, "QMessageBox", _SilentBox)

    class Window:   # the attributes of BORIS's main window the import uses
        pj = {cfg.OBSERVATIONS: {"walk": {cfg.EVENTS: []}}}
        observationId = "walk"

        def load_tw_events(self, _obs_id):
            pass

        def project_changed(self):
            pass

    window = Window()
    assert importer.load_observations_from_spreadsheet(window, str(path)) is None   # 1 would be a missing column
    assert _SilentBox.shown[-1] == "Observations imported successfully"
    got = window.pj[cfg.OBSERVATIONS]["walk"][cfg.EVENTS]
    assert [(t, s, c, m) for t, s, c, m, _comment in got] == [
        (pytest.approx(_s(f), abs=5e-4), subject, code, modifier) for f, subject, code, modifier in BORIS_EVENTS]
    ethogram = {"0": {cfg.TYPE: cfg.STATE_EVENT, cfg.BEHAVIOR_CODE: "lift"},
                "1": {cfg.TYPE: cfg.STATE_EVENT, cfg.BEHAVIOR_CODE: "walk"},
                "2": {cfg.TYPE: cfg.POINT_EVENT, cfg.BEHAVIOR_CODE: "enter zone"}}
    flagged = project_functions.events_start_stop(ethogram, got, cfg.LIVE)
    assert [(e[1], e[2], e[-1]) for e in flagged] == [
        ("A", "lift", "START"), ("A", "enter zone", "POINT"), ("B", "enter zone", "POINT"), ("A", "lift", "STOP"),
        ("A", "walk", "START"), ("B", "lift", "START"), ("B", "lift", "STOP"), ("A", "walk", "STOP"),
        ("B", "enter zone", "POINT"), ("A", "enter zone", "POINT")]
