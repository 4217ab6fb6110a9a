"""Text read in a photo or a box of it (issue 34 item 2, "Read text here" and the agent's read-text tool): the lines
drawn are read, inside the box only, with boxes where they were drawn."""

from __future__ import annotations

import pytest

from fieldstudio.media import library
from fieldstudio.media.frame_text import read_frame_text
from tests.support.text_photo import LINES, write_text_photo


def test_whole_photo_and_a_box_of_it(project, tmp_path):
    photo = write_text_photo(tmp_path / "label.png")
    media_id = library.add_paths(project, [photo]).media_ids[0]
    whole = read_frame_text(project, media_id)
    assert [ln.text.replace(" ", "") for ln in whole.lines] == ["PUMP7", "4.2bar"]
    for line, (x, y, w, h) in zip(whole.lines, LINES.values()):
        x0, y0, x1, y1 = line.box
        # on the label drawn (the detector's box may reach a few pixels past the text), around the text's start
        assert x - 4 <= x0 and y - 4 <= y0 and x1 <= x + w + 4 and y1 <= y + h + 4
        assert abs(x0 - (x + 16)) <= 20 and x1 - x0 >= 0.5 * w
    boxed = read_frame_text(project, media_id, box=LINES["4.2 bar"])
    assert "".join(boxed.text.split()) == "4.2bar" and boxed.box == LINES["4.2 bar"]   # nothing of "PUMP 7"
    record = boxed.record()
    assert record["frame_index"] == 0 and record["engine"].startswith("rapidocr ")
    assert [ln["text"] for ln in record["lines"]] == [ln.text for ln in boxed.lines]
    with pytest.raises(ValueError, match="less than"):
        read_frame_text(project, media_id, box=(900, 900, 40, 40))
