"""What the generators that read the cuda-bindings wheel's ``cuda/bindings/cydriver.pxd`` share: find it, parse it.

The pxd is Cython, written by NVIDIA's own generator in a small regular shape; this module reads that shape and
nothing more (it raises ``ValueError`` on a line it does not understand, so a new construct in a later wheel is
noticed rather than skipped):

* ``cdef CUresult name(params) except ?CUDA_ERROR_NOT_FOUND nogil``: the driver entries (:data:`DECL`);
* ``ctypedef <C type> name ['cname']``: a typedef of a scalar, a pointer, an enum or a record;
* ``ctypedef enum name:`` / ``cdef enum name:`` with one member a line (``cdef enum: NAME = value`` is a constant,
  not a type, and is skipped);
* ``cdef struct|union name:`` / ``ctypedef struct|union name ['cname']:`` with one field a line, or ``pass`` for an
  opaque (incomplete) type;
* ``ctypedef <ret> (*name 'name')(`` ... ``)``: a function-pointer typedef, one parameter a line.

Everything keeps the pxd's order. C types are kept as the pxd spells them, normalised (``void *x`` -> ``void*``).
"""
from __future__ import annotations

import pathlib
import re
import sys
from dataclasses import dataclass

DECL = re.compile(r"^cdef CUresult (\w+)\((.*?)\) except \?CUDA_ERROR_NOT_FOUND nogil$", re.M)
PARAM = re.compile(r"^(.*?)(\w+)$")

_QUOTED_TAIL = re.compile(r"""\s+(['"])(.*)\1$""")
_RECORD = re.compile(r"""^(cdef|ctypedef) (struct|union) (\w+)(?:\s+(['"])(.*)\4)?:$""")
_ENUM = re.compile(r"""^(?:cdef|ctypedef) enum (\w+)(?:\s+"[^"]*")?:$""")
_FUNCPTR = re.compile(r"""^ctypedef (.+?)\s*\(\*(\w+)(?:\s+'[^']*')?\)\($""")
_FIELD = re.compile(r"^(.+?)\s*\b(\w+)((?:\[\d+\])*)$")


def pxd_path() -> pathlib.Path:
    """The installed wheel's cydriver.pxd (ImportError when cuda-bindings is not installed)."""
    import cuda.bindings  # noqa: F401 - the wheel in the test extra
    return pathlib.Path(sys.modules["cuda.bindings"].__file__).parent / "cydriver.pxd"


def pxd_text() -> str:
    """The installed wheel's cydriver.pxd text (ImportError/FileNotFoundError when there is none)."""
    return pxd_path().read_text()


def norm(ctype: str) -> str:
    """A C type spelled one way: single spaces, ``*`` stuck to the type (``void *`` -> ``void*``)."""
    return re.sub(r"\s*\*", "*", " ".join(ctype.split()))


@dataclass(frozen=True)
class Field:
    """One member of a struct or union: its C type, its name and its array extents (``char name[256]``)."""

    ctype: str
    name: str
    dims: tuple[int, ...] = ()


@dataclass(frozen=True)
class Record:
    """A struct or union. ``cname`` is the C spelling Cython uses when the pxd gives one (for the records that have
    no C name of their own, a C++ expression such as ``std::remove_all_extents<decltype(...)>::type``); ``opaque``
    marks an incomplete type (``pass``)."""

    kind: str  # "struct" or "union"
    name: str
    cname: str | None
    fields: tuple[Field, ...]
    opaque: bool


@dataclass(frozen=True)
class Typedef:
    """``ctypedef <ctype> name``."""

    name: str
    ctype: str


@dataclass(frozen=True)
class Enum:
    """A C enum (its members, without values: the extern blocks give none)."""

    name: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class FuncPtr:
    """A function-pointer typedef: ``restype (*name)(params)``, each param ``(C type, name)``."""

    name: str
    restype: str
    params: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Function:
    """A driver entry ``cdef CUresult name(params)``, each param ``(C type, name)``."""

    name: str
    params: tuple[tuple[str, str], ...]


Decl = Record | Typedef | Enum | FuncPtr


def split_params(params: str) -> tuple[tuple[str, str], ...]:
    """``'CUstream hStream, void* userData'`` -> ``(('CUstream', 'hStream'), ('void*', 'userData'))``."""
    out = []
    for p in filter(None, (x.strip() for x in params.split(","))):
        m = PARAM.match(p)
        if m is None:
            raise ValueError(f"cannot read parameter {p!r}")
        out.append((norm(m.group(1)), m.group(2)))
    return tuple(out)


def functions(pxd: str) -> list[Function]:
    """The ``cdef CUresult`` declarations, in the pxd's order."""
    return [Function(name, split_params(params)) for name, params in DECL.findall(pxd)]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def declarations(pxd: str) -> list[Decl]:
    """Every type the pxd declares (records, typedefs, enums, function pointers), in the pxd's order."""
    lines = [ln.split("#", 1)[0].rstrip() for ln in pxd.splitlines()]
    out: list[Decl] = []
    i = 0

    def body(head: int) -> tuple[list[str], int]:
        """The lines indented deeper than line ``head``, and the index after them."""
        depth, j, got = _indent(lines[head]), head + 1, []
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > depth):
            if lines[j].strip():
                got.append(lines[j].strip())
            j += 1
        return got, j

    while i < len(lines):
        s = lines[i].strip()
        if not s:
            i += 1
            continue
        if s.startswith('"""'):  # a verbatim C block (cdef extern from *: """...""")
            i += 1
            while '"""' not in lines[i]:
                i += 1
            i += 1
            continue
        if s.startswith("from ") and s.endswith("("):  # a parenthesised cimport list
            while lines[i].strip() != ")":
                i += 1
            i += 1
            continue
        if (s.startswith(("cdef extern from", "from ", "cdef enum:", "cdef CUresult ", "const "))
                or s == "pass"):
            i += 1
            continue
        if m := _RECORD.match(s):
            members, i = body(i)
            opaque = members == ["pass"]
            fields = []
            for f in [] if opaque else members:
                fm = _FIELD.match(f)
                if fm is None:
                    raise ValueError(f"cannot read field {f!r} of {m.group(3)}")
                dims = tuple(int(d) for d in re.findall(r"\[(\d+)\]", fm.group(3)))
                fields.append(Field(norm(fm.group(1)), fm.group(2), dims))
            out.append(Record(m.group(2), m.group(3), m.group(5), tuple(fields), opaque))
            continue
        if m := _ENUM.match(s):
            members, i = body(i)
            out.append(Enum(m.group(1), tuple(x.split()[0] for x in members)))
            continue
        if m := _FUNCPTR.match(s):
            j = i + 1
            while lines[j].strip() != ")":
                j += 1
            params = " ".join(lines[k].strip() for k in range(i + 1, j))
            out.append(FuncPtr(m.group(2), norm(m.group(1)), split_params(params)))
            i = j + 1
            continue
        if s.startswith("ctypedef "):
            rest = _QUOTED_TAIL.sub("", s[len("ctypedef "):])
            m = re.match(r"^(.*?)\s*\b(\w+)$", rest)
            if m is None:
                raise ValueError(f"cannot read typedef {s!r}")
            out.append(Typedef(m.group(2), norm(m.group(1))))
            i += 1
            continue
        raise ValueError(f"cydriver.pxd line {i + 1}: cannot read {s!r}")
    names = [d.name for d in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"declared more than once: {dupes}")
    return out
