"""Run a compiler with address-space randomization off, in a fixed environment, so its output repeats.

Why: NVRTC (and nvcc's cicc) order some optimizations by the addresses of their own heap
objects, so the same source gave `sgemm_warptiling` 112, 114 or 121 registers (and three
different PTX files) from one process to the next. With the address space laid out the same
way every time (Linux's ADDR_NO_RANDOMIZE personality, what `setarch -R` sets) and the same
environment, working directory and arguments, the compiler's allocations land at the same
addresses and it makes the same code.

`python noaslr.py PROGRAM ARGS...` sets the personality and execs PROGRAM (the flag holds from
the exec on). It imports only the standard library, so it runs under `python -S`. Where the
personality cannot be set (a seccomp policy, not Linux) it says so on stderr in one line that
starts with MARKER, and runs PROGRAM anyway.
"""
from __future__ import annotations

import os
import subprocess
import sys

ADDR_NO_RANDOMIZE = 0x0040000  # <linux/personality.h>
MARKER = "cudasim-noaslr:"


def _fix_layout() -> str:
    """Turn randomization off for the next exec; '' when done, else why not."""
    if not sys.platform.startswith("linux"):
        return f"no personality() on {sys.platform}"
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    persona = libc.personality(0xFFFFFFFF)
    if persona == -1:
        return f"personality() failed: {os.strerror(ctypes.get_errno())}"
    if persona & ADDR_NO_RANDOMIZE:
        return ""
    if libc.personality(persona | ADDR_NO_RANDOMIZE) == -1 or not libc.personality(0xFFFFFFFF) & ADDR_NO_RANDOMIZE:
        return f"personality(ADDR_NO_RANDOMIZE) refused: {os.strerror(ctypes.get_errno()) or 'no effect'}"
    return ""


def run(argv: list[str], env: dict[str, str], input: bytes | None = None, timeout: float | None = None,
        cwd: str = "/") -> tuple[subprocess.CompletedProcess, bool]:
    """Run `argv` with randomization off, in exactly `env` and `cwd`; (the finished process with
    the marker line taken out of its stderr, whether the layout was fixed)."""
    p = subprocess.run([sys.executable, "-S", "-s", os.path.abspath(__file__), *argv], input=input,
                       capture_output=True, env=env, cwd=cwd, timeout=timeout)
    err = p.stderr.decode(errors="replace").splitlines(keepends=True)
    kept = [line for line in err if not line.startswith(MARKER)]
    p.stderr = "".join(kept).encode()
    return p, len(kept) == len(err)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-") or not os.path.isfile(sys.argv[1]):
        print("error: cudasim.noaslr is cudasim.compile's helper, not a command: it runs PROGRAM (a path) with "
              "address-space randomization off, as `python noaslr.py /path/to/PROGRAM ARGS...`", file=sys.stderr)
        sys.exit(2)
    why = _fix_layout()
    if why:
        print(f"{MARKER} address-space randomization stays on ({why})", file=sys.stderr, flush=True)
    os.execv(sys.argv[1], sys.argv[1:])
