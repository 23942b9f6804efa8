"""pytest --simcuda with a suite whose own pytest.ini names a warning class from a module that imports numba.cuda
(as numba-cuda's does): pytest imports it before any plugin runs, numba looks for libcuda then and fails, and the
native patch makes numba look again once the simulated library is loaded (issue 20 item 3). In a pytest run of
its own."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = [pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")]
pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install '.[native,numba]')")

EARLY = "import numba.cuda\n\nclass EarlyWarning(UserWarning):\n    pass\n"
INI = "[pytest]\nfilterwarnings =\n    ignore::early_numba.EarlyWarning\n"
TEST = """\
import numpy as np
from numba import cuda

def test_numba_runs_on_the_simulated_driver():
    d = cuda.to_device(np.arange(4, dtype=np.float32))
    assert d.copy_to_host().tolist() == [0.0, 1.0, 2.0, 3.0]
"""


def test_a_suite_whose_ini_imports_numba_cuda_runs_on_the_simulated_driver(tmp_path):
    """The suite's own ini imports numba.cuda before the plugin loads; its test still copies to and from the
    simulated device."""
    (tmp_path / "early_numba.py").write_text(EARLY)
    (tmp_path / "pytest.ini").write_text(INI)
    (tmp_path / "test_numba_early.py").write_text(TEST)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--simcuda", str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert "1 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]
