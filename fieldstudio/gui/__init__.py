"""PySide6 widgets only: windows, viewer, timeline, tools, panels, workers."""

from fieldstudio.gui import pyside_feature_check

# before the window's ~110 modules are imported: PySide would read each one's source through inspect (issue 37)
pyside_feature_check.install()
