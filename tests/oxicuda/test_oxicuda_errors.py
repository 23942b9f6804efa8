"""CudaError of the oxicuda-style face: variants, raw codes, predicates, equality, Display."""
from __future__ import annotations

import pickle

import pytest

from simcuda._generated.driver_enums import CUresult
from simcuda.faces.oxicuda.stream_capture import VARIANTS, CudaError

# The variant list of oxicuda-api.md (oxicuda-driver 0.1.4 error.rs), in code order.
DOC_VARIANTS = {
    1: "InvalidValue", 2: "OutOfMemory", 3: "NotInitialized", 4: "Deinitialized", 5: "ProfilerDisabled",
    6: "ProfilerNotInitialized", 7: "ProfilerAlreadyStarted", 8: "ProfilerAlreadyStopped", 34: "StubLibrary",
    46: "DeviceUnavailable", 100: "NoDevice", 101: "InvalidDevice", 102: "DeviceNotLicensed",
    200: "InvalidImage", 201: "InvalidContext", 202: "ContextAlreadyCurrent", 205: "MapFailed",
    206: "UnmapFailed", 207: "ArrayIsMapped", 208: "AlreadyMapped", 209: "NoBinaryForGpu",
    210: "AlreadyAcquired", 211: "NotMapped", 212: "NotMappedAsArray", 213: "NotMappedAsPointer",
    214: "EccUncorrectable", 215: "UnsupportedLimit", 216: "ContextAlreadyInUse", 217: "PeerAccessUnsupported",
    218: "InvalidPtx", 219: "InvalidGraphicsContext", 220: "NvlinkUncorrectable", 221: "JitCompilerNotFound",
    222: "UnsupportedPtxVersion", 223: "JitCompilationDisabled", 224: "UnsupportedExecAffinity",
    225: "UnsupportedDevsideSync", 300: "InvalidSource", 301: "FileNotFound", 302: "SharedObjectSymbolNotFound",
    303: "SharedObjectInitFailed", 304: "OperatingSystem", 400: "InvalidHandle", 401: "IllegalState",
    402: "LossyQuery", 500: "NotFound", 600: "NotReady", 700: "IllegalAddress", 701: "LaunchOutOfResources",
    702: "LaunchTimeout", 703: "LaunchIncompatibleTexturing", 704: "PeerAccessAlreadyEnabled",
    705: "PeerAccessNotEnabled", 708: "PrimaryContextActive", 709: "ContextIsDestroyed", 710: "Assert",
    711: "TooManyPeers", 712: "HostMemoryAlreadyRegistered", 713: "HostMemoryNotRegistered",
    714: "HardwareStackError", 715: "IllegalInstruction", 716: "MisalignedAddress", 717: "InvalidAddressSpace",
    718: "InvalidPc", 719: "LaunchFailed", 720: "CooperativeLaunchTooLarge", 800: "NotPermitted",
    801: "NotSupported", 802: "SystemNotReady", 803: "SystemDriverMismatch", 804: "CompatNotSupportedOnDevice",
    805: "MpsConnectionFailed", 806: "MpsRpcFailure", 807: "MpsServerNotReady", 808: "MpsMaxClientsReached",
    809: "MpsMaxConnectionsReached", 810: "MpsClientTerminated", 811: "CdpNotSupported",
    812: "CdpVersionMismatch", 900: "StreamCaptureUnsupported", 901: "StreamCaptureInvalidated",
    902: "StreamCaptureMerge", 903: "StreamCaptureUnmatched", 904: "StreamCaptureUnjoined",
    905: "StreamCaptureIsolation", 906: "StreamCaptureImplicit", 907: "CapturedEvent",
    908: "StreamCaptureWrongThread", 909: "Timeout", 910: "GraphExecUpdateFailure", 911: "ExternalDevice",
    912: "InvalidClusterSize", 913: "FunctionNotLoaded", 914: "InvalidResourceType",
    915: "InvalidResourceConfiguration",
}
GAP = [36, 47, 226, 227, 721, 916, 917, 918, 919, 999]
FATAL = {"IllegalAddress", "LaunchFailed", "HardwareStackError", "IllegalInstruction", "MisalignedAddress",
         "InvalidAddressSpace", "InvalidPc", "Assert", "EccUncorrectable", "NvlinkUncorrectable",
         "ContextIsDestroyed", "Deinitialized"}
USAGE = {"InvalidValue", "InvalidDevice", "InvalidContext", "InvalidHandle", "InvalidImage", "InvalidPtx",
         "InvalidSource", "InvalidClusterSize", "NoDevice", "UnsupportedLimit", "NotSupported", "NotPermitted"}


def test_variants_match_the_documented_list():
    """The derived variants are exactly oxicuda 0.1.4's named variants, with their codes, in code order."""
    assert {v.code: v.__name__ for v in VARIANTS} == DOC_VARIANTS
    assert [v.code for v in VARIANTS] == sorted(DOC_VARIANTS)
    assert CudaError.variants() == VARIANTS
    for code, name in DOC_VARIANTS.items():
        assert getattr(CudaError, name).code == code


@pytest.mark.parametrize("member", list(CUresult)[1:], ids=lambda m: m.name)
def test_from_raw_as_raw_round_trip_for_every_code(member):
    """from_raw(code).as_raw() == code for every non-success CUresult, named or Unknown."""
    code = int(member)
    e = CudaError.from_raw(code)
    assert e.as_raw() == code
    assert CudaError.from_raw(e.as_raw()) == e
    if code in DOC_VARIANTS:
        assert type(e) is getattr(CudaError, DOC_VARIANTS[code])
        assert getattr(CudaError, DOC_VARIANTS[code]).as_raw() == code
    else:
        assert e == CudaError.Unknown(code)


@pytest.mark.parametrize("code", GAP)
def test_codes_oxicuda_does_not_name_stay_unknown(code):
    """Codes missing from oxicuda 0.1.4 (917, 918, 999, ...) become Unknown(n)."""
    e = CudaError.from_raw(code)
    assert isinstance(e, CudaError.Unknown)
    assert e.name == "Unknown" and e.code == code
    assert str(e) == f"CUDA: unknown error (code {code})"
    assert not e.is_fatal() and not e.is_usage_error()


def test_from_raw_of_zero_and_arbitrary_codes():
    """0 (success, which oxicuda says not to pass) and codes beyond the enum are Unknown; non-u32 is refused."""
    assert CudaError.from_raw(0) == CudaError.Unknown(0)
    assert CudaError.from_raw(123456).as_raw() == 123456
    with pytest.raises(OverflowError):
        CudaError.from_raw(-1)
    with pytest.raises(OverflowError):
        CudaError.from_raw(1 << 32)
    with pytest.raises(TypeError):
        CudaError.from_raw("903")


def test_is_fatal_and_is_usage_error_sets():
    """is_fatal and is_usage_error hold for exactly oxicuda's lists, on classes and instances alike."""
    for v in VARIANTS:
        assert v.is_fatal() == (v.__name__ in FATAL) == v().is_fatal()
        assert v.is_usage_error() == (v.__name__ in USAGE) == v().is_usage_error()
    assert CudaError.IllegalAddress.is_fatal() and not CudaError.OutOfMemory.is_fatal()
    assert CudaError.InvalidDevice.is_usage_error() and not CudaError.OutOfMemory.is_usage_error()


def test_raise_and_except_forms():
    """Variants can be raised bare or with a why, and caught by base class or variant."""
    with pytest.raises(CudaError) as ei:
        raise CudaError.NotInitialized
    assert ei.value == CudaError.NotInitialized and ei.value.why == ""
    try:
        raise CudaError.StreamCaptureUnmatched("ended twice")
    except CudaError as e:
        assert e == CudaError.StreamCaptureUnmatched
        assert CudaError.StreamCaptureUnmatched == e
        assert e != CudaError.NotInitialized and not (e == CudaError.NotInitialized)  # noqa: SIM201 (both ops tested)
        assert e.why == "ended twice"
    with pytest.raises(CudaError.StreamCaptureUnmatched):
        raise CudaError(903, "via the base constructor")
    assert isinstance(CudaError.InvalidValue(), Exception)


def test_equality_and_hash_ignore_why():
    """Equality and hash follow Rust's derives: same variant (and code), the why ignored."""
    a, b = CudaError.InvalidValue("one"), CudaError.InvalidValue("two")
    assert a == b and hash(a) == hash(b)
    assert CudaError.Unknown(917) == CudaError.Unknown(917, "x")
    assert CudaError.Unknown(917) != CudaError.Unknown(918)
    assert CudaError.Unknown(3) != CudaError.NotInitialized()  # Unknown(3) is its own value, as in Rust
    assert CudaError.Unknown(917) == CudaError.Unknown  # the Unknown class matches every Unknown(n)
    assert CudaError.NotInitialized() != CudaError  # the base class is not a variant
    assert len({CudaError.InvalidValue(), CudaError.InvalidValue("w"), CudaError.OutOfMemory()}) == 2
    assert CudaError.InvalidValue() != 1


def test_display_str_and_repr():
    """str is oxicuda's Display text plus the why; display() is the Display text alone; repr evaluates."""
    assert CudaError.StreamCaptureUnmatched.display() == "CUDA: stream capture unmatched"
    assert str(CudaError.NotInitialized()) == "CUDA: not initialized"
    assert str(CudaError.InvalidPtx()) == "CUDA: invalid PTX"
    e = CudaError.StreamCaptureInvalidated("capture 3 was invalidated")
    assert str(e) == "CUDA: stream capture invalidated: capture 3 was invalidated"
    assert e.display() == "CUDA: stream capture invalidated"
    for err in (e, CudaError.Unknown(917, "w"), CudaError.NotReady()):
        assert eval(repr(err), {"CudaError": CudaError}) == err
    assert repr(CudaError.NotReady) == "CudaError.NotReady"


def test_pickle_round_trip_keeps_variant_and_why():
    """Errors survive pickling (for multiprocessing and pytest-xdist) with their why."""
    for err in (CudaError.StreamCaptureUnjoined("w"), CudaError.Unknown(918, "x")):
        back = pickle.loads(pickle.dumps(err))
        assert back == err and back.why == err.why and type(back) is type(err)


def test_driver_error_becomes_matching_variant_with_why(drv):
    """A DriverError from the core reaches the user as the variant of its code with the same why."""
    from simcuda.faces.oxicuda.stream_capture import Stream, StreamCapture
    stream = Stream.new()
    StreamCapture.begin(stream)
    with pytest.raises(CudaError) as ei:
        StreamCapture.begin(stream)
    assert ei.value == CudaError.IllegalState and ei.value.as_raw() == 401
    assert ei.value.why == drv.last_error().why
