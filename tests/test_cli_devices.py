"""``simcuda run --devices N``: the script's driver has N simulated devices (issue 10)."""
from __future__ import annotations

import pytest

from simcuda.cli import main

SCRIPT = """
from cuda.bindings import driver as d
d.cuInit(0)
n = d.cuDeviceGetCount()[1]
print("devices", n, "peer", d.cuDeviceCanAccessPeer(0, n - 1)[1])
"""


def test_run_devices_gives_the_script_several_devices(tmp_path, capsys):
    """--devices 2: cuDeviceGetCount is 2 and the devices are peers."""
    p = tmp_path / "s.py"
    p.write_text(SCRIPT)
    assert main(["run", "--quiet", "--devices", "2", str(p)]) == 0
    assert "devices 2 peer 1" in capsys.readouterr().out


def test_run_default_is_one_device(tmp_path, capsys):
    """Without --devices the script sees one device (no peer of itself)."""
    p = tmp_path / "s.py"
    p.write_text(SCRIPT)
    assert main(["run", "--quiet", str(p)]) == 0
    assert "devices 1 peer 0" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["0", "-1", "two"])
def test_run_devices_refuses_a_bad_count(tmp_path, capsys, bad):
    """--devices needs a positive integer: argparse exits with status 2 and says why."""
    p = tmp_path / "s.py"
    p.write_text(SCRIPT)
    with pytest.raises(SystemExit) as e:
        main(["run", "--devices", bad, str(p)])
    assert e.value.code == 2
    assert "devices" in capsys.readouterr().err
