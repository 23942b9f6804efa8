"""Simulated ``cuda.bindings`` faces (cuda-bindings 13.5.0 API).

``simcuda.faces.bindings.driver`` mirrors ``cuda.bindings.driver`` (tuple-returning) and
``simcuda.faces.bindings._v2.driver`` mirrors ``cuda.bindings._v2.driver`` (snake_case, raising).
Import the submodules directly, or use ``simcuda.patch()`` to install them under the real names.
"""

__version__ = "13.5.0"  # the cuda-bindings version whose API these faces mirror
