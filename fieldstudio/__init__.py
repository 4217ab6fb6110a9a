"""fieldstudio: annotate field-work footage and compare vision-language models on it."""

__version__ = "0.1.0"
