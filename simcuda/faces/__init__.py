"""The faces: what users call, each translating to the core and back, never deciding a rule.

``bindings`` mirrors ``cuda.bindings`` (the tuple face, ``_v2``, the runtime, NVRTC), ``native``
is the native route (a ``libcuda.so.1`` that NVIDIA's compiled bindings load), ``oxicuda`` the
StreamCapture face of the oxicuda-driver crate.
"""
