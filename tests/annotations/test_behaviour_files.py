"""BORIS's tabular events and ELAN's tab-delimited text: written files read back with pandas (an independent
parser of the layout) and checked against values worked out from the hand-written frame table; BORIS files
imported as a coder's events."""

from __future__ import annotations

import pandas as pd
import pytest

from fieldstudio.annotations.behaviour import behaviour_events as events
from fieldstudio.annotations.behaviour import coding, observations
from fieldstudio.annotations.behaviour import ethogram as eth
from fieldstudio.core.errors import FieldstudioError
from tests.support.annotation_fixtures import START_PTS, TIME_BASE, VIDEO_ID, hand_pts

BORIS_COLUMNS = ["Observation id", "Observation date", "Description", "Observation duration", "Observation type",
                 "Source", "Time offset (s)", "Media duration (s)", "FPS", "Subject", "Behavior",
                 "Behavioral category", "Modifier #1", "Behavior type", "Time", "Media file name", "Image index",
                 "Image file path", "Comment"]


def _s(frame: int) -> float:
    return float((hand_pts(frame) - START_PTS) * TIME_BASE)


@pytest.fixture
def coded(ethogram_project):
    """Events coded by "ann": A lifts (heavy) 3-9, walks 9-20; B enters the zone on 5 and lifts from 25 on."""
    media_project, e = ethogram_project
    for name, frame, subject, mods in (("lift", 3, "A", ("heavy",)), ("walk", 9, "A", ()), ("enter zone", 5, "B", ()),
                                       ("walk", 20, "A", ()), ("lift", 25, "B", ())):
        edit, _ = coding.code_behaviour(media_project, e, VIDEO_ID, name, frame, subject=subject, modifiers=mods,
                                        coder="ann")
        edit.do()
    return media_project


@pytest.mark.parametrize("fmt,name,sep", [("boris-csv", "obs.csv", ","), ("boris-tsv", "obs.tsv", "\t")])
def test_boris_tabular_layout_read_back_by_pandas(coded, tmp_path, fmt, name, sep):
    written, running = observations.export_events(coded, VIDEO_ID, tmp_path / name, fmt)
    assert (written, running) == (3, 1)      # B's lift (frame 25) still runs: BORIS refuses unpaired states
    table = pd.read_csv(tmp_path / name, sep=sep, dtype=str, keep_default_na=False)
    assert list(table.columns) == BORIS_COLUMNS
    rows = list(zip(table["Subject"], table["Behavior"], table["Modifier #1"], table["Behavior type"],
                    table["Time"], table["Image index"]))
    assert rows == [("A", "lift", "heavy", "START", f"{_s(3):.3f}", "3"),
                    ("B", "enter zone", "", "POINT", f"{_s(5):.3f}", "5"),
                    ("A", "lift", "heavy", "STOP", f"{_s(9):.3f}", "9"),      # stopped by walk (exclusive)
                    ("A", "walk", "", "START", f"{_s(9):.3f}", "9"),
                    ("A", "walk", "", "STOP", f"{_s(20):.3f}", "20")]
    assert f"{_s(3):.3f}" == "0.133" and f"{_s(20):.3f}" == "0.867"          # 12000 and 78000 ticks of 1/90000 s
    last = _s(29)                                                           # no container duration: the last frame
    assert set(table["Observation id"]) == {"walk.mp4"} and set(table["Source"]) == {"player #1:walk.mp4"}
    assert set(table["Media duration (s)"]) == {f"{last:.3f}"} and set(table["FPS"]) == {"22.500"}
    assert set(table["Observation type"]) == {"Media file(s)"} and set(table["Image file path"]) == {"NA"}


def test_elan_text_read_back_by_pandas(coded, tmp_path):
    observations.export_events(coded, VIDEO_ID, tmp_path / "obs.txt", "elan")
    table = pd.read_csv(tmp_path / "obs.txt", sep="\t", dtype=str)
    assert list(table.columns) == ["Tier", "Begin Time - ss.msec", "End Time - ss.msec", "Duration - ss.msec",
                                   "Annotation"]
    assert table.values.tolist() == [
        ["A", "0.133", "0.400", "0.267", "lift [heavy]"], ["A", "0.400", "0.867", "0.467", "walk"],
        ["B", "0.200", "0.201", "0.001", "enter zone"]]


def test_boris_file_imported_as_another_coders_events_and_undone(coded, tmp_path):
    observations.export_events(coded, VIDEO_ID, tmp_path / "obs.tsv", "boris-tsv")
    report = observations.import_events(coded, VIDEO_ID, tmp_path / "obs.tsv", coder="boris")
    assert report.events == 3 and report.new_behaviours == [] and report.problems == []
    report.edit.do()
    mine = [(e.behaviour, e.subject, e.frame_index, e.end_frame_index, e.modifiers)
            for e in events.list_events(coded, VIDEO_ID, coder="ann") if not e.is_open]
    theirs = [(e.behaviour, e.subject, e.frame_index, e.end_frame_index, e.modifiers)
              for e in events.list_events(coded, VIDEO_ID, coder="boris")]
    assert sorted(theirs) == sorted(mine)
    comparison = observations.compare_coders(coded, VIDEO_ID, "ann", "boris", slice_s=0.1, tolerance_s=0.0)
    assert len(comparison.matched.pairs) == 3 and len(comparison.matched.only_a) == 1    # B's running lift
    report.edit.undo()
    assert events.list_events(coded, VIDEO_ID, coder="boris") == []


def test_older_boris_layout_with_a_preamble_status_and_unknown_behaviours(coded, tmp_path):
    # BORIS 7's tabular export: a preamble, then Time ... Status; no frame index, so frames come from the times
    lines = ["Observation id\tobs 1", "", "Media file(s)", "", "Time\tMedia file path\tTotal length\tFPS\tSubject\t"
             "Behavior\tBehavioral category\tComment\tStatus",
             f"{_s(2):.3f}\twalk.mp4\t1.267\t22.5\tC\tcarry\t\t\tSTART",
             f"{_s(6):.3f}\twalk.mp4\t1.267\t22.5\tC\tcarry\t\t\tSTOP",
             f"{_s(8) + 0.001:.3f}\twalk.mp4\t1.267\t22.5\tC\tcarry\t\t\tSTOP",
             f"{_s(7):.3f}\twalk.mp4\t1.267\t22.5\tNo focal subject\tenter zone\t\t\tPOINT"]
    (tmp_path / "old.tsv").write_text("\n".join(lines) + "\n")
    report = observations.import_events(coded, VIDEO_ID, tmp_path / "old.tsv", coder="old")
    assert report.new_behaviours == ["carry"] and report.new_subjects == ["C"]
    assert report.problems == ["line 8: STOP of carry (C) without a START; skipped"]
    report.edit.do()
    got = [(e.behaviour, e.subject, e.frame_index, e.end_frame_index) for e in
           events.list_events(coded, VIDEO_ID, coder="old")]
    assert got == [("carry", "C", 2, 6), ("enter zone", "", 7, 7)]
    assert eth.load(coded).behaviour("carry").key == ""
    (tmp_path / "not.csv").write_text("a,b\n1,2\n")
    with pytest.raises(FieldstudioError, match="not BORIS's tabular events"):
        observations.import_events(coded, VIDEO_ID, tmp_path / "not.csv", coder="x")


def test_budget_of_a_video_over_its_frames(coded):
    result = observations.budget(coded, "walk.mp4", coder="ann")
    assert result.end_s == pytest.approx(_s(29))
    walk = next(r for r in result.rows if (r.subject, r.behaviour) == ("A", "walk"))
    assert walk.total_s == pytest.approx(_s(20) - _s(9))
    assert walk.percent == pytest.approx(100 * (_s(20) - _s(9)) / _s(29))
    running = next(r for r in result.rows if (r.subject, r.behaviour) == ("B", "lift"))
    assert running.total_s == pytest.approx(_s(29) - _s(25))


def test_boris_file_in_utf16_read_other_bytes_refused_and_times_past_the_end_reported(coded, tmp_path):
    # found by a fresh-eyes review: a non-UTF-8 file raised a traceback; a stop past the video's end was moved silently
    observations.export_events(coded, VIDEO_ID, tmp_path / "obs.tsv", "boris-tsv")
    text = (tmp_path / "obs.tsv").read_text(encoding="utf-8")
    (tmp_path / "utf16.tsv").write_text(text, encoding="utf-16")  # a byte-order mark, as a spreadsheet saves it
    assert observations.import_events(coded, VIDEO_ID, tmp_path / "utf16.tsv", coder="u16").events == 3
    (tmp_path / "bin.csv").write_bytes(b"Behavior,Time\n\xff\x00garbage\n")
    with pytest.raises(FieldstudioError, match=r"bin.csv: not BORIS's tabular events: byte 14 is not UTF-8 text"):
        observations.import_events(coded, VIDEO_ID, tmp_path / "bin.csv", coder="x")
    end = _s(29)
    lines = ["Time\tMedia file path\tTotal length\tFPS\tSubject\tBehavior\tBehavioral category\tComment\tStatus",
             f"{_s(2):.3f}\twalk.mp4\t1.267\t22.5\tC\tcarry\t\t\tSTART",
             f"{end + 99:.3f}\twalk.mp4\t1.267\t22.5\tC\tcarry\t\t\tSTOP"]
    (tmp_path / "late.tsv").write_text("\n".join(lines) + "\n")
    report = observations.import_events(coded, VIDEO_ID, tmp_path / "late.tsv", coder="late")
    assert report.problems == [f"the stop of carry (C) at {end + 99:.3f} s is past the video's end ({end:.3f} s): "
                               "put on its last frame 29"]
    report.edit.do()
    assert [(e.frame_index, e.end_frame_index) for e in events.list_events(coded, VIDEO_ID, coder="late")] == [(2, 29)]


def test_importing_the_same_file_twice_adds_nothing_the_second_time(coded, tmp_path):
    observations.export_events(coded, VIDEO_ID, tmp_path / "obs.tsv", "boris-tsv")
    first = observations.import_events(coded, VIDEO_ID, tmp_path / "obs.tsv", coder="boris")
    first.edit.do()
    again = observations.import_events(coded, VIDEO_ID, tmp_path / "obs.tsv", coder="boris")
    assert (again.events, again.already, again.edit) == (0, 3, None)
    assert again.lines()[:2] == ["0 event(s) imported", "already in the project: 3 event(s)"]
    assert len(events.list_events(coded, VIDEO_ID, coder="boris")) == 3
    # another coder's copy is not "already there": each coder's record is their own
    assert observations.import_events(coded, VIDEO_ID, tmp_path / "obs.tsv", coder="carol").events == 3


def test_imported_states_overlapping_the_record_are_reported_by_line_and_not_stored(coded, tmp_path):
    """ann has A lift 3-9 (group posture with walk); the file's A walk 5-6 overlaps it, and its second C carry 4-7
    overlaps its own first one, 2-6."""
    rows = [("A", "walk", "START", 5), ("A", "walk", "STOP", 6), ("C", "carry", "START", 2), ("C", "carry", "STOP", 6),
            ("C", "carry", "START", 4), ("C", "carry", "STOP", 7)]
    lines = ["Observation id\tobs 1", "", "Media file(s)", "", "Time\tMedia file path\tTotal length\tFPS\tSubject\t"
             "Behavior\tBehavioral category\tComment\tStatus"]
    lines += [f"{_s(f):.3f}\twalk.mp4\t1.267\t22.5\t{s}\t{b}\t\t\t{st}" for s, b, st, f in rows]
    (tmp_path / "over.tsv").write_text("\n".join(lines) + "\n")
    report = observations.import_events(coded, VIDEO_ID, tmp_path / "over.tsv", coder="ann")
    assert report.events == 1
    assert report.problems == [
        "line 6: walk (A) from frame 5 to 6 not imported: A is already lift from frame 3 to 9 (coded by ann)",
        "line 10: carry (C) from frame 4 to 7 not imported: C is already carry from frame 2 to 6 (coded by ann)"]
    report.edit.do()
    assert [(e.behaviour, e.frame_index, e.end_frame_index) for e in events.list_events(coded, VIDEO_ID, coder="ann")
            if e.subject == "C"] == [("carry", 2, 6)]
