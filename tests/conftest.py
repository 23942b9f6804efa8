"""Shared test configuration.

* The sample user projects are run by tests of their own, in pytest processes of their own
  (tests/test_pytest_plugin.py), never collected as part of this suite.
* The suite's own patches default to the ``python`` route: ``simcuda.patch()`` defaults to ``auto`` (native where
  the simulated ``libcuda.so.1`` can be used), and a process that loaded that library keeps it for its life, so
  the comparisons with NVIDIA's wheel running without a driver (tests/faces/test_fuzz_conversion.py) and the
  conformance suite's ``real`` backend would then reach the simulator. Tests of the native route ask for it by
  name, and tests of the default route run in a process of their own with ``SIMCUDA_ROUTE`` removed from its
  environment. ``SIMCUDA_ROUTE`` set before pytest starts is kept (tests/native/test_conformance_routes.py).
"""
import os

collect_ignore = ["sample_projects"]

os.environ.setdefault("SIMCUDA_ROUTE", "python")
