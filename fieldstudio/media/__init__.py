"""Probing, frame index and exact frame access, image loading, PDF text, thumbnails (no Qt)."""
