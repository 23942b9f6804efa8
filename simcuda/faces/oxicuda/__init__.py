"""The oxicuda-style StreamCapture face (:mod:`simcuda.faces.oxicuda.stream_capture`, where users
import every name of it from).
"""
