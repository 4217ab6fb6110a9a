"""The annotation tools of the viewer, each a part of ``gui/annotate.py``'s AnnotationController.

``labels.py`` the current label of each kind of mark (keys 1-9 pick one); ``drawing.py`` boxes (B) and
rulers (R) dragged on the canvas, calibration points (C), moving and editing marks; ``time_marks.py``
segments (I / O) and events (E) on a video's timeline; ``tracking.py`` following a box through a video
(T), its keyframes ([ ]) and copying to the next frame. ``context.py`` is what they all work with.
"""
