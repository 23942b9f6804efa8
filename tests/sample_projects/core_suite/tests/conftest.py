import pytest
from corekit import Kernels
from cuda.core import Device


@pytest.fixture(scope="session")
def device():
    dev = Device()
    dev.set_current()
    return dev


@pytest.fixture(scope="session")
def kernels(device):
    return Kernels(device)


@pytest.fixture
def stream(device):
    s = device.create_stream()
    yield s
    s.sync()
    s.close()
