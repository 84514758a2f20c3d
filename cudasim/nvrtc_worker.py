"""One NVRTC compile in a process of its own: JSON request on stdin, JSON result on stdout.

Why a process: NVRTC's output depends on where its heap objects land (see noaslr.py), so
cudasim.compile runs this script through noaslr with a fixed environment, and only the
standard library is imported here (the script runs under `python -S`), so that nothing but the
request decides the allocations before NVRTC's. NVRTC is called through ctypes, by the paths
the parent found.

Request: {"lib": libnvrtc path, "preload": [libnvrtc-builtins path], "source", "filename",
"exprs": [name expressions], "options": [flags]}. Result: {"ok", "log", "ptx", "cubin" (base64),
"lowered": {expression: mangled name}}, or {"ok": false, "log"} where it does not compile.
"""
import base64
import ctypes
import json
import sys


def _text(lib, prog, size_fn: str, get_fn: str) -> bytes:
    n = ctypes.c_size_t()
    _ok(getattr(lib, size_fn)(prog, ctypes.byref(n)), size_fn)
    buf = ctypes.create_string_buffer(n.value)
    _ok(getattr(lib, get_fn)(prog, buf), get_fn)
    return buf.raw[:n.value]


def _ok(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"NVRTC call {what} failed with status {status}")


def compile_request(req: dict) -> dict:
    """The compile `req` asks for, as the JSON-ready result."""
    for dep in req.get("preload", []):  # NVRTC dlopens its builtins by name: loaded first, by path
        ctypes.CDLL(dep, mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(req["lib"])
    lib.nvrtcGetLoweredName.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    prog = ctypes.c_void_p()
    _ok(lib.nvrtcCreateProgram(ctypes.byref(prog), req["source"].encode(), req["filename"].encode(), 0, None, None),
        "nvrtcCreateProgram")
    try:
        for e in req["exprs"]:
            _ok(lib.nvrtcAddNameExpression(prog, e.encode()), "nvrtcAddNameExpression")
        opts = [o.encode() for o in req["options"]]
        status = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        log = _text(lib, prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog").replace(b"\0", b"").decode(errors="replace")
        if status != 0:
            return {"ok": False, "log": log}
        lowered = {}
        for e in req["exprs"]:
            name = ctypes.c_char_p()
            _ok(lib.nvrtcGetLoweredName(prog, e.encode(), ctypes.byref(name)), "nvrtcGetLoweredName")
            lowered[e] = name.value.decode()
        ptx = _text(lib, prog, "nvrtcGetPTXSize", "nvrtcGetPTX").rstrip(b"\0").decode()
        cubin = _text(lib, prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")
        return {"ok": True, "log": log, "ptx": ptx, "cubin": base64.b64encode(cubin).decode(), "lowered": lowered}
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


if __name__ == "__main__":
    sys.stdout.write(json.dumps(compile_request(json.loads(sys.stdin.buffer.read()))))
