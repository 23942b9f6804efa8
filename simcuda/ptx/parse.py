"""PTX text to a small tree: module variables, kernels and device functions, each a list of instructions.

Written for this project over the PTX ISA grammar (statements end with ``;``, directives start with ``.``, labels
end with ``:``). Debug directives (``.loc``, ``.file``, ``.section``) are skipped. Errors raise
:class:`~simcuda.ptx.interface.PtxParseError` with the 1-based line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .interface import PtxParseError

TYPE_SIZES = {"pred": 1, "b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
              "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "b64": 8, "u64": 8, "s64": 8,
              "f64": 8, "b128": 16}


@dataclass
class Var:
    """A ``.shared``/``.local``/``.global``/``.const``/``.param`` variable: space, element type, byte size,
    alignment, initial bytes (or None)."""
    name: str
    space: str
    ptype: str
    size: int
    align: int
    init: bytes | None = None
    extern: bool = False
    #: address initialisers: (byte offset in the variable, symbol, addend) - the symbol's generic address plus
    #: the addend belongs there (``generic(x)``, ``x``, ``x+8``, a function's name)
    relocs: list[tuple[int, str, int]] = field(default_factory=list)


@dataclass
class Ins:
    """One instruction: opcode parts (``ld.global.f32`` -> ``["ld", "global", "f32"]``), operand texts, guard
    predicate (``(name, negated)`` or None) and its 1-based line."""
    parts: list[str]
    ops: list[str]
    guard: tuple[str, bool] | None
    line: int
    text: str


@dataclass
class Func:
    """An ``.entry`` or ``.func``: params, return params, registers (name -> type), local variables, body."""
    name: str
    entry: bool
    params: list[Var]
    rets: list[Var]
    regs: dict[str, str] = field(default_factory=dict)
    #: vector registers (``.reg .v2/.v4``): name -> element count; their elements are in ``regs`` as
    #: ``name.x``, ``name.y``, ``name.z``, ``name.w``
    vregs: dict[str, int] = field(default_factory=dict)
    locals: list[Var] = field(default_factory=list)
    body: list[Ins] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    maxntid: tuple[int, int, int] | None = None
    reqntid: tuple[int, int, int] | None = None
    #: the cluster directives (PTX ISA, "Cluster Dimension Directives"): ``.reqnctapercluster`` (the exact
    #: cluster shape), ``.explicitcluster`` (the launch must give a cluster shape), ``.maxclusterrank`` (at most
    #: that many CTAs per cluster)
    reqnctapercluster: tuple[int, int, int] | None = None
    explicitcluster: bool = False
    maxclusterrank: int | None = None
    #: ``.maxnreg`` (PTX ISA, "Performance-Tuning Directives"): the most registers per thread, or None; the
    #: smallest when given more than once (a link's register budget arrives as one, simcuda._core.modules.linker)
    maxnreg: int | None = None
    line: int = 0
    decl_only: bool = False


@dataclass
class ParsedModule:
    """The module: version, target, address size, module variables, functions by name."""
    version: str = ""
    target: str = ""
    address_size: int = 64
    variables: list[Var] = field(default_factory=list)
    funcs: dict[str, Func] = field(default_factory=dict)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_TOKEN_SPLIT = re.compile(r"\s+")


_NOSEMI = re.compile(r"^(\s*\.(?:version|target|address_size|file|loc)\b[^\n;]*)$", re.M)


def _strip_comments(text: str) -> str:
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return _NOSEMI.sub(r"\1;", text)


def _statements(text: str) -> list[tuple[str, int]]:
    """Split into statements (``;``-terminated, ``{``/``}`` and labels as their own), each with its line."""
    out: list[tuple[str, int]] = []
    buf: list[str] = []
    line = 1
    start = 1
    i, n = 0, len(text)
    depth_brace_init = 0  # braces inside initialisers / vector operands
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        if not buf and ch.isspace():
            i += 1
            continue
        if not buf:
            start = line
        if ch == '"':
            j = text.index('"', i + 1)
            buf.append(text[i:j + 1])
            i = j + 1
            continue
        if ch == ";" and depth_brace_init == 0:
            out.append(("".join(buf).strip(), start))
            buf = []
        elif ch == "{":
            s = "".join(buf).strip()
            if s == "" or (depth_brace_init == 0 and not _inside_statement(s)):
                if s:
                    out.append((s, start))
                out.append(("{", line))
                buf = []
            else:
                depth_brace_init += 1
                buf.append(ch)
        elif ch == "}":
            if depth_brace_init:
                depth_brace_init -= 1
                buf.append(ch)
            else:
                s = "".join(buf).strip()
                if s:
                    out.append((s, start))
                out.append(("}", line))
                buf = []
        elif ch == ":" and depth_brace_init == 0 and re.fullmatch(r"[$%\w.]+", "".join(buf).strip() or "-"):
            out.append(("".join(buf).strip() + ":", start))
            buf = []
        else:
            buf.append(ch)
        i += 1
    if "".join(buf).strip():
        out.append(("".join(buf).strip(), start))
    return out


def _inside_statement(s: str) -> bool:
    """A ``{`` after this prefix opens an initialiser or vector operand, not a block."""
    if s.endswith("=") or s.endswith(","):
        return True
    first = s.split()[0] if s.split() else ""
    if first.startswith(".") and first not in (".entry", ".func", ".visible", ".weak", ".extern"):
        return first in (".global", ".const", ".shared", ".local")  # '= {' handled above
    if first.startswith(".") or first.startswith(")"):
        return False
    return not s.endswith(")") and not s.startswith(".maxntid")


def _split_ops(s: str) -> list[str]:
    ops: list[str] = []
    depth = 0
    cur: list[str] = []
    for ch in s:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            ops.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        ops.append("".join(cur).strip())
    return ops


def parse_int(tok: str) -> int:
    """A PTX integer literal (decimal, hex ``0x``, octal, binary ``0b``, optional ``U`` suffix)."""
    t = tok.strip().rstrip("Uu")
    neg = t.startswith("-")
    if neg:
        t = t[1:]
    if t.lower().startswith("0x"):
        v = int(t[2:], 16)
    elif t.lower().startswith("0b"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t.startswith("0") and t.isdigit():
        v = int(t, 8)
    else:
        v = int(t)
    return -v if neg else v


def _parse_var(words: list[str], rest: str, line: int) -> Var:
    """``.shared .align 4 .b8 name[1024] = {...}`` (the directive words before the name)."""
    space = ""
    align = 0
    ptype = ""
    extern = False
    i = 0
    vec = 1
    while i < len(words):
        w = words[i]
        if w in (".shared", ".local", ".global", ".const", ".param", ".reg"):
            space = w[1:]
        elif w == ".align":
            align = parse_int(words[i + 1])
            i += 1
        elif w == ".extern":
            extern = True
        elif w in (".v2", ".v4"):
            vec = int(w[2:])
        elif w.startswith(".") and w[1:] in TYPE_SIZES:
            ptype = w[1:]
        i += 1
    m = re.match(r"([$%\w.]+)\s*((?:\[\s*\w*\s*\])*)\s*(?:=\s*(.*))?$", rest.strip(), re.S)
    if not m or not ptype:
        raise PtxParseError(f"cannot parse the variable declaration {' '.join(words)} {rest!r}", line)
    name, dims, init = m.group(1), m.group(2), m.group(3)
    esize = TYPE_SIZES[ptype] * vec
    count = 1
    for d in re.findall(r"\[\s*(\w*)\s*\]", dims):
        count *= parse_int(d) if d else 0
    size = esize * count
    init_bytes = None
    relocs: list[tuple[int, str, int]] = []
    if init is not None:
        vals = [v.strip() for v in init.replace("{", " ").replace("}", " ").split(",") if v.strip()]
        out = bytearray()
        for v in vals:
            ma = _ADDR_INIT.fullmatch(v.replace(" ", ""))
            if ma and not re.fullmatch(r"-?(0[xXbB])?[0-9a-fA-F]+[Uu]?|0[fFdD][0-9a-fA-F]+", v):
                sym = ma.group(1) or ma.group(2)
                addend = parse_int(ma.group(3).replace("+", "")) if ma.group(3) else 0
                relocs.append((len(out), sym, addend))
                out += bytes(TYPE_SIZES[ptype])
                continue
            out += _literal_bytes(v, ptype, line)
        init_bytes = bytes(out).ljust(size, b"\0")
    return Var(name, space, ptype, size, align or TYPE_SIZES[ptype] * vec, init_bytes, extern, relocs)


#: an address initialiser: ``generic(name)``, ``name``, either with ``+N``/``-N``
_ADDR_INIT = re.compile(r"(?:generic\(([$%\w.]+)\)|([A-Za-z_$%][$%\w.]*))([+-](?:0[xX][0-9a-fA-F]+|\d+))?")


def _literal_bytes(v: str, ptype: str, line: int) -> bytes:
    import struct
    n = TYPE_SIZES[ptype]
    if ptype in ("f32", "f64"):
        if v[:2] in ("0f", "0F", "0d", "0D"):
            return int(v[2:], 16).to_bytes(n, "little")
        return struct.pack("<f" if n == 4 else "<d", float(v))
    if not re.fullmatch(r"-?(0[xXbB])?[0-9a-fA-F]+[Uu]?", v):
        # generic(symbol) / symbol initialisers: unsupported (addresses of variables)
        raise PtxParseError(f"initialiser {v!r} is not a literal (address initialisers are not supported)", line)
    return (parse_int(v) % (1 << (8 * n))).to_bytes(n, "little")


def _parse_params(s: str, line: int) -> list[Var]:
    out = []
    for p in _split_ops(s):
        p = p.strip()
        if not p:
            continue
        words = p.split()
        out.append(_parse_var(words[:-1], words[-1], line))
    return out


def parse(text: str) -> ParsedModule:
    """Parse PTX ``text``; raises PtxParseError with the line of the first statement it cannot read."""
    mod = ParsedModule()
    stmts = _statements(_strip_comments(text))
    cur: Func | None = None
    i = 0
    depth = 0
    pending: Func | None = None
    scopes = _Scopes()
    while i < len(stmts):
        s, line = stmts[i]
        i += 1
        if s == "{":
            if pending is not None and cur is None:
                cur, pending = pending, None
                scopes = _Scopes()
            depth += 1
            if cur is not None and depth >= 2:
                scopes.push()
            continue
        if s == "}":
            if cur is not None and depth >= 2:
                scopes.pop()
            depth -= 1
            if depth == 0 and cur is not None:
                mod.funcs[cur.name] = cur
                cur = None
            continue
        if cur is None and s.startswith(".section"):
            # debug sections (.debug_info, .debug_loc...): skip the braced body
            if i < len(stmts) and stmts[i][0] == "{":
                d = 0
                while i < len(stmts):
                    t = stmts[i][0]
                    i += 1
                    d += (t == "{") - (t == "}")
                    if d == 0:
                        break
            continue
        if cur is None:
            pending = _module_stmt(mod, s, line, pending)
            continue
        _body_stmt(cur, s, line, scopes)
    if cur is not None:
        raise PtxParseError(f"unterminated function {cur.name}", cur.line)
    return mod


def _module_stmt(mod: ParsedModule, s: str, line: int, pending: Func | None) -> Func | None:
    words = s.split()
    head = words[0]
    if head == ".version":
        mod.version = words[1]
    elif head == ".target":
        mod.target = words[1].rstrip(",")
    elif head == ".address_size":
        mod.address_size = int(words[1])
    elif head in (".file", ".section", ".loc", "@@DWARF", ".pragma"):
        pass
    elif ".entry" in words or ".func" in words:
        f = _parse_header(s, line)
        if f.decl_only:
            if f.name not in mod.funcs:
                mod.funcs[f.name] = f
            return None
        return f
    elif pending is not None and head in _DIRECTIVES:
        _directives(pending, s)
        return pending
    elif any(w in (".global", ".const", ".shared", ".local") for w in words):
        name_i = next(k for k, w in enumerate(words) if not w.startswith("."))
        if words[name_i - 1] == ".align":
            name_i = next(k for k, w in enumerate(words) if k > name_i and not w.startswith("."))
        v = _parse_var(words[:name_i], " ".join(words[name_i:]), line)
        mod.variables.append(v)
    else:
        raise PtxParseError(f"unknown module-level statement {s[:60]!r}", line)
    return pending


def _parse_header(s: str, line: int) -> Func:
    entry = ".entry" in s.split()
    decl = s.split()[0] == ".extern" or (".extern" in s.split())
    m = re.search(r"\.(?:entry|func)\s*(\(([^)]*)\))?\s*([$\w.]+)\s*(\(([^)]*)\))?(.*)$", s, re.S)
    if not m:
        raise PtxParseError(f"cannot parse the function header {s[:80]!r}", line)
    rets = _parse_params(m.group(2), line) if m.group(2) else []
    params = _parse_params(m.group(5), line) if m.group(5) else []
    f = Func(m.group(3), entry, params, rets, line=line, decl_only=decl)
    _directives(f, m.group(6) or "")
    return f


#: the performance-tuning and cluster directives of an ``.entry`` (PTX ISA, "Performance-Tuning Directives",
#: "Cluster Dimension Directives"): those the simulator reads (:func:`_directives`) and those it parses and
#: ignores, harmless on a CPU (``.minnctapersm``, ``.maxnctapersm``: occupancy hints; ``.noreturn``,
#: ``.pragma``)
_DIRECTIVES = frozenset({".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".noreturn",
                         ".maxclusterrank", ".reqnctapercluster", ".explicitcluster", ".pragma"})
_DIRECTIVE = re.compile(r"(\.[a-z]+)\b\s*((?:\d+\s*,?\s*)*)")


def _directives(f: Func, text: str) -> None:
    """Read the directives in ``text`` (the tail of an ``.entry`` line, or a line of its own, several in a row
    allowed) into ``f``: ``.maxntid``/``.reqntid``/``.reqnctapercluster`` as 3 dimensions (missing ones 1),
    ``.maxclusterrank`` and ``.maxnreg`` (the smallest) as counts, ``.explicitcluster`` as a flag; the rest of
    :data:`_DIRECTIVES` ignored."""
    for name, nums_text in _DIRECTIVE.findall(text):
        if name not in _DIRECTIVES:
            continue
        nums = (*tuple(int(x) for x in re.findall(r"\d+", nums_text)), 1, 1, 1)
        if name == ".maxntid":
            f.maxntid = (nums[0], nums[1], nums[2])
        elif name == ".reqntid":
            f.reqntid = (nums[0], nums[1], nums[2])
        elif name == ".reqnctapercluster":
            f.reqnctapercluster = (nums[0], nums[1], nums[2])
        elif name == ".maxclusterrank":
            f.maxclusterrank = nums[0]
        elif name == ".maxnreg":
            f.maxnreg = nums[0] if f.maxnreg is None else min(f.maxnreg, nums[0])
        elif name == ".explicitcluster":
            f.explicitcluster = True


class _Scopes:
    """The inner ``{ }`` blocks open in a function body, for its scoped register declarations.

    In PTX a name declared in a block is visible only inside it and hides an outer one of the same name (the ISA,
    "Statement blocks" / scoping). Each block instance gets a number, and a ``.reg`` declared in it is renamed
    ``__b<k>_<name>`` (a name no PTX source uses: identifiers may not start with two underscores and a ``b``
    followed by the block number [I]); the operands of the statements inside it are renamed through the blocks
    open at that point, innermost first, so shadowing and reuse of a name in sibling blocks both work."""

    def __init__(self) -> None:
        self.stack: list[dict[str, str]] = []
        self.count = 0
        self._pat: re.Pattern[str] | None = None
        self._ren: dict[str, str] = {}
        self._stale = False

    def push(self) -> None:
        """A block opens."""
        self.count += 1
        self.stack.append({})

    def pop(self) -> None:
        """The innermost block closes (its names go out of scope)."""
        if self.stack:
            self.stack.pop()
            self._stale = True

    def declare(self, name: str) -> str:
        """The name register ``name`` declared at this point has in the flattened function (renamed inside a
        block, unchanged at function level)."""
        if not self.stack:
            return name
        new = self.stack[-1][name] = f"__b{self.count}_{name}"
        self._stale = True
        return new

    def rename(self, text: str) -> str:
        """``text`` (an operand or guard) with every scoped register name replaced by its block's name."""
        if not any(self.stack):
            return text
        if self._stale or self._pat is None:
            self._ren = {k: v for scope in self.stack for k, v in scope.items()}  # inner blocks win
            alt = "|".join(re.escape(k) for k in sorted(self._ren, key=len, reverse=True))
            self._pat = re.compile(r"(?<![\w$%.])(" + alt + r")(?![\w$])")
            self._stale = False
        ren = self._ren
        return self._pat.sub(lambda m: ren[m.group(1)], text)


def _body_stmt(f: Func, s: str, line: int, sc: _Scopes) -> None:
    if s.endswith(":"):
        f.labels[s[:-1]] = len(f.body)
        return
    words = s.split(None, 1)
    head = words[0]
    if head.startswith(".reg."):  # `.reg.b16 r, i;` (the type written against the directive, as inline asm has it)
        head = ".reg"
        s = words[0].replace(".", " .").strip() + (" " + words[1] if len(words) > 1 else "")
    if head == ".reg":
        m = re.match(r"\.reg\s+((?:\.\w+\s+)+)(.*)$", s, re.S)
        if not m:
            raise PtxParseError(f"cannot parse {s!r}", line)
        tys = [t[1:] for t in m.group(1).split()]
        ty = next(t for t in tys if t in TYPE_SIZES)
        vec = 4 if "v4" in tys else 2 if "v2" in tys else 1
        names: list[str] = []
        for name in _split_ops(m.group(2)):
            mr = re.fullmatch(r"([%$\w]+)<(\d+)>", name.strip())
            if mr:
                names += [f"{mr.group(1)}{k}" for k in range(int(mr.group(2)))]
            else:
                names.append(name.strip())
        for name in (sc.declare(x) for x in names):
            if vec == 1:
                f.regs[name] = ty
                continue
            # a vector register: one register per element, named as PTX names them (.x .y .z .w)
            f.vregs[name] = vec
            for comp in "xyzw"[:vec]:
                f.regs[f"{name}.{comp}"] = ty
        return
    if head in (".loc", ".file", ".section", ".pragma", "@@DWARF", ".callprototype"):
        return  # a call prototype names only the types of an indirect call's operands
    if head in (".shared", ".local", ".global", ".const", ".param") or head == ".align":
        ws = s.split()
        name_i = next(k for k, w in enumerate(ws) if not w.startswith(".") and ws[k - 1] != ".align")
        v = _parse_var(ws[:name_i], " ".join(ws[name_i:]), line)
        f.locals.append(v)
        if v.space == "reg":
            f.regs[v.name] = v.ptype
        return
    guard = None
    body = s
    if body.startswith("@"):
        g, body = body.split(None, 1)
        neg = g.startswith("@!")
        guard = (g[2:] if neg else g[1:], neg)
    pw = body.split(None, 1)
    parts = pw[0].split(".")
    ops = [sc.rename(o) for o in _split_ops(pw[1])] if len(pw) > 1 else []
    if guard is not None:
        guard = (sc.rename(guard[0]), guard[1])
    f.body.append(Ins(parts, ops, guard, line, s))


def call_names(ins: Ins) -> tuple[list[str], list[str]]:
    """A ``call``'s return and argument operand names (a trailing prototype operand is neither)."""
    o = ins.ops
    def names(s: str) -> list[str]:
        return [x.strip() for x in s.strip().strip("()").split(",") if x.strip()]
    if o[0].strip().startswith("("):  # a trailing operand not in parentheses is a call prototype
        return names(o[0]), [a for x in o[2:] if x.strip().startswith("(") for a in names(x)]
    return [], [a for x in o[1:] if x.strip().startswith("(") for a in names(x)]


def call_target(ins: Ins) -> str:
    """The callee operand of a ``call`` (a function name, or a register for an indirect call)."""
    o = ins.ops
    return o[1].strip() if o[0].strip().startswith("(") else o[0].strip()
