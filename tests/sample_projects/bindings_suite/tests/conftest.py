import pytest
from cuda.bindings import driver
from saxpy_lib import check


@pytest.fixture
def context():
    check(driver.cuInit(0))
    dev = check(driver.cuDeviceGet(0))
    ctx = check(driver.cuDevicePrimaryCtxRetain(dev))
    check(driver.cuCtxSetCurrent(ctx))
    yield ctx
    check(driver.cuCtxSetCurrent(None))
    check(driver.cuDevicePrimaryCtxRelease(dev))


@pytest.fixture
def stream(context):
    s = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    yield s
    check(driver.cuStreamDestroy(s))
