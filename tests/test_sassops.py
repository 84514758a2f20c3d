"""SASS instructions as the SM simulation sees them: pipe, kind of access, registers, and the
opcodes the table lacks reported rather than guessed silently."""
import pytest

from analysis import sassops, smsim
from analysis.sass import SassInstruction


def ins(op: str, mods: tuple = (), operands: str = "") -> SassInstruction:
    return SassInstruction(0, op, mods, "", operands, "k.cu", 1)


@pytest.mark.parametrize("op,mods,pipe,kind", [
    ("FFMA", (), "fma", smsim.NORMAL), ("IMAD", ("WIDE",), "imad", smsim.NORMAL), ("DFMA", (), "fp64", smsim.NORMAL),
    ("MUFU", ("EX2",), "xu", smsim.NORMAL), ("HMMA", ("1688", "F32", "TF32"), "hmma", smsim.NORMAL),
    ("LDS", (), "shared", smsim.SHARED), ("STS", (), "shared", smsim.STORE), ("ATOMS", ("ADD",), "shared", smsim.ATOMIC),
    ("LDG", ("E", "128"), "global", smsim.LOAD), ("STG", ("E",), "global", smsim.STORE), ("BAR", ("SYNC",), "barrier",
                                                                                          smsim.BARRIER),
    ("IADD3", (), "alu", smsim.NORMAL), ("S2R", (), "sreg", smsim.NORMAL), ("LDC", (), "const", smsim.NORMAL),
])
def test_pipes_and_kinds(op, mods, pipe, kind):
    x = ins(op, mods)
    assert sassops.pipe_of(x) == pipe and sassops.kind_of(x, pipe) == kind


def test_registers_read_and_written_with_their_widths():
    assert sassops.registers(ins("FFMA", (), "R4, R2, R3, R4")) == ((4,), (2, 3, 4))
    dst, src = sassops.registers(ins("LDG", ("E", "128"), "R4, desc[UR4][R2.64]"))
    assert dst == (4, 5, 6, 7) and {2, 3} <= set(src)  # a 128-bit load writes four, its address is two
    assert sassops.registers(ins("DFMA", (), "R4, R2, R6, R4"))[0] == (4, 5)
    assert sassops.registers(ins("STG", ("E",), "desc[UR4][R2.64], R5"))[0] == ()


def test_unknown_opcodes_are_reported():
    listing = [ins("FFMA"), ins("LDGSTS", ("E",)), ins("LDGSTS"), ins("IADD3")]
    assert sassops.unknown(listing) == {"LDGSTS": 2}
    assert sassops.pipe_of(ins("LDGSTS")) == "alu"  # timed by the default, and said so


def test_every_opcode_of_the_catalog_and_corpus_is_in_the_table():
    from needs import need_nvrtc
    need_nvrtc()
    from analysis import pipeline, sass
    from corpus import compare
    from corpus.sets import load_set
    from kernels import catalog
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    launches = [pipeline.resolve_catalog(k.name, k.sim_size) for k in catalog.KERNELS if k.kind == "kernel"]
    launches += [compare.resolve(k) for k in load_set("corpus").CORPUS]
    odd = {}
    for launch in launches:
        c = pipeline.compile_launch(launch)
        lst = sass.kernel_listing(launch.source, list(launch.options), launch.filename, launch.kernel, c.entry,
                                  launch.gpu.arch)
        odd.update({f"{launch.kernel}:{op}": n for op, n in sassops.unknown(lst.instructions).items()})
    assert not odd
