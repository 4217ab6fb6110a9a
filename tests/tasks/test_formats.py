"""The format registry (``fieldstudio.tasks.formats``): the names, choices and suffixes the fronts offer, and
which format claims a file that two formats could read."""

from __future__ import annotations

import json

import pytest

from fieldstudio.tasks import formats


def test_the_registry_names_the_formats_other_modules_refer_to():
    assert formats.names(formats.TASKS) == ("fieldworkarena", "industryeqa", "openeqa", "csv-tasks")
    assert formats.names(formats.ANSWERS) == ("fieldworkarena-log", "industryeqa-answers", "openeqa-results",
                                              "csv-answers")
    assert formats.choices() == ("fieldworkarena", "industryeqa", "openeqa", "csv")
    assert formats.export_choices() == ("fieldworkarena", "industryeqa", "openeqa", "csv", "xlsx")
    assert [formats.by_choice(c, formats.ANSWERS).name for c in formats.choices()] == list(
        formats.names(formats.ANSWERS))
    assert formats.file_suffixes(formats.TASKS) == (".json", ".csv", ".tsv")
    with pytest.raises(KeyError, match="known: fieldworkarena"):
        formats.get("nope")


def test_a_result_file_that_repeats_the_ground_truth_is_answers_whatever_the_order(tmp_path):
    """IndustryEQA's annotation keys and its answer keys on one record: the file holds answers (as before the
    registry, when the answer check came first); the annotation format itself says no."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps([{"question_id": 1, "question": "q", "direct_answer": "a",
                                 "generated_direct_answer": "b"}]), "utf-8")
    assert formats.sniff_format(path) == ("industryeqa-answers", "")
    assert formats.get("industryeqa").sniff(json.loads(path.read_text())) is False
