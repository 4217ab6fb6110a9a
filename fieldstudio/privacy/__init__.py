"""Keeping people's faces on this machine: the face detector, the blur, the privacy gate of a model profile, and
blurred copies of media for sharing (`fieldstudio redact`)."""
