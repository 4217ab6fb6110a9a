"""Dockable side panels of the main window."""
