"""Graphs: the model, node kinds, instantiation and replay, exec update, DOT, conditional nodes and
user objects; their entries and rows.
"""
