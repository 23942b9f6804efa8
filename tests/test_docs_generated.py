"""Generated documentation stays in step with the code it is generated from."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_state_diagram_is_up_to_date():
    """docs/capture-states.md equals what tools/gen_state_diagram.py renders from capture.MACHINE."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_state_diagram.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_architecture_module_map_is_up_to_date():
    """docs/architecture.md's module map equals what tools/gen_architecture.py renders from the docstrings."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_architecture.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
