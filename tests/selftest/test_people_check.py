"""The self-test's people detector check: passes on the demo's worker photo, fails saying so without HOG."""

from __future__ import annotations

import pytest

from fieldstudio.media import people
from fieldstudio.selftest import checks as selftest
from tests.support.people_frames import NO_HOG_REASON, hog_available


@pytest.mark.skipif(not hog_available(), reason=NO_HOG_REASON)
def test_the_people_check_finds_the_demo_worker():
    [result] = selftest.run_checks(["people"])
    assert result.passed, result.detail
    assert result.detail.startswith("opencv-hog ") and "the worker found (IoU 0." in result.detail


def test_the_people_check_fails_naming_an_opencv_without_hog(monkeypatch):
    monkeypatch.setattr(people, "available", lambda: False)
    [result] = selftest.run_checks(["people"])
    assert not result.passed and "has no HOG people detector" in result.detail
