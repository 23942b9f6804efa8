"""Generate ``simcuda/_generated/driver_outputs.py`` from the real cuda-bindings wheel.

It writes five tables that the driver faces need and that must never be typed by hand:

* ``OUTPUTS``: for every ``cu*`` function of ``cuda.bindings.driver``, the signature line and the
  output slots read from the numpydoc ``Returns`` section of the real docstring (the first entry
  is the ``CUresult``; the others are the outputs, in tuple order). The face uses the count to
  build ``(CUresult, None, ...)`` tuples of the right length, also for calls it does not simulate.
* ``CLASSES``: every non-enum class of ``cuda.bindings.driver``: its bases inside the module, its
  kind (``ptr`` handle with value equality, ``value`` wrapper without it, ``callback`` pointer
  without it, ``struct`` with its field names, ``opaque`` otherwise) and, for wrappers, the C
  value width in bits and signedness (probed with values that overflow).
* ``ERROR_STRINGS``: the text of each ``CUresult`` member's docstring (``cuGetErrorString``).
* ``PARAMS``: for every ``cu*`` function, its parameters with the type text of the Parameters section
  (which arguments are handles, lists or buffers: the faces convert them in the real wrapper's order).
* ``V2_FUNCTIONS``: every function of ``cuda.bindings._v2.driver`` with its signature line.

Usage: ``python3 tools/gen_driver_outputs.py`` (needs the cuda-bindings 13.5.x wheel; it
imports without a GPU). Re-run after upgrading the wheel and commit the result.
"""
from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "simcuda" / "_generated" / "driver_outputs.py"
_ENTRY = re.compile(r"^([A-Za-z_][\w]*)\s*:\s*(.*)$")


def outputs(doc: str) -> list[tuple[str, str]]:
    """``[(name, type text)]`` of the Returns section, CUresult first."""
    lines = doc.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.strip() == "Returns"
                     and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"})
    except StopIteration:
        return []
    indent = len(lines[start]) - len(lines[start].lstrip())  # some docstrings indent whole sections
    out: list[tuple[str, str]] = []
    for ln in lines[start + 2:]:
        if not ln.strip() or len(ln) - len(ln.lstrip()) != indent:
            continue
        text = ln.strip()
        if text in ("See Also", "Notes", "Examples", "Raises", "Warnings") or set(text) == {"-"}:
            break
        m = _ENTRY.match(text)
        if m:
            out.append((m.group(1), _clean(m.group(2))))
        elif text == "CUresult":
            out.append(("CUresult", "CUresult"))
    return out


def parameters(doc: str) -> list[tuple[str, str]]:
    """``[(name, type text)]`` of the Parameters section, in order (``hStream : CUstream or cudaStream_t``)."""
    lines = doc.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.strip() == "Parameters"
                     and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"})
    except StopIteration:
        return []
    indent = len(lines[start]) - len(lines[start].lstrip())
    out: list[tuple[str, str]] = []
    for ln in lines[start + 2:]:
        if not ln.strip() or len(ln) - len(ln.lstrip()) != indent:
            continue
        text = ln.strip()
        if text in ("Returns", "See Also", "Notes") or set(text) == {"-"}:
            break
        m = _ENTRY.match(text)
        if m:
            out.append((m.group(1), _clean(m.group(2))))
    return out


def _clean(t: str) -> str:
    return re.sub(r":py:obj:`~?\.?([^`]+)`", r"\1", t).strip()


def _classes(real) -> dict:
    from cuda.bindings._internal._fast_enum import FastEnum
    out = {}
    for name in sorted(dir(real)):
        c = getattr(real, name)
        if (not isinstance(c, type) or issubclass(c, (FastEnum, BaseException)) or name.startswith("_")
                or getattr(c, "__module__", "") != real.__name__):
            continue
        bases = tuple(b.__name__ for b in c.__mro__[1:] if getattr(b, "__module__", "") == real.__name__)
        try:
            obj = c()
        except Exception:
            out[name] = (bases, "opaque", ())
            continue
        public = tuple(a for a in dir(obj) if not a.startswith("_") and a != "getPtr")
        if public:
            out[name] = (bases, "struct", public)
            continue
        if not hasattr(obj, "getPtr"):
            out[name] = (bases, "opaque", ())
            continue
        try:
            int(obj)  # wrappers have a value; field-less structs (reserved bytes only) do not
        except TypeError:
            out[name] = (bases, "struct", ())
            continue
        try:
            text = repr(c(5))  # a plain wrapper (no fields): 5 is a value, never an address here
        except Exception:
            out[name] = (bases, "opaque", ())
            continue
        if text.endswith(" 0x5>"):
            kind = "ptr" if "__eq__" in c.__dict__ else "callback"
        else:
            kind = "value"
        bits = 64
        try:
            c(2 ** 32)
        except OverflowError:
            bits = 32
        try:
            c(-1)
            signed = True
        except OverflowError:
            signed = False
        out[name] = (bases, kind, (bits, signed))
    return out


def main() -> int:
    import cuda.bindings
    import cuda.bindings.driver as real

    rows = []
    params: dict[str, tuple] = {}
    for name in sorted(n for n in dir(real) if n.startswith("cu") and callable(getattr(real, n))
                       and not isinstance(getattr(real, n), type)):
        fn = getattr(real, name)
        doc = inspect.cleandoc(fn.__doc__ or "")
        sig = doc.splitlines()[0].strip() if doc else f"{name}(...)"
        outs = outputs(doc)
        if not outs or outs[0][0] != "CUresult":
            print(f"warning: {name}: no CUresult in Returns; assuming no outputs", file=sys.stderr)
            outs = [("CUresult", "CUresult")]
        rows.append((name, sig, tuple(outs[1:])))
        params[name] = tuple(parameters(doc))
    classes = _classes(real)
    errors = {int(m): " ".join((m.__doc__ or "").split()) for m in real.CUresult}
    import cuda.bindings._v2.driver as v2
    v2_funcs = {n: (getattr(v2, n).__doc__ or n).splitlines()[0].strip() for n in sorted(dir(v2))
                if not n.startswith("_") and callable(getattr(v2, n)) and not isinstance(getattr(v2, n), type)
                and "_dtype" not in n}
    with open(OUT, "w", encoding="utf-8") as fh:
        fh.write(f"# generated by tools/gen_driver_outputs.py from cuda-bindings {cuda.bindings.__version__}; "
                 "do not edit\n")
        fh.write('"""Output slots of every ``cuda.bindings.driver`` function (from the real docstrings).\n\n'
                 "``OUTPUTS[name] = (signature line, ((output name, type text), ...))``; the CUresult is not\n"
                 'listed, so ``len(OUTPUTS[name][1])`` is the number of ``None`` slots after an error.\n"""\n\n')
        fh.write("OUTPUTS = {\n")
        for name, sig, outs in rows:
            fh.write(f"    {name!r}: ({sig!r}, {outs!r}),\n")
        fh.write("}\n\n")
        fh.write("#: class name -> (bases in the module, kind, detail): detail is (bits, signed) for wrappers,\n"
                 "#: the public field names for structs, () otherwise\n")
        fh.write("CLASSES = {\n")
        for name, row in classes.items():
            fh.write(f"    {name!r}: {row!r},\n")
        fh.write("}\n\n")
        fh.write("#: CUresult value -> the member's docstring (what cuGetErrorString returns here)\n")
        fh.write("ERROR_STRINGS = {\n")
        for code, text in sorted(errors.items()):
            fh.write(f"    {code}: {text!r},\n")
        fh.write("}\n\n")
        fh.write("#: function -> ((parameter, type text of the Parameters section), ...), in signature order; the\n"
                 "#: faces read from it which arguments are handles, lists and buffers (argument conversion order)\n")
        fh.write("PARAMS = {\n")
        for name, _sig, _outs in rows:
            fh.write(f"    {name!r}: {params[name]!r},\n")
        fh.write("}\n\n")
        fh.write("#: every function of cuda.bindings._v2.driver -> its signature line\n")
        fh.write("V2_FUNCTIONS = {\n")
        for name, sig in v2_funcs.items():
            fh.write(f"    {name!r}: {sig!r},\n")
        fh.write("}\n")
    print(f"wrote {OUT} ({len(rows)} functions, {len(classes)} classes, {len(v2_funcs)} _v2 functions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
