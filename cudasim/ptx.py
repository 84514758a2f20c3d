"""Parse the PTX that NVRTC emits into a small IR.

Only what the simulator needs: entry functions with their parameters, register, local and
shared declarations, module variables (`.global`, `.const`, `extern .shared`) with their
initializers, labels, and instructions split into base opcode, modifiers and types, with
predicate guards, operands and the `.loc` source position in force. Anything we do not
understand at parse time raises PtxParseError naming the line; instructions are checked
for support later, when the executor decodes them.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

# PTX fundamental types -> (numpy dtype name, size in bytes)
TYPES: dict[str, tuple[str, int]] = {
    "pred": ("bool", 1),
    "b8": ("uint8", 1), "u8": ("uint8", 1), "s8": ("int8", 1),
    "b16": ("uint16", 2), "u16": ("uint16", 2), "s16": ("int16", 2), "f16": ("float16", 2), "bf16": ("uint16", 2),
    "b32": ("uint32", 4), "u32": ("uint32", 4), "s32": ("int32", 4), "f32": ("float32", 4),
    "f16x2": ("uint32", 4), "bf16x2": ("uint32", 4), "tf32": ("uint32", 4),
    "b64": ("uint64", 8), "u64": ("uint64", 8), "s64": ("int64", 8), "f64": ("float64", 8),
    "b128": ("uint64", 16),
}
STATE_SPACES = ("global", "shared", "local", "const", "param", "generic")
CC = "%CC.CF"  # the carry flag of extended-precision arithmetic (add.cc, addc, ...): a register no PTX can name
CARRY_OPS = ("addc", "subc", "madc")


class PtxParseError(ValueError):
    """The PTX text has a construct this parser does not know."""



_DIRECTIVE_RE = re.compile(r"\.(maxntid|reqntid|minnctapersm|maxnreg|maxclusterrank|reqnctapercluster)\s+([\d,\s]+)")


def entry_directives(header: str) -> dict[str, tuple[int, ...]]:
    """The performance directives of a function header's text (__launch_bounds__ is .maxntid and .minnctapersm)."""
    return {d.group(1): tuple(int(x) for x in d.group(2).replace(",", " ").split())
            for d in _DIRECTIVE_RE.finditer(header)}


def launch_bounds(ptx: str, entry: str) -> tuple[int, int]:
    """(most threads a block may have, fewest blocks an SM should hold) that an entry's __launch_bounds__ ask
    for in the PTX; 0 where it asks nothing."""
    d = directives_of(ptx, entry)
    threads = d.get("maxntid") or d.get("reqntid") or ()
    return (math.prod(threads) if threads else 0), (d.get("minnctapersm") or (0,))[0]

def directives_of(ptx: str, entry: str) -> dict[str, tuple[int, ...]]:
    """The performance directives of the entry `entry` in the PTX text."""
    m = re.search(rf"\.entry\s+{re.escape(entry)}\s*\([^)]*\)([^{{]*)\{{", ptx, re.S)
    return entry_directives(m.group(1)) if m else {}


def cluster_problem(grid: tuple[int, int, int], dims: tuple[int, ...] | None) -> str | None:
    """Why the driver refuses `grid` for a kernel declared with __cluster_dims__ `dims` (.reqnctapercluster): a
    grid of whole clusters only; None where it does not."""
    if not dims:
        return None
    dims = tuple(dims) + (1,) * (3 - len(dims))
    if all(g % c == 0 for g, c in zip(grid, dims)):
        return None
    return (f"grid {tuple(grid)} is not a whole number of the kernel's clusters of {dims} blocks (__cluster_dims__: "
            f"the GPU refuses it, cudaErrorInvalidValue): give a grid that is a multiple of {dims} in each dimension")


@dataclass(frozen=True)
class Operand:
    """One instruction operand.

    kind: 'reg' (name), 'imm' (int value), 'fimm' (float bits, `value`, width in `size`),
    'sym' (name: a variable, label or function), 'sreg' (special register like %tid.x),
    'vec' (items: tuple of Operands), 'not' (items: the negated predicate register),
    'mem' (base: Operand or None, offset: int),
    'sink' (`_`).
    """

    kind: str
    name: str = ""
    value: int = 0
    size: int = 0
    items: tuple["Operand", ...] = ()
    base: "Operand | None" = None
    offset: int = 0

    def __str__(self) -> str:
        if self.kind in ("reg", "sym", "sreg"):
            return self.name
        if self.kind == "imm":
            return str(self.value)
        if self.kind == "fimm":
            return f"0{'f' if self.size == 4 else 'd'}{self.value:0{self.size * 2}X}"
        if self.kind == "vec":
            return "{" + ", ".join(map(str, self.items)) + "}"
        if self.kind == "not":
            return "!" + str(self.items[0])
        if self.kind == "mem":
            inner = str(self.base) if self.base is not None else ""
            if self.offset or self.base is None:
                inner += (f"+{self.offset}" if self.base is not None else str(self.offset))
            return f"[{inner}]"
        return "_"


@dataclass
class Instruction:
    opcode: str  # full opcode text, e.g. "ld.global.v4.f32"
    base: str  # "ld"
    mods: tuple[str, ...]  # every dotted part after the base that is not a type, in order
    types: tuple[str, ...]  # type parts in order, e.g. ("s64", "s32") for cvt.s64.s32
    operands: tuple[Operand, ...]
    guard: str | None = None  # predicate register name
    guard_neg: bool = False
    dest_pred: str | None = None  # second destination `d|p` (setp, shfl)
    file: str = ""
    line: int = 0
    text: str = ""
    label: str | None = None  # set for pseudo-instructions that only mark a label
    scope: int = 0  # the `{ }` scope it stands in (0: the function's own): a call's `param0` is its scope's
    unread: str = ""  # why its operands could not be read (decode refuses it; the rest of the module still parses)
    inlined_at: tuple | None = None  # (file, line) of the outermost call the code was inlined into (a file index
    # while parsing, its name after)

    @property
    def type(self) -> str:
        return self.types[-1] if self.types else ""

    def has(self, *mods: str) -> bool:
        return any(m in self.mods for m in mods)

    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else "<no .loc>"


@dataclass
class Param:
    name: str
    type: str
    size: int
    align: int
    offset: int = 0  # byte offset in the parameter buffer


@dataclass
class VarDecl:
    """A `.global`, `.const`, `.shared` or `.local` variable."""

    space: str
    name: str
    type: str
    size: int  # bytes; 0 for `extern .shared x[]`
    align: int
    init: bytes | None = None
    extern: bool = False


@dataclass
class Function:
    name: str
    entry: bool
    params: list[Param]
    regs: dict[str, str]  # register name -> type
    locals: list[VarDecl]
    shared: list[VarDecl]
    body: list[Instruction]  # instructions only; labels map into it
    labels: dict[str, int]  # label -> index of the next instruction
    directives: dict[str, tuple[int, ...]] = field(default_factory=dict)  # .maxntid, .reqntid, ...
    rets: list[Param] = field(default_factory=list)  # a .func's return parameters
    linkage: Any = None  # cudasim.calls.Linkage: an entry linked with the functions it calls (None: no calls)

    @property
    def param_bytes(self) -> int:
        return max((p.offset + p.size for p in self.params), default=0)


@dataclass
class Module:
    version: str
    target: str
    address_size: int
    functions: dict[str, Function]
    globals: list[VarDecl]  # .global and .const module variables
    shared: list[VarDecl]  # module-level .shared, including `.extern .shared`
    files: dict[int, str]
    declared: dict[str, tuple[list[Param], list[Param]]] = field(default_factory=dict)  # prototypes: (params, rets)

    def function(self, name: str) -> Function:
        try:
            return self.functions[name]
        except KeyError:
            entries = ", ".join(n for n, f in self.functions.items() if f.entry)
            raise KeyError(f"no function {name!r} in the PTX; entries are: {entries}") from None


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_TOKEN_TYPES = set(TYPES)


def _strip_comments(text: str) -> str:
    return _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def parse(text: str) -> Module:
    """Parse a whole PTX module (alias of parse_module)."""
    return parse_module(text)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.files: dict[int, str] = {}

    # -- low-level scanning -------------------------------------------------------------
    def _lineno(self) -> int:
        return self.text.count("\n", 0, self.pos) + 1

    def error(self, msg: str) -> PtxParseError:
        return PtxParseError(f"PTX line {self._lineno()}: {msg}")

    def _skip_ws(self) -> None:
        n = len(self.text)
        while self.pos < n and self.text[self.pos].isspace():
            self.pos += 1

    def _statement(self) -> str:
        """Text up to the next ';' at brace depth 0, consumed with the ';'."""
        depth = 0
        start = self.pos
        t = self.text
        for i in range(self.pos, len(t)):
            c = t[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == ";" and depth == 0:
                self.pos = i + 1
                return t[start:i].strip()
        raise self.error("statement without ';'")

    def _skip_block(self) -> None:
        """Skip a `{ ... }` block (sections such as .debug_str)."""
        self._skip_ws()
        if self.text[self.pos] != "{":
            return
        depth = 0
        for i in range(self.pos, len(self.text)):
            if self.text[i] == "{":
                depth += 1
            elif self.text[i] == "}":
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return
        raise self.error("unterminated block")

    # -- module level ------------------------------------------------------------------
    def module(self) -> Module:
        version, target, asize = "", "", 64
        functions: dict[str, Function] = {}
        globals_: list[VarDecl] = []
        shared: list[VarDecl] = []
        self.declared: dict[str, tuple[list[Param], list[Param]]] = {}
        t = self.text
        while True:
            self._skip_ws()
            if self.pos >= len(t):
                break
            if t.startswith(".version", self.pos):
                version = self._statement_line().split()[1]
            elif t.startswith(".target", self.pos):
                target = self._statement_line().split(None, 1)[1].strip()
            elif t.startswith(".address_size", self.pos):
                asize = int(self._statement_line().split()[1])
            elif t.startswith(".file", self.pos):
                self._file(self._statement_line())
            elif t.startswith(".section", self.pos):
                self._statement_line()
                self._skip_block()
            else:
                head = t[self.pos:self.pos + 400]
                if re.match(r"(\.(visible|weak|extern)\s+)*\.(entry|func)\b", head):
                    fn = self._function()
                    if fn is not None:
                        functions[fn.name] = fn
                else:
                    decl = self._var_decl(self._statement())
                    (shared if decl.space == "shared" else globals_).append(decl)
        return Module(version, target, asize, functions, globals_, shared, self.files, self.declared)

    def _statement_line(self) -> str:
        """A directive that ends at the end of its line (no ';')."""
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        s = self.text[self.pos:end].strip()
        self.pos = end
        return s.rstrip(";")

    def _file(self, s: str) -> None:
        m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"', s)
        if not m:
            raise self.error(f"cannot read {s!r}")
        self.files[int(m.group(1))] = m.group(2)

    _DECL = re.compile(
        r"^(?P<pre>(?:\.(?:visible|extern|weak|global|const|shared|local|align\s+\d+|ptr|v2|v4|"
        r"b8|u8|s8|b16|u16|s16|f16|bf16|b32|u32|s32|f32|f16x2|b64|u64|s64|f64)\s*)+)"
        r"(?P<name>[%$\w.]+)(?:\s*\[(?P<n>\d*)\])?(?:\s*=\s*(?P<init>.*))?$", re.S)

    def _var_decl(self, stmt: str) -> VarDecl:
        m = self._DECL.match(stmt)
        if not m:
            raise self.error(f"unsupported module-level statement: {stmt[:80]!r}")
        pre = m.group("pre").split()
        words = [w.lstrip(".") for w in pre]
        space = next((w for w in words if w in ("global", "const", "shared", "local")), None)
        if space is None:
            raise self.error(f"declaration without a state space: {stmt[:80]!r}")
        align = 0
        if "align" in words:
            align = int(words[words.index("align") + 1])
        vec = 4 if "v4" in words else 2 if "v2" in words else 1
        typ = next((w for w in words if w in TYPES), "b8")
        esize = TYPES[typ][1] * vec
        count = m.group("n")
        n = 1 if count is None else (int(count) if count else 0)
        size = esize * n
        init = None
        if m.group("init"):
            init = _initializer(m.group("init"), typ, size)
        return VarDecl(space, m.group("name"), typ, size, align or esize, init, extern="extern" in words)

    # -- functions ---------------------------------------------------------------------
    def _function(self) -> Function | None:
        t = self.text
        start = self.pos
        brace = t.find("{", start)
        semi = t.find(";", start)
        prototype = semi >= 0 and (brace < 0 or semi < brace)  # .extern .func ...; or a forward declaration
        header = t[start:semi if prototype else brace]
        self.pos = semi + 1 if prototype else brace
        m = re.match(r"((?:\.\w+\s+)*)\.(entry|func)\s*(?:\((?P<ret>[^)]*)\)\s*)?(?P<name>[\w$]+)\s*"
                     r"(?:\((?P<params>[^)]*)\))?(?P<rest>.*)$", header.strip(), re.S)
        if not m:
            raise self.error(f"cannot read function header {header[:80]!r}")
        params = _params(m.group("params") or "")
        rets = _params(m.group("ret") or "")
        if prototype:
            self.declared[m.group("name")] = (params, rets)
            return None
        directives = entry_directives(m.group("rest"))
        fn = Function(m.group("name"), m.group(2) == "entry", params, {}, [], [], [], {}, directives, rets)
        self._body(fn)
        return fn

    def _body(self, fn: Function) -> None:
        self._statements(fn)
        for ins in fn.body:  # the carry flag made explicit: a second destination where written, a last source where read
            if ins.base in CARRY_OPS or (ins.base in ("add", "sub", "mad") and "cc" in ins.mods):
                fn.regs[CC] = "u32"
                if "cc" in ins.mods:
                    ins.dest_pred = CC
                if ins.base in CARRY_OPS:
                    ins.operands += (Operand("reg", name=CC),)

    def _statements(self, fn: Function) -> None:
        t = self.text
        assert t[self.pos] == "{"
        self.pos += 1
        depth = 1
        loc: tuple = ("", 0)
        main_file: int | None = None
        callers: dict[tuple[int, int], tuple[int, int]] = {}  # (file, line) -> where it was inlined
        scopes, opened = [0], 0  # the scope each instruction stands in: a call's parameter names are its scope's
        shadows: list[dict[str, str]] = [{}]  # per open scope: registers it redeclares -> their own names
        while True:
            self._skip_ws()
            if self.pos >= len(t):
                raise self.error(f"function {fn.name} has no closing brace")
            c = t[self.pos]
            if c == "{":  # a nested scope: its registers join the function's, renamed where they shadow one
                depth += 1
                opened += 1
                scopes.append(opened)
                shadows.append({})
                self.pos += 1
                continue
            if c == "}":
                depth -= 1
                scopes.pop()
                shadows.pop()
                self.pos += 1
                if depth == 0:
                    return
                continue
            lm = re.compile(r"([$\w]+):").match(t, self.pos)
            if lm:
                fn.labels[lm.group(1)] = len(fn.body)
                self.pos = lm.end()
                continue
            if t.startswith(".loc", self.pos) and t[self.pos + 4].isspace():
                s = self._statement_line()
                parts = re.match(r"\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)$", s)
                if not parts:
                    raise self.error(f"cannot read {s!r}")
                fidx, line = int(parts.group(1)), int(parts.group(2))
                if main_file is None:
                    main_file = fidx
                inl = re.search(r"inlined_at\s+(\d+)\s+(\d+)", parts.group(3))
                here = (int(inl.group(1)), int(inl.group(2))) if inl else None
                if here:  # the call this code was inlined into, followed out to the outermost one
                    callers[(fidx, line)] = here
                    seen = {here}
                    while here in callers and callers[here] not in seen:
                        here = callers[here]
                        seen.add(here)
                if here and fidx != main_file:  # code from a header: point at the user's line
                    fidx, line = here
                loc = (fidx, line, here)
                continue
            if t.startswith(".pragma", self.pos):
                self._statement()
                continue
            stmt = self._statement()
            if stmt.startswith(".reg"):
                declared: dict[str, str] = {}
                _reg_decl(stmt, declared, self)
                for name, typ in declared.items():
                    if len(scopes) > 1 and name in fn.regs:  # the math library's inline asm redeclares %r1...
                        shadows[-1][name] = f"{name}{{{scopes[-1]}}}"
                    fn.regs[shadows[-1].get(name, name)] = typ
            elif stmt.startswith((".local", ".shared", ".global", ".const")):
                d = self._var_decl(stmt)
                (fn.shared if d.space == "shared" else fn.locals).append(d)
            elif stmt.startswith((".param", ".callprototype")):
                continue  # a call's parameters (named by position in the call) and indirect calls' prototypes
            elif stmt.startswith("."):
                raise self.error(f"unsupported directive in {fn.name}: {stmt[:60]!r}")
            else:
                try:
                    ins = _instruction(stmt, self)
                except PtxParseError as e:  # an instruction form the parser does not know stops only what runs it
                    text = " ".join(stmt.split())
                    op = text.split()[1 if text.startswith("@") else 0]
                    parts = op.split(".")
                    ins = Instruction(op, parts[0], tuple(x for x in parts[1:] if x not in _TOKEN_TYPES),
                                      tuple(x for x in parts[1:] if x in _TOKEN_TYPES), (), text=text,
                                      unread=str(e).split(": ", 1)[-1])
                if len(shadows) > 1 and any(shadows):  # `f` as well as `%f`: asm names registers without a %
                    here = {k: v for d in shadows for k, v in d.items()}
                    ins = renamed(ins, here, here)
                ins.file, ins.line = (loc[0], loc[1]) if loc[1] else ("", 0)
                if len(loc) > 2 and loc[2]:
                    ins.inlined_at = loc[2]
                ins.scope = scopes[-1]
                fn.body.append(ins)

    def resolve_files(self, mod: Module) -> None:
        """File indices to names; code the toolkit's own headers hold (NVRTC's builtin header, cuda_fp16.h,
        ...) is placed at the user's line it was inlined into, where the PTX says so."""
        for fn in mod.functions.values():
            for ins in fn.body:
                if isinstance(ins.file, int):
                    name = mod.files.get(ins.file, str(ins.file))
                    site = (mod.files.get(ins.inlined_at[0], name), ins.inlined_at[1]) if ins.inlined_at else None
                    if site and _toolkit_header(name):
                        (ins.file, ins.line), ins.inlined_at = site, None
                    else:
                        ins.file, ins.inlined_at = name, site


def _toolkit_header(path: str) -> bool:
    return "__nv_" in path or "/cuda/include/" in path or "/nvidia/cu" in path or path.endswith(("_fp16.hpp", "_bf16.hpp"))


def renamed(ins: Instruction, regs: dict[str, str], syms: dict[str, str]) -> Instruction:
    """`ins` with its registers and symbols renamed (names not in the maps are kept)."""
    def op(o: Operand) -> Operand:
        if o.kind == "reg":
            return replace(o, name=regs.get(o.name, o.name))
        if o.kind == "sym":
            return replace(o, name=syms.get(o.name, o.name))
        if o.kind in ("vec", "not"):
            return replace(o, items=tuple(op(x) for x in o.items))
        if o.kind == "mem" and o.base is not None:
            return replace(o, base=op(o.base))
        return o
    if not regs and not syms:
        return ins
    return replace(ins, operands=tuple(op(o) for o in ins.operands),
                   guard=regs.get(ins.guard, ins.guard) if ins.guard else None,
                   dest_pred=regs.get(ins.dest_pred, ins.dest_pred) if ins.dest_pred else None)


def _params(text: str) -> list[Param]:
    params = []
    offset = 0
    for chunk in [c.strip() for c in text.split(",") if c.strip()]:
        m = re.match(r"\.param\s+((?:\.\w+\s+)*?)(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([\w$]+)(?:\[(\d+)\])?", chunk)
        if not m:
            raise PtxParseError(f"cannot read parameter {chunk!r}")
        typ = m.group(3)
        if typ not in TYPES:
            raise PtxParseError(f"unknown parameter type in {chunk!r}")
        esize = TYPES[typ][1]
        size = esize * (int(m.group(5)) if m.group(5) else 1)
        align = int(m.group(2)) if m.group(2) else esize
        offset = (offset + align - 1) // align * align
        params.append(Param(m.group(4), typ, size, align, offset))
        offset += size
    return params


def _reg_decl(stmt: str, regs: dict[str, str], p: _Parser) -> None:
    m = re.match(r"\.reg\s*(?:\.v[24]\s*)?\.(\w+)\s+(.*)$", stmt, re.S)  # `.reg.b16 hl` too (cuda_fp16.h's asm)
    if not m or m.group(1) not in TYPES:
        raise p.error(f"cannot read register declaration {stmt!r}")
    typ = m.group(1)
    for item in m.group(2).split(","):
        item = item.strip()
        r = re.match(r"([%\w$]+)<(\d+)>$", item)
        if r:
            for i in range(int(r.group(2))):
                regs[f"{r.group(1)}{i}"] = typ
        else:
            regs[item] = typ


def _initializer(text: str, typ: str, size: int) -> bytes:
    import numpy as np

    vals = [v.strip() for v in text.strip().strip("{}").replace("{", " ").replace("}", " ").split(",") if v.strip()]
    dt = np.dtype(TYPES[typ][0] if typ != "bf16" else "uint16")
    out = bytearray(size)
    esize = dt.itemsize
    for i, v in enumerate(vals):
        if re.match(r"0[fF][0-9a-fA-F]{8}$", v):
            b = int(v[2:], 16).to_bytes(4, "little")
        elif re.match(r"0[dD][0-9a-fA-F]{16}$", v):
            b = int(v[2:], 16).to_bytes(8, "little")
        elif dt.kind == "f":
            b = np.array(float(v), dt).tobytes()
        else:
            iv = _int(v)
            if iv is None:  # generic(symbol) and friends: pointers into other variables
                raise PtxParseError(f"unsupported initializer element {v!r}")
            b = (iv & ((1 << (8 * esize)) - 1)).to_bytes(esize, "little")
        out[i * esize:(i + 1) * esize] = b[:esize]
    return bytes(out)


def _int(s: str) -> int | None:
    s = s.strip()
    m = re.match(r"^(-?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)[uU]?$", s)
    if not m:
        return None
    body = m.group(2)
    if body.lower().startswith("0x"):
        v = int(body, 16)
    elif body.startswith("0") and len(body) > 1:
        v = int(body, 8)
    else:
        v = int(body)
    return -v if m.group(1) else v


_SREG = re.compile(r"^%(tid|ntid|ctaid|nctaid)\.[xyz]$|^%(laneid|warpid|nwarpid|smid|nsmid|gridid|clock|clock64|"
                   r"lanemask_eq|lanemask_le|lanemask_lt|lanemask_ge|lanemask_gt|globaltimer|globaltimer_lo|"
                   r"globaltimer_hi|dynamic_smem_size|total_smem_size|clusterid\.[xyz]|nclusterid\.[xyz]|"
                   r"cluster_ctaid\.[xyz]|cluster_nctaid\.[xyz]|cluster_ctarank|cluster_nctarank|is_explicit_cluster)$")


def _operand(text: str, p: _Parser) -> Operand:
    s = text.strip()
    if not s:
        raise p.error("empty operand")
    if s == "_":
        return Operand("sink")
    if s.startswith("{"):
        if not s.endswith("}"):
            raise p.error(f"bad vector operand {s!r}")
        return Operand("vec", items=tuple(_operand(x, p) for x in s[1:-1].split(",")))
    if s.startswith("["):
        inner = s[1:-1].strip()
        m = re.match(r"^([%$\w.]+)?\s*(?:\+\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+)))?$", inner)
        if not m:
            iv = _int(inner)
            if iv is None:
                raise p.error(f"bad address operand {s!r}")
            return Operand("mem", offset=iv)
        base_txt, off_txt = m.group(1), m.group(2)
        if base_txt and _int(base_txt) is not None and off_txt is None:
            return Operand("mem", offset=_int(base_txt))
        base = _operand(base_txt, p) if base_txt else None
        return Operand("mem", base=base, offset=_int(off_txt.replace(" ", "")) if off_txt else 0)
    if re.match(r"^0[fF][0-9a-fA-F]{8}$", s):
        return Operand("fimm", value=int(s[2:], 16), size=4)
    if re.match(r"^0[dD][0-9a-fA-F]{16}$", s):
        return Operand("fimm", value=int(s[2:], 16), size=8)
    iv = _int(s)
    if iv is not None:
        return Operand("imm", value=iv)
    if s == "WARP_SZ":  # PTX's one predefined constant: the threads of a warp (cuda_fp16.hpp's half2 shuffles use it)
        return Operand("imm", value=32)
    if s.startswith("%"):
        if _SREG.match(s) or re.match(r"^%(envreg\d+|pm\d+)$", s):
            return Operand("sreg", name=s)
        return Operand("reg", name=s)
    if s.startswith("!"):  # a negated predicate source: `vote.sync.any.pred d, !%p, mask`
        inner = _operand(s[1:], p)
        if inner.kind != "reg":
            raise p.error(f"bad negated operand {s!r}")
        return Operand("not", items=(inner,))
    if re.match(r"^[\w$.]+$", s):
        return Operand("sym", name=s)
    raise p.error(f"cannot read operand {s!r}")


def _split_operands(s: str) -> list[str]:
    out, depth, cur = [], 0, []
    for c in s:
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


_CALL = re.compile(r"^(?:\((?P<rets>[^)]*)\)\s*,\s*)?(?P<target>[%\w$.]+)\s*(?:,\s*\((?P<args>[^)]*)\))?"
                   r"\s*(?:,\s*(?P<proto>[\w$]+))?$")


def _call_operands(rest: str, p: _Parser) -> tuple[Operand, ...]:
    """`call (r0), f, (a0, a1);` -> (target, vec of arguments, vec of return parameters[, prototype]):
    a symbol for a direct call, a register for an indirect one (through a function pointer)."""
    m = _CALL.match(rest.strip())
    if not m:
        raise p.error(f"cannot read call operands {rest!r}")

    def names(txt: str | None) -> Operand:
        return Operand("vec", items=tuple(Operand("sym", name=x.strip()) for x in (txt or "").split(",") if x.strip()))
    out = (_operand(m.group("target"), p), names(m.group("args")), names(m.group("rets")))
    return out + ((Operand("sym", name=m.group("proto")),) if m.group("proto") else ())


def _instruction(stmt: str, p: _Parser) -> Instruction:
    text = " ".join(stmt.split())
    s = text
    guard, neg = None, False
    if s.startswith("@"):
        m = re.match(r"@(!?)(%[\w$]+)\s+(.*)$", s)
        if not m:
            raise p.error(f"bad guard in {text!r}")
        neg, guard, s = bool(m.group(1)), m.group(2), m.group(3)
    parts = s.split(None, 1)
    opcode = parts[0]
    rest = parts[1] if len(parts) > 1 else ""
    pieces = opcode.split(".")
    base = pieces[0]
    mods, types = [], []
    for x in pieces[1:]:
        (types if x in _TOKEN_TYPES else mods).append(x)
    if base == "call":
        return Instruction(opcode, base, tuple(mods), tuple(types), _call_operands(rest, p), guard, neg, text=text)
    ops_txt = _split_operands(rest)
    dest_pred = None
    if ops_txt and "|" in ops_txt[0] and not ops_txt[0].strip().startswith("{"):
        d, q = ops_txt[0].split("|")
        ops_txt[0] = d
        dest_pred = q.strip()
    operands = tuple(_operand(o, p) for o in ops_txt)
    return Instruction(opcode, base, tuple(mods), tuple(types), operands, guard, neg, dest_pred, text=text)


def parse_module(text: str) -> Module:
    """Parse PTX text and resolve `.loc` file indices to file names."""
    p = _Parser(_strip_comments(text))
    mod = p.module()
    p.resolve_files(mod)
    return mod
