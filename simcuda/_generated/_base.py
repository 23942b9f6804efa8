"""Shared base class of the generated enums.

The real cuda-bindings 13.5.0 enums are not ``enum.IntEnum`` but its own
``cuda.bindings._internal._fast_enum.FastEnum`` (an ``int`` subclass with a
small metaclass).  ``SimEnum`` is an ``enum.IntEnum`` that reproduces the parts
of FastEnum's behaviour callers can observe, identically on Python 3.10-3.13
(where IntEnum's own ``str``/``format`` differ between versions)::

    x = CUresult.CUDA_ERROR_INVALID_VALUE
    repr(x) == str(x) == format(x) == f"{x}" == "%s" % x
            == "<CUresult.CUDA_ERROR_INVALID_VALUE: 1>"
    format(x, "d") == "%d" % x == "1";  format(x, ">3") == "  1"
    x.name == "CUDA_ERROR_INVALID_VALUE";  x.value == int(x) == 1 (an int)
    CUresult(1) is x;  CUresult(99999) -> ValueError("99999 is not a valid CUresult")
    1 in CUresult (membership by value);  repr(CUresult) == "<enum 'CUresult'>"

Where several names share a value, ``Enum(value)`` and the member's ``name``
give the first-defined (canonical) name, as FastEnum does; ``__members__``
lists every name, aliases included.

Known differences from FastEnum, all additions: ``CUresult["CUDA_SUCCESS"]``
works here (FastEnum raises TypeError), members carry no per-member docstring,
and iteration is in value order (FastEnum iterates in header order, which is
the same except for a few enums).
"""

import enum

__all__ = ["SimEnum"]


class _SimEnumMeta(enum.EnumMeta):
    """Enum metaclass whose ``in`` tests values, like FastEnum's (plain dict lookup)."""

    def __contains__(cls, item: object) -> bool:
        return item in cls._value2member_map_


class SimEnum(enum.IntEnum, metaclass=_SimEnumMeta):
    """IntEnum with cuda-bindings FastEnum's repr, str and format on every Python version."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self._name_}: {int(self)}>"

    # FastEnum defines no __str__, and int has none of its own, so str() is the repr.
    __str__ = __repr__

    # int.__format__ gives str(self) for an empty spec and formats the number otherwise.
    def __format__(self, format_spec: str) -> str:
        return int.__format__(self, format_spec)
