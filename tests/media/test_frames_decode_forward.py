"""Reusing the open decoder: a frame past the keyframe the decoder already passed is decoded forward, not sought
again, and a decode stopped short leaves the decoder where it got to. The barcode in each frame is the reference."""

from __future__ import annotations

from fieldstudio.media import decoded_table, frame_reader
from tests.support.video_fixtures import read_barcode


def counting_seeks(reader: frame_reader.FrameReader) -> list[int]:
    """Open ``reader``'s decoder and count its container's seeks from now on (one entry per seek)."""
    reader.get(0)
    seeks: list[int] = []
    container = reader._container
    real = container.seek

    class Counting:
        def __getattr__(self, name):  # noqa: ANN001, ANN204 - a proxy of the container
            return getattr(container, name)

        def seek(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
            seeks.append(args[0])
            return real(*args, **kwargs)

    reader._container = Counting()
    return seeks


def test_a_frame_after_its_keyframe_is_decoded_forward_from_the_open_decoder(clips):
    """cfr_bframes has a keyframe every 60 frames: after frame 60 (the keyframe the timeline's preview shows),
    frame 100 of the same group is decoded on from there, and is frame 100."""
    path = clips["cfr_bframes"]
    table = decoded_table.build_frame_table(path)
    assert table.keyframe_at_or_before(100) == 60
    reader = frame_reader.FrameReader(path, table)
    seeks = counting_seeks(reader)
    assert read_barcode(reader.get(60)) == 60
    assert len(seeks) == 1
    assert read_barcode(reader.get(100)) == 100
    assert len(seeks) == 1  # no second seek to frame 60's keyframe
    assert read_barcode(reader.get(130)) == 130  # the next group: sought
    assert len(seeks) == 2
    reader.close()


def test_a_stopped_decode_returns_false_and_the_next_request_goes_on_from_there(clips):
    path = clips["cfr_bframes"]
    reader = frame_reader.FrameReader(path, decoded_table.build_frame_table(path))
    seeks = counting_seeks(reader)
    asked = []

    def stop_after_ten() -> bool:
        asked.append(1)
        return len(asked) > 10

    assert reader.decode(170, stop_after_ten) is False
    assert len(seeks) == 1
    assert reader.decode(170, lambda: False) is True
    assert len(seeks) == 1  # went on from where the stopped decode was
    assert read_barcode(reader.get(170)) == 170
    assert reader.decode(0, lambda: True) is True  # cached already (counting_seeks got it): nothing to stop
    reader.close()


def test_a_keyframe_decode_after_a_seek_stops_between_packets_and_the_file_stays_open(clips):
    """The viewer's keyframe preview: a seek, then several packets before the first frame comes out. A stop asked
    before a packet ends it there (nothing cached); the container is not reopened and the next request seeks anew
    and gets the right frame."""
    path = clips["cfr_bframes"]
    table = decoded_table.build_frame_table(path)
    assert table.keyframe_at_or_before(120) == 120
    reader = frame_reader.FrameReader(path, table)
    seeks = counting_seeks(reader)
    container = reader._container
    for packets_before_stop in (0, 1):
        asked = []

        def stop() -> bool:
            asked.append(1)
            return len(asked) > packets_before_stop

        assert reader.decode(120, stop) is False
        assert 120 not in reader._cache
        assert reader._container is container
    assert len(seeks) == 2
    assert read_barcode(reader.get(120)) == 120
    assert len(seeks) == 3  # sought again: a decode stopped before its first frame has nothing to go on from
    assert read_barcode(reader.get(130)) == 130
    reader.close()
