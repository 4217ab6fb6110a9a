"""Label lists per kind of mark, typed box attributes, caption contrast and placement (no display needed)."""

from __future__ import annotations

import sqlite3

import pytest

from fieldstudio.annotations import colours
from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.labels import AttributeSpec, LabelError
from fieldstudio.gui.viewer.captions import intersects, place_captions
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import PHOTO_ID, add_test_media


def test_wcag_contrast_of_known_pairs():
    # WCAG 2.1: black on white is 21:1; #767676 on white is the classic 4.54:1 grey
    assert colours.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert colours.contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    for c in (*colours.PALETTE, "#777777", "#808080", "#ff0000", "#00ff00", "#0000ff"):
        ink = colours.text_colour_for(c)
        assert colours.contrast_ratio(c, ink) >= 4.5, c


def test_next_colour_keeps_new_labels_apart():
    assert colours.next_colour([]) == colours.PALETTE[0]
    # after orange, the palette's farthest colour is picked, not the yellow or vermilion next to it
    assert colours.next_colour(["#e69f00"]) not in ("#f0e442", "#d55e00", "#e69f00")
    assert set(colours.next_colour(list(colours.PALETTE)) for _ in range(2)) <= set(colours.PALETTE)


def test_lists_and_keys_per_kind(project):
    person = labels.create_label(project, "person", kinds=["box"])
    walking = labels.create_label(project, "walking", kinds=["segment"])
    old = labels.create_label(project, "old", shortcut=None, auto_shortcut=False)  # every list (kinds None)
    assert [r.name for r in labels.list_labels(project, "box")] == ["person", "old"]
    assert [r.name for r in labels.list_labels(project, "segment")] == ["walking", "old"]
    assert labels.get_label(project, person).shortcut == labels.get_label(project, walking).shortcut == 1
    assert labels.label_for_key(project, 1, "segment").id == walking
    assert labels.label_for_key(project, 1, "box").id == person
    # a key used in one list cannot be given to a label that joins that list
    with pytest.raises(LabelError, match="key 1 already picks"):
        labels.update_label(project, walking, kinds=["segment", "box"])
    assert labels.get_label(project, walking).kinds == ("segment",)   # refused: nothing changed
    with pytest.raises(LabelError, match="key 1 already picks"):
        labels.update_label(project, old, shortcut=1)                  # "old" is in every list
    assert labels.default_label(project, "ruler") is None             # no "distance": made with the ruler
    assert labels.default_label(project, "box").id == person
    assert labels.default_label(project, "event") is None
    with pytest.raises(LabelError, match="unknown kind"):
        labels.create_label(project, "x", kinds=["boxes"])
    # ensure_label with a kind adds the kind to a declared label, and declares a new one for it alone
    assert labels.ensure_label(project, "walking", kind="event") == walking
    assert labels.get_label(project, walking).kinds == ("segment", "event")
    assert labels.get_label(project, labels.ensure_label(project, "cart", kind="box")).kinds == ("box",)


def test_attribute_values_are_converted_to_their_type():
    specs = labels.parse_attribute_specs([{"name": "vest", "type": "bool"},
                                          {"name": "hat", "type": "choice", "choices": ["yes", "no", "?"]},
                                          {"name": "h", "type": "number"}, {"name": "note", "type": "text"}])
    got = labels.check_attribute_values(specs, {"vest": "no", "hat": "?", "h": "1.75", "note": 12, "extra": "x",
                                                "empty": ""})
    assert got == {"vest": False, "hat": "?", "h": 1.75, "note": "12", "extra": "x"}
    assert labels.check_attribute_values(specs, {"vest": "", "h": None}) is None
    with pytest.raises(LabelError, match="'vest': 'maybe' is not yes or no"):
        labels.check_attribute_values(specs, {"vest": "maybe"})
    with pytest.raises(LabelError, match="'h': 'tall' is not a number"):
        labels.check_attribute_values(specs, {"h": "tall"})
    with pytest.raises(LabelError, match="a choice needs at least one choice"):
        labels.parse_attribute_specs([AttributeSpec("c", "choice")])
    with pytest.raises(LabelError, match="declared twice"):
        labels.parse_attribute_specs([AttributeSpec("a", "text"), AttributeSpec("a", "bool")])
    with pytest.raises(LabelError, match="type 'colour' is not one of"):
        labels.parse_attribute_specs([AttributeSpec("a", "colour")])


def test_migration_gives_existing_labels_the_kinds_they_are_used_for(tmp_path):
    from alembic import command

    from fieldstudio.store.project import _alembic_config

    path = tmp_path / "old.fieldstudio"
    with Project.create(path) as p:
        add_test_media(p)
        media = PHOTO_ID
        person = labels.create_label(p, "person")
        unused = labels.create_label(p, "unused")
        ann.add_box(p, media, (1, 1, 5, 5), person)
        ann.add_ruler(p, media, (0, 0), (3, 4), label_id=person)
        cfg = _alembic_config()
        with p.engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0004_provider_batch")   # the revision before label kinds
            conn.commit()
    con = sqlite3.connect(path)
    assert "kinds" not in [r[1] for r in con.execute("PRAGMA table_info(label)")]
    con.close()
    with Project.open(path) as p:       # migrated to the head on open
        assert labels.get_label(p, person).kinds == ("box", "ruler")
        assert labels.get_label(p, unused).kinds is None


@pytest.mark.parametrize("n", [2, 5, 12])
def test_caption_places_never_overlap_while_there_is_room(n):
    # n boxes nested in each other, all sharing the top-left corner: the worst case for corner captions
    boxes = [(100.0, 100.0, 100.0 + 300 - 20 * k, 100.0 + 300 - 20 * k) for k in range(n)]
    sizes = [(60.0, 14.0)] * n
    rects = place_captions(boxes, sizes, (0.0, 0.0, 640.0, 480.0))
    for i, a in enumerate(rects):
        assert 0 <= a[0] and a[2] <= 640 and 0 <= a[1] and a[3] <= 480
        for b in rects[i + 1:]:
            assert not intersects(a, b)
    # a box at the picture's top edge: its chip goes inside, not above the picture
    (r,) = place_captions([(10.0, 0.0, 80.0, 60.0)], [(40.0, 14.0)], (0.0, 0.0, 640.0, 480.0))
    assert r == (10.0, 0.0, 50.0, 14.0)
