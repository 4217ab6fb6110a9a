"""The centre of the window: one canvas for photos, video frames and PDF pages, and their controllers."""
