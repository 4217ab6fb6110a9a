"""The project's ethogram: checks, storage, its undoable edit, and BORIS's ethogram read from a project file."""

from __future__ import annotations

import json

import pytest

from fieldstudio.annotations.behaviour import ethogram as eth
from fieldstudio.annotations.behaviour.boris_project import read_boris_ethogram


def _two() -> eth.Ethogram:
    e = eth.with_behaviour(eth.Ethogram(), eth.Behaviour("lift", "l", "", "state", "posture", ("heavy", "light")))
    e = eth.with_behaviour(e, eth.Behaviour("walk", "w", "", "state", "posture"))
    e = eth.with_behaviour(e, eth.Behaviour("enter zone", "z", "#112233", "point"))
    return eth.with_subject(e, eth.Subject("worker A", "1"))


def test_keys_are_unique_across_behaviours_and_subjects_case_insensitively():
    e = _two()
    with pytest.raises(eth.EthogramError, match="already lift's"):
        eth.with_subject(e, eth.Subject("worker B", "L"))
    with pytest.raises(eth.EthogramError, match="one character"):
        eth.with_behaviour(e, eth.Behaviour("carry", "ca"))
    with pytest.raises(eth.EthogramError, match="#rrggbb"):
        eth.with_behaviour(e, eth.Behaviour("carry", "c", "red"))
    with pytest.raises(eth.EthogramError, match="'state' or 'point'"):
        eth.with_behaviour(e, eth.Behaviour("carry", "c", "#000000", "interval"))
    assert e.by_key("L").name == "lift" and e.by_key("1").name == "worker A" and e.by_key("x") is None


def test_palette_colours_exclusive_groups_and_replacing_by_name():
    e = _two()
    assert [b.colour for b in e.behaviours] == [eth.PALETTE[0], eth.PALETTE[1], "#112233"]
    assert [b.name for b in e.exclusive_with(e.behaviour("lift"))] == ["walk"]
    assert e.exclusive_with(e.behaviour("enter zone")) == ()
    e2 = eth.with_behaviour(e, eth.Behaviour("walk", "k", "#00ff00", "state"))
    assert [b.name for b in e2.behaviours] == ["lift", "walk", "enter zone"]    # kept in its place
    assert e2.behaviour("walk").key == "k" and e2.exclusive_with(e2.behaviour("lift")) == ()
    assert [b.name for b in eth.without(e2, "walk").behaviours] == ["lift", "enter zone"]


def test_stored_in_the_project_and_undone(project):
    assert eth.load(project) == eth.Ethogram()
    edit = eth.SetEthogram(project, _two())
    edit.do()
    assert eth.load(project) == _two()
    assert eth.Ethogram.from_json(json.loads(json.dumps(_two().to_json()))) == _two()
    edit.undo()
    assert eth.load(project) == eth.Ethogram()


def test_boris_project_ethogram(tmp_path):
    # written from BORIS's project layout (behaviors_conf / subjects_conf), both modifier forms, an exclusion
    boris = {
        "project_name": "site", "behaviors_conf": {
            "0": {"type": "State event", "key": "l", "code": "lift", "description": "lifting", "color": "red",
                  "category": "", "modifiers": {"0": {"name": "load", "type": 0, "values": ["heavy", "light"]}},
                  "excluded": "walk", "coding map": ""},
            "1": {"type": "State event", "key": "w", "code": "walk", "description": "", "category": "",
                  "modifiers": "", "excluded": "lift", "coding map": ""},
            "2": {"type": "Point event", "key": "z", "code": "enter zone", "description": "", "category": "",
                  "modifiers": "near,far", "excluded": "", "coding map": ""}},
        "subjects_conf": {"0": {"key": "1", "name": "worker A", "description": ""},
                          "1": {"key": "2", "name": "worker B", "description": ""}}}
    path = tmp_path / "site.boris"
    path.write_text(json.dumps(boris))
    e = read_boris_ethogram(path)
    lift, walk, zone = e.behaviours
    assert (lift.name, lift.key, lift.type, lift.colour, lift.modifiers, lift.description) == (
        "lift", "l", "state", "#ff0000", ("heavy", "light"), "lifting")
    assert lift.group == walk.group == "lift" and zone.group == ""
    assert (zone.type, zone.modifiers) == ("point", ("near", "far"))
    assert [(s.name, s.key) for s in e.subjects] == [("worker A", "1"), ("worker B", "2")]
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(eth.EthogramError, match="not a BORIS project"):
        read_boris_ethogram(tmp_path / "other.json")
