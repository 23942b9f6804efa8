"""Simulated ``cuda.bindings._v2`` (cuda-bindings 13.5.0): the snake_case, raising API.

Import ``simcuda.faces.bindings._v2.driver`` (or install it as ``cuda.bindings._v2.driver`` with
``simcuda.patch()``).
"""
