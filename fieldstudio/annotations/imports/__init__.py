"""Annotations made elsewhere, read into the project: COCO JSON, YOLO folders, MOT gt.txt, CVAT for video 1.1 XML.

Each format's parser (``coco``, ``yolo``, ``mot``, ``cvat``) reads files into ``parsed.ParsedMedia`` groups
without touching the project; ``importing`` matches them to the project's media and frames and stores
them as one undoable edit. No Qt.
"""
