"""NVIDIA's simpleZeroCopy, systemWideAtomics and vectorAddMMAP samples (cuda_bindings/examples/0_Introduction)
run unmodified under ``simcuda run`` with our kernels files and pass their own result checks, on both routes.

The samples are NVIDIA's code and are not in this repository: set ``SIMCUDA_SAMPLES_DIR`` to a folder holding
``0_Introduction/`` and ``common/`` (a cuda_bindings/examples copy); without it the tests skip.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = Path(os.environ.get("SIMCUDA_SAMPLES_DIR", ROOT / ".samples"))

#: sample -> (our kernels file, the line the sample prints when its check passes)
SAMPLES = {
    "simpleZeroCopy_test.py": ("simple_zero_copy_kernels.py", "PASSED"),
    "systemWideAtomics_test.py": ("system_wide_atomics_kernels.py", "systemWideAtomics completed, returned OK"),
    "vectorAddMMAP_test.py": ("vector_add_mmap_kernels.py", "Result = PASS"),
}

PATHFINDER_ALIAS = """
from cuda.pathfinder._utils import env_vars
if not hasattr(env_vars, "get_cuda_home_or_path"):
    env_vars.get_cuda_home_or_path = env_vars.get_cuda_path_or_home
"""


def _routes() -> list[str]:
    from simcuda.faces import native
    return ["python", "native"] if native.available()[0] else ["python"]


@pytest.mark.parametrize("route", _routes())
@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_nvidia_sample_passes_its_check(sample, route, tmp_path):
    """The sample exits 0 and prints its success line (its own check of the kernel's results)."""
    path = BASE / "0_Introduction" / sample
    if not path.is_file() or not (BASE / "common").is_dir():
        pytest.skip(f"{sample} is not available (set SIMCUDA_SAMPLES_DIR to a cuda_bindings/examples copy)")
    home = tmp_path / "cuda"
    (home / "include").mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(BASE)]), CUDA_HOME=str(home),
               SIMCUDA_NVRTC="simcuda")
    env.pop("SIMCUDA_ROUTE", None)
    alias = tmp_path / "pathfinder_alias.py"
    alias.write_text(PATHFINDER_ALIAS)
    kernels, success = SAMPLES[sample]
    cmd = [sys.executable, "-m", "simcuda.cli", "run", "--route", route, "--kernels", str(alias),
           "--kernels", str(ROOT / "examples" / kernels), str(path)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(BASE), timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert success in res.stdout
