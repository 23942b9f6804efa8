"""Events: their entries and rows.
"""
