"""PySide6 widgets only: windows, viewer, timeline, tools, panels, workers."""
