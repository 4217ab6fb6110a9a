"""Behaviour coding as in BORIS: the project's ethogram, behaviour events coded by key, lanes, the time budget,
two coders' agreement, and BORIS's / ELAN's tabular files (issue 32 item 2)."""
