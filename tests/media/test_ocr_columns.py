"""The reading order of OCR lines by columns (`media.ocr_columns`), on layouts whose order is written down by hand;
a real two-column page is checked in test_document_ocr.py."""

from __future__ import annotations

from dataclasses import dataclass

from fieldstudio.media.ocr_columns import find_gutter, reading_order


@dataclass(frozen=True)
class Line:
    name: str
    box: tuple[float, float, float, float]


def _rows(*rows: list[Line]) -> list[Line]:
    """Lines as RapidOCR gives them: row after row, left to right."""
    return [line for row in rows for line in row]


def test_two_columns_under_a_title_are_read_one_after_the_other_and_a_wide_line_closes_the_block():
    title = Line("title", (10, 0, 590, 20))
    left = [Line(f"L{i}", (10, 30 + 20 * i, 280, 45 + 20 * i)) for i in range(4)]
    right = [Line(f"R{i}", (320, 30 + 20 * i, 590, 45 + 20 * i)) for i in range(4)]
    caption = Line("caption", (10, 120, 590, 135))
    below_left = [Line(f"l{i}", (10, 140 + 20 * i, 280, 155 + 20 * i)) for i in range(3)]
    below_right = [Line(f"r{i}", (320, 140 + 20 * i, 590, 155 + 20 * i)) for i in range(3)]
    given = _rows([title], *[[a, b] for a, b in zip(left, right)], [caption],
                  *[[a, b] for a, b in zip(below_left, below_right)])
    assert [line.name for line in reading_order(given)] == [
        "title", "L0", "L1", "L2", "L3", "R0", "R1", "R2", "R3", "caption", "l0", "l1", "l2", "r0", "r1", "r2"]


def test_a_table_of_labels_and_short_values_and_a_single_column_keep_their_rows():
    labels = [Line(f"label {i}", (10, 20 * i, 300, 20 * i + 15)) for i in range(6)]
    values = [Line(f"v{i}", (520, 20 * i, 560, 20 * i + 15)) for i in range(6)]
    table = _rows(*[[a, b] for a, b in zip(labels, values)])
    assert find_gutter(table) is None and reading_order(table) == table      # values narrower than a quarter
    ragged = [Line(f"p{i}", (10, 20 * i, 590 - 150 * (i % 3 == 2), 20 * i + 15)) for i in range(9)]
    assert find_gutter(ragged) is None and reading_order(ragged) == ragged


def test_three_columns_are_read_left_to_right():
    columns = [[Line(f"{c}{i}", (10 + 200 * c, 20 * i, 180 + 200 * c, 20 * i + 15)) for i in range(4)]
               for c in range(3)]
    given = _rows(*[[columns[0][i], columns[1][i], columns[2][i]] for i in range(4)])
    assert [line.name for line in reading_order(given)] == [f"{c}{i}" for c in range(3) for i in range(4)]
