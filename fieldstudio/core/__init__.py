"""Qt-free domain code: records, geometry and calibration, answer parsing, scorers, statistics."""
