"""Fixtures of the annotation tests used by several files (tests/annotations/)."""

from __future__ import annotations

import pytest


@pytest.fixture
def ethogram_project(media_project):
    """``media_project`` with an ethogram: lift (l, state, group posture, modifiers heavy / light), walk (w, state,
    posture), enter zone (z, point); subjects A (1) and B (2). Gives (project, ethogram)."""
    from fieldstudio.annotations.behaviour import ethogram as eth

    e = eth.with_behaviour(eth.Ethogram(), eth.Behaviour("lift", "l", "", "state", "posture", ("heavy", "light")))
    e = eth.with_behaviour(e, eth.Behaviour("walk", "w", "", "state", "posture"))
    e = eth.with_behaviour(e, eth.Behaviour("enter zone", "z", "", "point"))
    e = eth.with_subject(eth.with_subject(e, eth.Subject("A", "1")), eth.Subject("B", "2"))
    eth.SetEthogram(media_project, e).do()
    return media_project, e
