"""Devices and contexts: their entries, rows and device attributes.
"""
