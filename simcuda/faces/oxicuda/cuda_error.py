"""The oxicuda-style face's errors: :class:`CudaError` and its variants (oxicuda-driver 0.1.4's
``CudaError``), and the one translation point from the core's ``DriverError`` (:func:`translated`).

The names users take are importable from :mod:`simcuda.faces.oxicuda.stream_capture`; this module is its part for
errors.
"""
from __future__ import annotations

import contextlib
import functools
import operator
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, cast

from ..._core.errors import MEANINGS, DriverError
from ..._core.facade import Driver
from ..._generated.driver_enums import CUresult

#: the module users import the face from: the ``__module__`` of its public classes (their repr, pickling)
FACE_MODULE = "simcuda.faces.oxicuda.stream_capture"

U8, U32, USIZE = 1 << 8, 1 << 32, 1 << 64


# ================================================================================== CudaError
#: CUresult codes that oxicuda-driver 0.1.4's ``CudaError::from_raw`` has no variant for, so they
#: become ``Unknown(n)`` (spec oxicuda-api.md, "Gap vs CUDA 13.5"); 0 is success and 999 is
#: ``CUDA_ERROR_UNKNOWN``, which oxicuda also maps to ``Unknown(999)``.
UNKNOWN_IN_OXICUDA = frozenset({0, 36, 47, 226, 227, 721, 916, 917, 918, 919, 999})

#: ``is_fatal()`` variants (oxicuda: device faults and unrecoverable driver/context state).
_FATAL = frozenset({"IllegalAddress", "LaunchFailed", "HardwareStackError", "IllegalInstruction",
                    "MisalignedAddress", "InvalidAddressSpace", "InvalidPc", "Assert", "EccUncorrectable",
                    "NvlinkUncorrectable", "ContextIsDestroyed", "Deinitialized"})
#: ``is_usage_error()`` variants (oxicuda: bad arguments, GPU state intact).
_USAGE = frozenset({"InvalidValue", "InvalidDevice", "InvalidContext", "InvalidHandle", "InvalidImage",
                    "InvalidPtx", "InvalidSource", "InvalidClusterSize", "NoDevice", "UnsupportedLimit",
                    "NotSupported", "NotPermitted"})
_ACRONYMS = frozenset({"GPU", "PTX", "ECC", "NVLINK", "JIT", "MPS", "RPC", "CDP", "PC"})


def check_uint(value: Any, bound: int, what: str) -> int:
    """``value`` as an int in ``[0, bound)``: TypeError for a non-integer, OverflowError out of range."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    if not 0 <= v < bound:
        kind = {U8: "u8", U32: "u32", USIZE: "usize"}.get(bound, f"< {bound}")
        raise OverflowError(f"{what} = {v} does not fit in {kind}")
    return v


class _hybrid:
    """A method usable on a variant class (``CudaError.IllegalAddress.is_fatal()``) and on an instance."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __get__(self, obj: Any, owner: Any) -> Any:
        return functools.partial(self.fn, owner if obj is None else obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The function itself (what makes this a wrapper of it)."""
        return self.fn(*args, **kwargs)


class _CudaErrorMeta(type):
    """Metaclass of :class:`CudaError`: variant classes compare equal to their instances."""

    def __call__(cls, *args: Any, **kwargs: Any) -> CudaError:
        if cls.__dict__.get("_is_base"):
            # CudaError(code, why="") builds the variant of ``code``, like CudaError.from_raw
            if not args:
                raise TypeError("CudaError(code, why='') needs the raw CUresult code")
            return _variant(*args, **kwargs)
        made: CudaError = super().__call__(*args, **kwargs)
        return made

    def __eq__(cls, other: Any) -> Any:
        if isinstance(other, CudaError) and cls.__dict__.get("_is_variant"):
            return isinstance(other, cls)
        return NotImplemented

    def __ne__(cls, other: Any) -> Any:
        eq = cls.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = type.__hash__

    def __repr__(cls) -> str:
        return f"{cls.__module__}.{cls.__qualname__}" if cls.__dict__.get("_is_base") else cls.__qualname__

    if TYPE_CHECKING:
        # the variant classes (CudaError.NotInitialized, ...) are set on CudaError from the CUresult enum
        # at import time (_make_variants), which the checker cannot follow
        def __getattr__(cls, name: str) -> type[CudaError]: ...


class CudaError(Exception, metaclass=_CudaErrorMeta):
    """An error of a CUDA driver call, one variant per ``CUresult`` code (oxicuda ``CudaError``).

    Mirrors: ``oxicuda_driver::CudaError`` (``crates/oxicuda-driver/src/error.rs``, 0.1.4): one
    variant per named ``CUresult`` plus ``Unknown(u32)`` for every other code.

    Each variant is a subclass, reachable as ``CudaError.<Variant>`` (``CudaError.NotInitialized``,
    ``CudaError.StreamCaptureUnmatched``, ...); ``CudaError.Unknown(n)`` carries its code. So all of
    these work::

        raise CudaError.NotInitialized                # or CudaError.NotInitialized("why")
        except CudaError as e: assert e == CudaError.StreamCaptureUnmatched
        except CudaError.StreamCaptureUnmatched: ...  # catch one variant
        CudaError.from_raw(903) == CudaError.StreamCaptureUnmatched
        CudaError.IllegalAddress.is_fatal()           # on the variant, as in Rust

    Args (constructing):
        ``CudaError(code, why="")`` -- the variant of the raw ``code`` (same as :meth:`from_raw`);
        ``CudaError.<Variant>(why="")``; ``CudaError.Unknown(code, why="")``.

    Attributes:
        code: the raw ``CUresult`` value (``int``); ``None`` on the ``Unknown`` class itself.
        why: the simulator's explanation (rule, spec section, objects) when the error comes from
            the simulated driver; ``""`` when user code raised it.

    Equality and hashing follow Rust's derived ``PartialEq``/``Hash``: same variant (and, for
    ``Unknown``, same code); ``why`` is ignored. A variant *class* equals each of its instances, and
    ``e == CudaError.Unknown`` is true for every ``Unknown(n)``.

    ``str(e)`` is oxicuda's Display text (``"CUDA: stream capture unmatched"``), followed by
    ``": " + why`` when there is a why; :meth:`display` gives the Display text alone.

    Fidelity notes: variant names and codes are derived from the generated ``CUresult`` enum minus
    the codes oxicuda 0.1.4 has no variant for (36, 47, 226, 227, 721, 916-919: they stay
    ``Unknown(n)``, as in oxicuda). The Display wording is derived from each ``CUresult`` name
    ("CUDA: " + its words in lower case), so a few variants read differently from oxicuda's
    hand-written texts (for example "CUDA: out of memory" for ``OutOfMemory``).
    """

    _is_base = True
    code: Any = None
    _text = "error"
    Unknown: ClassVar[type[_Unknown]]  # set below
    def __init__(self, why: str = "") -> None:
        if not isinstance(why, str):
            raise TypeError(f"why must be a str, not {type(why).__name__}")
        self.why = why
        super().__init__(why)

    # -- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_raw(cls, code: int, why: str = "") -> CudaError:
        """The variant for a raw ``CUresult`` code (oxicuda ``CudaError::from_raw(u32)``).

        Args:
            code: the raw code, ``0 <= code < 2**32``.
            why: optional explanation to carry.

        Returns:
            An instance of the matching variant; ``CudaError.Unknown(code)`` for a code oxicuda
            0.1.4 does not name (including 0, which oxicuda says not to pass, and 999).

        Errors: ``TypeError`` for a non-integer; ``OverflowError`` outside ``u32``.
        """
        return _variant(code, why)

    @classmethod
    def variants(cls) -> tuple[type[CudaError], ...]:
        """Every named variant class, in code order (``Unknown`` excluded). A Python extra."""
        return VARIANTS

    # -- queries (usable on the variant class and on instances) -----------------------------------
    @_hybrid
    def as_raw(self: Any) -> int:
        """The raw ``CUresult`` code (oxicuda ``CudaError::as_raw``); ``Unknown(n).as_raw() == n``.

        Errors: ``TypeError`` on the ``CudaError.Unknown`` class itself, which has no code.
        """
        if self.code is None:
            raise TypeError(f"{self!r} has no code; use CudaError.Unknown(n).as_raw()")
        return int(self.code)

    @_hybrid
    def is_fatal(self: Any) -> bool:
        """True for errors that leave the context unusable (oxicuda ``is_fatal``).

        Those are IllegalAddress, LaunchFailed, HardwareStackError, IllegalInstruction,
        MisalignedAddress, InvalidAddressSpace, InvalidPc, Assert, EccUncorrectable,
        NvlinkUncorrectable, ContextIsDestroyed and Deinitialized; never an ``Unknown``.
        """
        return _variant_name(self) in _FATAL

    @_hybrid
    def is_usage_error(self: Any) -> bool:
        """True for errors caused by bad API usage (oxicuda ``is_usage_error``).

        Those are InvalidValue, InvalidDevice, InvalidContext, InvalidHandle, InvalidImage,
        InvalidPtx, InvalidSource, InvalidClusterSize, NoDevice, UnsupportedLimit, NotSupported
        and NotPermitted; never an ``Unknown``.
        """
        return _variant_name(self) in _USAGE

    @_hybrid
    def display(self: Any) -> str:
        """oxicuda's Display text: ``"CUDA: <text>"``; ``"CUDA: unknown error (code N)"`` for Unknown."""
        if _variant_name(self) == "Unknown":
            return "CUDA: unknown error" if self.code is None else f"CUDA: unknown error (code {self.code})"
        return f"CUDA: {self._text}"

    @property
    def name(self) -> str:
        """The variant name (``"StreamCaptureUnmatched"``, ``"Unknown"``). A Python extra."""
        return _variant_name(self)

    # -- Python protocol ------------------------------------------------------------------------
    def __str__(self) -> str:
        return f"{self.display()}: {self.why}" if self.why else self.display()

    def __repr__(self) -> str:
        cls = type(self).__qualname__
        args = [repr(self.code)] if isinstance(self, CudaError.Unknown) else []
        if self.why:
            args.append(repr(self.why))
        return f"{cls}({', '.join(args)})"

    def __eq__(self, other: Any) -> Any:
        if isinstance(other, CudaError):
            return type(self) is type(other) and self.code == other.code
        if isinstance(other, _CudaErrorMeta):
            return bool(other.__dict__.get("_is_variant")) and isinstance(self, other)
        return NotImplemented

    def __ne__(self, other: Any) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash((_variant_name(self), self.code))

    def __reduce__(self) -> Any:
        if isinstance(self, CudaError.Unknown):
            return (CudaError.Unknown, (self.code, self.why))
        return (type(self), (self.why,))


def _variant(code: Any, *args: Any, **kwargs: Any) -> CudaError:
    """What ``CudaError(code, *args, **kwargs)`` makes: the variant of the raw ``code`` (``Unknown(code)`` for a
    code without one), constructed with the other arguments."""
    code = check_uint(code, U32, "CudaError code")
    variant = _BY_CODE.get(code)
    if variant is None:
        return _Unknown(code, *args, **kwargs)
    return variant(*args, **kwargs)


def _variant_name(x: Any) -> str:
    cls = x if isinstance(x, type) else type(x)
    return cls.__name__


class _Unknown(CudaError):
    """``CudaError.Unknown(code)``: a code oxicuda 0.1.4 has no variant for (oxicuda ``Unknown(u32)``).

    Args:
        code: the raw ``CUresult`` (``u32``). ``Unknown(3)`` is allowed and differs from
            ``NotInitialized``, as in Rust.
        why: optional explanation.
    """

    _is_base = False
    _is_variant = True
    _text = "unknown error"

    def __init__(self, code: int, why: str = "") -> None:
        self.code = check_uint(code, U32, "Unknown code")
        super().__init__(why)


_Unknown.__name__ = "Unknown"
_Unknown.__qualname__ = "CudaError.Unknown"
CudaError.Unknown = _Unknown


def _camel(name: str) -> str:
    return "".join(w.capitalize() for w in name.split("_"))


def _words(name: str) -> str:
    return " ".join(w if w in _ACRONYMS else w.lower() for w in name.split("_"))


def _make_variants() -> tuple[type[CudaError], ...]:
    out = []
    seen: set[int] = set()
    for member in CUresult:
        value = int(member)
        if value in UNKNOWN_IN_OXICUDA or value in seen:
            continue
        seen.add(value)
        base = member.name[len("CUDA_ERROR_"):]
        name = _camel(base)
        meaning = MEANINGS.get(value, "See the CUDA driver documentation for this code.")
        doc = (f"``{member.name}`` ({value}), oxicuda ``CudaError::{name}``. {meaning}\n\n"
               f"Construct with ``CudaError.{name}(why='')``.")
        cls = cast("type[CudaError]", _CudaErrorMeta(name, (CudaError,), {  # a subclass, made by the metaclass
            "__doc__": doc, "__module__": FACE_MODULE, "__qualname__": f"CudaError.{name}", "_is_base": False,
            "_is_variant": True, "code": value, "_text": _words(base)}))
        setattr(CudaError, name, cls)
        out.append(cls)
    return tuple(out)


#: every named variant class, in code order (``CudaError.Unknown`` excluded)
VARIANTS: tuple[type[CudaError], ...] = _make_variants()
_BY_CODE: dict[int, type[CudaError]] = {v.code: v for v in VARIANTS}


def translate(e: DriverError) -> CudaError:
    return _variant(int(e.code), e.why)


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Turn the core's DriverError into the matching CudaError (the one translation point)."""
    try:
        yield
    except DriverError as e:
        raise translate(e) from None


def try_driver(drv: Driver) -> None:
    """oxicuda ``loader::try_driver()``: any failure to bring the driver up is ``NotInitialized``."""
    try:
        drv.init(0)
    except DriverError as e:
        raise CudaError.NotInitialized(
            f"the CUDA driver is not usable: cuInit returned {e.code.name} ({e.why}); oxicuda's "
            "try_driver() reports every driver load/initialisation failure as NotInitialized") from None
