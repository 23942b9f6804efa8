"""Write simcuda/_generated/cydriver_ctypes.py: the driver's C types and entry prototypes as ctypes, from the wheel.

Usage: python tools/gen_cydriver_ctypes.py [--check]

Source: ``cuda/bindings/cydriver.pxd`` of the installed cuda-bindings wheel (parsed by tools/_pxd.py), and the entry
table (simcuda/_generated/entry_table.py, itself generated from the same pxd) for the order of the prototypes.

One fact the pxd does not carry is added here: **where C has an anonymous union**. Cython only needs member names,
so the pxd lists the members of an anonymous union inline with the fields of the enclosing record
(``CUgraphNodeParams_st`` declares ``reserved1``, ``kernel``, ..., ``asBytes`` one after the other, where C overlays
them). :data:`ANONYMOUS_UNIONS` names the first and last member of each such run. It is checked, not trusted: before
writing, the generator compares ``ctypes.sizeof`` of every record against ``cuda.bindings.driver.sizeof`` (the
wheel's own compiled ``sizeof``) and stops on any difference, which is what a new anonymous union in a later pxd
causes; tests/test_cydriver_ctypes.py compares every offset against ``offsetof`` from cuda.h where gcc and a CUDA
toolkit are present.
"""
from __future__ import annotations

import ctypes
import pathlib
import sys
from collections.abc import Iterable

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from _gen import write_or_check  # noqa: E402
from _pxd import Decl, Enum, Field, FuncPtr, Function, Record, Typedef, declarations, functions, pxd_text  # noqa: E402

OUT = ROOT / "simcuda" / "_generated" / "cydriver_ctypes.py"

# record -> runs of its pxd fields (first, last) that C declares inside an anonymous union (see the docstring)
ANONYMOUS_UNIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "CUgraphNodeParams_st": (("reserved1", "asBytes"),),
    "CUdevResource_st": (("sm", "_oversize"),),
    "CUstreamMemOpWaitValueParams_st": (("value", "value64"),),
    "CUstreamMemOpWriteValueParams_st": (("value", "value64"),),
    "CUmemLocation_st": (("id", "localized"),),
    "CUlogicalEndpointProp_struct": (("unicast", "multicast"),),
    # 13.x node parameters that take a context or a green context in one slot
    "CUDA_HOST_NODE_PARAMS_v2_st": (("ctx", "gCtx"),),
    "CUDA_EVENT_RECORD_NODE_PARAMS_st": (("ctx", "gCtx"),),
    "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2_st": (("ctx", "gCtx"),),
    "CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2_st": (("ctx", "gCtx"),),
    "CUDA_MEMCPY_BATCH_NODE_PARAMS_V1_st": (("ctx", "gCtx"),),
    "CUDA_FABRIC_CPY_BATCH_NODE_PARAMS_V1_st": (("ctx", "gCtx"),),
}

BUILTIN = {
    "char": "ctypes.c_char", "signed char": "ctypes.c_byte", "unsigned char": "ctypes.c_ubyte",
    "short": "ctypes.c_short", "unsigned short": "ctypes.c_ushort",
    "int": "ctypes.c_int", "unsigned": "ctypes.c_uint", "unsigned int": "ctypes.c_uint",
    "long": "ctypes.c_long", "unsigned long": "ctypes.c_ulong",
    "long long": "ctypes.c_longlong", "unsigned long long": "ctypes.c_ulonglong",
    "float": "ctypes.c_float", "double": "ctypes.c_double", "size_t": "ctypes.c_size_t",
    "uint32_t": "ctypes.c_uint32", "uint64_t": "ctypes.c_uint64",
}
ENUM_CTYPE = "ctypes.c_int"  # a C enum with these values is int-sized on every ABI the driver ships for


class Types:
    """The pxd's names and how each C type spelling becomes a ctypes expression."""

    def __init__(self, decls: list[Decl]) -> None:
        self.by_name = {d.name: d for d in decls}

    def record_behind(self, name: str) -> Record | None:
        """The record a name stands for by value, through typedef chains (None for anything else)."""
        d = self.by_name.get(name)
        while isinstance(d, Typedef) and "*" not in d.ctype:
            d = self.by_name.get(d.ctype)
        return d if isinstance(d, Record) else None

    def expr(self, ctype: str) -> tuple[str, set[str], set[str]]:
        """``(python expression, names it uses, records that must be complete first)`` for a C type spelling."""
        words = ctype.replace("*", " ").split()
        const = "const" in words
        base = " ".join(w for w in words if w != "const")
        stars = ctype.count("*")
        if base == "void":
            if stars == 0:
                return "None", set(), set()
            return self._pointers("ctypes.c_void_p", stars - 1), set(), set()
        if base == "char" and stars:
            inner = "ctypes.c_char_p" if const else "ctypes.POINTER(ctypes.c_char)"
            return self._pointers(inner, stars - 1), set(), set()
        if base in BUILTIN:
            return self._pointers(BUILTIN[base], stars), set(), set()
        d = self.by_name.get(base)
        if d is None:
            raise SystemExit(f"cydriver.pxd uses the type {base!r} but declares no such name")
        if stars and isinstance(d, Record) and d.opaque:  # a handle: pointer to an incomplete struct
            return self._pointers("ctypes.c_void_p", stars - 1), set(), set()
        rec = self.record_behind(base)
        return self._pointers(base, stars), {base}, {rec.name} if rec and not stars else set()

    @staticmethod
    def _pointers(inner: str, n: int) -> str:
        for _ in range(n):
            inner = f"ctypes.POINTER({inner})"
        return inner


def field_type(types: Types, f: Field) -> tuple[str, set[str], set[str]]:
    """A field's ctypes expression (arrays as ``T * n``, outermost extent first as C reads it)."""
    expr, names, complete = types.expr(f.ctype)
    for n in reversed(f.dims):
        expr = f"({expr}) * {n}" if " " in expr else f"{expr} * {n}"
    return expr, names, complete


def with_anonymous_unions(decls: list[Decl]) -> list[Decl]:
    """The declarations with each anonymous-union run of :data:`ANONYMOUS_UNIONS` moved into a union of its own
    (``<record>_anon<k>``, declared just before the record), the record keeping one member ``_anon<k>`` for it."""
    out: list[Decl] = []
    seen = set()
    for d in decls:
        if isinstance(d, Record) and d.name in ANONYMOUS_UNIONS:
            seen.add(d.name)
            fields = list(d.fields)
            for k, (first, last) in enumerate(ANONYMOUS_UNIONS[d.name]):
                names = [f.name for f in fields]
                i, j = names.index(first), names.index(last)
                union = Record("union", f"{d.name}_anon{k}", None, tuple(fields[i:j + 1]), False)
                out.append(union)
                fields[i:j + 1] = [Field(union.name, f"_anon{k}")]
            d = Record(d.kind, d.name, d.cname, tuple(fields), False)
        out.append(d)
    if missing := set(ANONYMOUS_UNIONS) - seen:
        raise SystemExit(f"ANONYMOUS_UNIONS names records the pxd no longer declares: {sorted(missing)}")
    return out


def c_spelling(r: Record) -> str | None:
    """How C++ code including cuda.h names the record's type (None for the unions made here, which C never names)."""
    parent, _sep, k = r.name.rpartition("_anon")
    if r.cname is None and parent in ANONYMOUS_UNIONS and k.isdigit():
        return None
    return r.cname or r.name


def describe(r: Record) -> str:
    """A one-line docstring for a record class."""
    spell = c_spelling(r)
    if spell is None:
        return f"The anonymous union inside ``{r.name.rsplit('_anon', 1)[0]}`` (flattened in cydriver.pxd)."
    if spell.startswith("std::remove_all_extents<decltype("):
        path = spell[len("std::remove_all_extents<decltype(((") : -len(")>::type")]
        parent, member = path.split("*)0)->", 1)
        return f"The nameless {r.kind} type of ``{parent}::{member}``."
    if r.opaque:
        return f"``{r.kind} {r.name}``: opaque (incomplete in C, so no ``_fields_``); handles to it are c_void_p."
    return f"``{r.kind} {r.name}``."


def toposort(nodes: list[tuple[str, set[str]]]) -> list[int]:
    """Indices of ``(key, deps)`` in an order where each node follows its deps; ties keep the given order."""
    import heapq
    keys = {k: i for i, (k, _d) in enumerate(nodes)}
    waiting = {i: {keys[x] for x in d if x in keys and keys[x] != i} for i, (_k, d) in enumerate(nodes)}
    users: dict[int, list[int]] = {}
    for i, ds in waiting.items():
        for x in ds:
            users.setdefault(x, []).append(i)
    ready = [i for i, ds in waiting.items() if not ds]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users.get(i, []):
            waiting[u].discard(i)
            if not waiting[u]:
                heapq.heappush(ready, u)
    if len(order) != len(nodes):
        stuck = [nodes[i][0] for i in waiting if i not in set(order)]
        raise SystemExit(f"circular type dependencies: {stuck[:10]}")
    return order


def lines_for(decls: list[Decl], types: Types) -> tuple[list[str], list[str]]:
    """The class stubs, and every other definition in dependency order."""
    stubs: list[str] = []
    nodes: list[tuple[str, set[str]]] = []
    bodies: list[list[str]] = []
    for d in decls:
        if isinstance(d, Record):
            base = "ctypes.Union" if d.kind == "union" else "ctypes.Structure"
            stubs += ["", "", f"class {d.name}({base}):", f'    """{describe(d)}"""']
            anon = [f.name for f in d.fields if f.name.startswith("_anon") and f.ctype.startswith(d.name + "_anon")]
            if anon:
                stubs += ["", f"    _anonymous_ = {tuple(anon)!r}"]
            if d.opaque:
                continue
            names: set[str] = set()
            complete: set[str] = set()
            rows = []
            for f in d.fields:
                expr, n, c = field_type(types, f)
                names |= n
                complete |= c
                rows.append(f"    ({f.name!r}, {expr}),")
            nodes.append((f"fields:{d.name}", {f"name:{x}" for x in names} | {f"fields:{x}" for x in complete}))
            bodies.append([f"{d.name}._fields_ = [", *rows, "]"])
        elif isinstance(d, Enum):
            nodes.append((f"name:{d.name}", set()))
            bodies.append([f"{d.name} = {ENUM_CTYPE}  # enum, {len(d.members)} members"])
        elif isinstance(d, Typedef):
            expr, n, _c = types.expr(d.ctype)
            nodes.append((f"name:{d.name}", {f"name:{x}" for x in n}))
            bodies.append([f"{d.name} = {expr}"])
        elif isinstance(d, FuncPtr):
            parts = [types.expr(d.restype)] + [types.expr(t) for t, _n in d.params]
            deps = set().union(*({f"name:{x}" for x in n} | {f"fields:{x}" for x in c} for _e, n, c in parts))
            args = ", ".join(e for e, _n, _c in parts)
            sig = ", ".join(f"{t} {n}" for t, n in d.params)
            nodes.append((f"name:{d.name}", deps))
            bodies.append([f"{d.name} = ctypes.CFUNCTYPE({args})  # {d.restype} (*)({sig})"])
    # records are bound by their stubs; a name that is a record needs nothing further
    record_names = {f"name:{d.name}" for d in decls if isinstance(d, Record)}
    nodes = [(k, ds - record_names) for k, ds in nodes]
    body: list[str] = []
    for i in toposort(nodes):
        body += bodies[i]
    return stubs, body


def prototype_lines(funcs: list[Function], types: Types, entries: Iterable[tuple[str, int, str]]) -> list[str]:
    """One ``ctypes.CFUNCTYPE(CUresult, ...)`` line per entry, in the entry table's order."""
    out = []
    for i, (f, (name, version, declared)) in enumerate(zip(funcs, entries, strict=True)):
        if f.name != declared:
            raise SystemExit(f"entry {i}: the pxd declares {f.name} where the entry table has {declared}")
        args = ", ".join(["CUresult"] + [types.expr(t)[0] for t, _n in f.params])
        out.append(f"    ctypes.CFUNCTYPE({args}),  # {i} {name} {version}")
    return out


HEADER = '''"""The CUDA driver's C types and entry prototypes as ctypes, generated from cuda-bindings' cydriver.pxd.

Generated by tools/gen_cydriver_ctypes.py from the installed wheel's cuda/bindings/cydriver.pxd (cuda-bindings
13.5); do not edit. Every declaration of the pxd is here under its pxd name, in an order that defines each name
before its use:

* every enum as ``ctypes.c_int``; every typedef as what it names (``CUdeviceptr = CUdeviceptr_v2 =
  ctypes.c_ulonglong``, ``cuuint64_t = ctypes.c_uint64``); a handle (pointer to an opaque struct, ``CUstream``,
  ``CUgraph``...) as ``ctypes.c_void_p``;
* every struct and union as a ``ctypes.Structure`` / ``ctypes.Union`` with the pxd's fields in the pxd's order
  (arrays as ``T * n``); the classes are declared first and their ``_fields_`` set after, so records that point to
  each other or to themselves (``CUdevResource_st.nextResource``) work. The pxd flattens C's anonymous unions into
  the enclosing record; here they are unions of their own (``<record>_anon<k>``) listed in ``_anonymous_``, so their
  members read as members of the record, at C's offsets. Opaque structs have no ``_fields_`` (incomplete, as in C);
* the function-pointer typedefs (``CUhostFn``, ``CUstreamCallback``...) as ``ctypes.CFUNCTYPE`` types;
* :data:`PROTOTYPES`: for each of the 526 rows of ``entry_table.ENTRIES``, in the same order, the
  ``ctypes.CFUNCTYPE`` of its C declaration (restype ``CUresult``), so that the adapter for entry ``i`` is
  ``PROTOTYPES[i](python_callable)``.

C spellings: ``char*`` is ``POINTER(c_char)`` (a buffer the callee may write), ``const char*`` is ``c_char_p``;
``void*`` is ``c_void_p``. :data:`C_NAMES` gives, for each record class whose C name differs from its Python name,
the C++ type expression the wheel compiles against (the nameless nested records the pxd calls
``cuda_bindings_driver__anon_podN``).
"""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctypes import _CFunctionType'''


def render(pxd: str, entries: Iterable[tuple[str, int, str]]) -> str:
    """The generated module's text."""
    decls = with_anonymous_unions(declarations(pxd))
    types = Types(decls)
    stubs, body = lines_for(decls, types)
    protos = prototype_lines(functions(pxd), types, entries)
    records = [d for d in decls if isinstance(d, Record)]
    cnames = [f"    {r.name!r}: {c_spelling(r)!r}," for r in records if c_spelling(r) not in (None, r.name)]
    lines = [HEADER, *stubs, "", "", *body, "", "",
             "# C++ spelling of each record class whose C name is not its Python name",
             "C_NAMES: dict[str, str] = {", *cnames, "}", "",
             "# entry i of entry_table.ENTRIES -> the ctypes function type of its C declaration",
             "PROTOTYPES: tuple[type[_CFunctionType], ...] = (", *protos, ")", ""]
    return "\n".join(lines)


def size_mismatches(text: str) -> list[str]:
    """Records whose ctypes size differs from ``cuda.bindings.driver.sizeof`` (for those the wheel can size)."""
    from cuda.bindings import driver
    ns: dict[str, object] = {}
    exec(compile(text, str(OUT), "exec"), ns)
    bad = []
    for name, obj in ns.items():
        records = (ctypes.Structure, ctypes.Union)
        if not (isinstance(obj, type) and issubclass(obj, records)) or "_fields_" not in vars(obj):
            continue
        real = getattr(driver, name, None)
        if real is None:
            continue
        try:
            size = driver.sizeof(real)
        except TypeError:  # the wheel cannot size its nameless nested records
            continue
        if ctypes.sizeof(obj) != size:
            bad.append(f"{name}: ctypes {ctypes.sizeof(obj)} bytes, the wheel {size}")
    return bad


def main() -> int:
    """Write the output, or with ``--check`` exit 1 when it is stale."""
    sys.path.insert(0, str(ROOT))
    from simcuda._generated.entry_table import ENTRIES
    text = render(pxd_text(), [(e.name, e.version, e.declared) for e in ENTRIES])
    if bad := size_mismatches(text):
        raise SystemExit("sizes differ from the wheel's (an anonymous union missing from ANONYMOUS_UNIONS?):\n  "
                         + "\n  ".join(bad))
    return write_or_check(OUT, text)


if __name__ == "__main__":
    raise SystemExit(main())
