"""Importers and exporters of benchmark task sets, answers and annotations (no Qt)."""
