"""The opcode table: every row well formed, every opcode the catalog compiles to has one, and an
opcode without a row is refused at decode in one line; cudasim's modules import without cycles."""
import ast
import inspect
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from cudasim import SimulationError, SourceModule, UnsupportedInstruction
from cudasim import opcodes
from cudasim.opcodes import OPCODES, row_problems

PTX = r'''
.version 8.0
.target sm_90
.address_size 64

.file 1 "odd.cu"

.visible .entry odd(
    .param .u64 odd_param_0
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;

    .loc 1 2 0
    ld.param.u64 %rd1, [odd_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    .loc 1 3 0
    OPCODE
    st.global.u32 [%rd2], %r2;
    ret;
}
'''


def _run(line: str) -> np.ndarray:
    out = np.zeros(1, np.uint32)
    SourceModule.from_ptx(PTX.replace("OPCODE", line)).get_function("odd")(out, block=(1, 1, 1), grid=(1, 1))
    return out


def test_every_row_is_well_formed():
    assert len(OPCODES) == len(opcodes.ROWS)  # no name twice
    for name, row in OPCODES.items():
        assert row.name == name
        assert row_problems(row) == [], name
        if row.decode is not None:
            assert list(inspect.signature(row.decode).parameters) == ["ins", "pc", "ctx"], name


def test_a_malformed_row_is_refused_when_the_table_is_built():
    with pytest.raises(ValueError, match="fusable but not pure"):
        opcodes.Opcode("frob", opcodes.decode_nop, opcodes.ALU, fusable=True)
    with pytest.raises(ValueError, match="no decoder"):
        opcodes.Opcode("jump", None, opcodes.ALU, pure=True)
    with pytest.raises(ValueError, match="only they, are pure"):  # it would silently be a fence
        opcodes.Opcode("frob", opcodes.decode_nop, opcodes.ALU)


def test_every_opcode_nvrtc_emits_for_the_catalog_is_in_the_table():
    from kernels import catalog, sim

    seen: dict[str, str] = {}
    for name in catalog.names():
        for fn in sim.module(catalog.get(name)).module.functions.values():
            for ins in fn.body:
                seen.setdefault(ins.base, name)
    missing = {base: kernel for base, kernel in seen.items() if base not in OPCODES}
    assert not missing, f"opcodes with no row (first kernel using each): {missing}"
    refused = {base for base in seen if OPCODES[base].refused}
    assert refused <= {"trap", "call", "brx", "brkpt"}, refused


def test_an_opcode_missing_from_the_table_is_refused_at_decode_in_one_line():
    assert _run("mov.u32 %r2, %r1;")[0] == 0
    with pytest.raises(UnsupportedInstruction) as e:
        _run("frobnicate.b32 %r2, %r1;")
    msg = str(e.value)
    assert "\n" not in msg
    assert msg == ("unsupported PTX instruction `frobnicate.b32 %r2, %r1` at odd.cu:3; cudasim stops rather "
                   "than guess its result")


def test_removing_a_row_refuses_its_opcode(monkeypatch):
    assert _run("popc.b32 %r2, %r1;")[0] == 0
    monkeypatch.delitem(OPCODES, "popc")
    with pytest.raises(UnsupportedInstruction, match=r"^unsupported PTX instruction `popc.b32 %r2, %r1` at odd.cu:3;"):
        _run("popc.b32 %r2, %r1;")


def test_a_refused_row_refuses_only_when_it_runs():
    """A trap on a path no thread takes decodes; one that runs stops the launch, naming itself."""
    assert _run("setp.ne.u32 %p1, %r1, %r1;\n    @%p1 trap;\n    mov.u32 %r2, 7;")[0] == 7
    with pytest.raises(SimulationError, match=r"^the kernel executed `trap` at odd.cu:3 .*cudaErrorLaunchFailure"):
        _run("trap;")


def test_cudasim_modules_import_one_another_without_cycles():
    """Every import between cudasim's modules, at any depth of the file, drawn as a graph: no cycle."""
    root = Path(__import__("cudasim").__file__).parent
    g = nx.DiGraph()
    for path in root.glob("*.py"):
        mod = path.stem
        g.add_node(mod)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cudasim."):
                targets = [node.module.split(".")[1]]
            elif isinstance(node, ast.Import):
                targets = [a.name.split(".")[1] for a in node.names if a.name.startswith("cudasim.")]
            else:
                continue
            for t in targets:
                if (root / f"{t.split('.')[0]}.py").exists() and t.split(".")[0] != mod:
                    g.add_edge(mod, t.split(".")[0])
    g.remove_node("__init__")  # the package re-exports; its modules import their siblings directly
    assert list(nx.simple_cycles(g)) == []
