"""Streams: their entries and rows (the capture rules are :mod:`simcuda._core.capture.capture_rules`).
"""
