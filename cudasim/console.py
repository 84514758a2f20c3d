"""How every command of the project begins and ends, in one place.

Every `python -m` entry module ends with `console.run(main)`, which ends the process as a user
expects a command to end: the exit status `main` returns; on Ctrl-C one line, "interrupted", and
status 130 (128 + SIGINT, as a shell reports it); on exhausted memory one line naming what to
shrink, status 2; on a file that cannot be read or written one line naming it, status 2; quietly
where the reader of standard output went away (`| head`). Every parser
is a `Parser`, whose usage errors are one line naming the problem and `--help`, status 2, as every
other unusable input (`fail`). cudasim holds this because every package of the project imports it
(analysis, kernels and corpus reach it; it reaches none of them).
"""
from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Callable, NoReturn

INTERRUPTED = 130  # the status a shell gives a command that SIGINT ended
UNUSABLE = 2  # the status of every input a command cannot use

MEMORY_HINT = ("ask for less: fewer blocks (a smaller --grid or --size, no --all-blocks), buffers given their "
               "size (--arg NAME=DTYPE[COUNT]), or fewer kernels at a time")


def fail(msg: str) -> NoReturn:
    """One line on stderr, exit status 2: how every unusable input ends."""
    try:
        print(f"error: {msg}", file=sys.stderr, flush=True)
    except OSError:  # stderr itself cannot be written (a full disk): the status still says it
        pass
    raise SystemExit(UNUSABLE)


WORKERS = {  # scripts the project runs by path, in a process of their own; `python -m` of them is a mistake
    "cudasim.nvrtc_worker": "cudasim.nvrtc_worker is cudasim.compile's worker, not a command: it reads one JSON "
                            "compile request on stdin; compile with `python -m analysis.occupancy FILE.cu::KERNEL`"}


def refuse_library_module() -> None:
    """`python -m` given a module of this project that is no command (it has no `__main__` guard) would print
    nothing and exit 0: one line instead."""
    argv = list(getattr(sys, "orig_argv", ()))
    if "-m" not in argv[:-1]:
        return
    name = argv[argv.index("-m") + 1]
    if name in WORKERS:
        fail(WORKERS[name])
    path = Path(__file__).resolve().parent.parent.joinpath(*name.split("."))
    source = path.with_suffix(".py")
    if path.is_dir() or not source.is_file() or '__name__ == "__main__"' in source.read_text(errors="replace"):
        return  # a package (its __main__ runs), another project's module, or a command
    fail(f"{name} is a library module, not a command: the README lists the commands (`python -m analysis` lists "
         f"the models)")


def check_out(path: str, option: str = "--out", makes_folders: bool = False, json_beside: bool = False) -> None:
    """Fail (one line) before any work where a command could not write the file `path` once its work is done: a
    folder, a folder that does not exist (unless the command makes it, `makes_folders`), a file where a folder
    should be; for a command that writes Markdown there and the same as JSON beside it (`json_beside`), a .json
    name, which the JSON would overwrite."""
    if json_beside and os.path.splitext(path)[1] == ".json":
        fail(f"{option} {path}: the Markdown goes there and the JSON beside it, as .json: give a name ending in .md")
    if os.path.isdir(path):
        fail(f"{option} {path}: a folder; give a file to write, e.g. {os.path.join(path, 'out.md')}")
    parent = os.path.dirname(os.path.abspath(path))
    above = parent
    while not os.path.exists(above):
        above = os.path.dirname(above)
    if not os.path.isdir(above):
        fail(f"{option} {path}: {above} is a file, not a folder")
    if above != parent and not makes_folders:
        fail(f"{option} {path}: no folder {os.path.dirname(path) or '.'} to write it in")
    problem = unwritable(above)
    if problem:
        fail(f"{option} {path}: cannot write in {above} ({problem})")


def unwritable(folder: str) -> str | None:
    """Why no file can be made in `folder` (an existing folder), or None: a file made and dropped at once says it
    where permissions do not (root, a read-only mount, /proc)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return None
    except OSError as e:
        return e.strerror or str(e)


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line ('error: argument --size: invalid int value: 'abc'; see
    `python -m kernels.run --help``), not the usage block and a line: the same shape as every other
    unusable input."""

    def __init__(self, *args, description: str | None = None, **kw):
        """`description` may be a module's docstring: its first paragraph, as one line, is the help's."""
        if description:
            description = " ".join(description.strip().split("\n\n")[0].split())
        super().__init__(*args, description=description, **kw)

    def error(self, message: str) -> NoReturn:
        fail(f"{message}; see `{self.prog} --help`")

    def add_argument(self, *names, **kw):
        """An option that takes one value and is given twice is refused (argparse keeps the last, silently)."""
        if names and names[0].startswith("-") and kw.get("action", "store") == "store" and kw.get("nargs") is None:
            kw["action"] = _Once
        return super().add_argument(*names, **kw)


class _Once(argparse.Action):
    """argparse's store, refusing a second, different value in the same parse."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(self, "_given", None)
        if given is not None and given[0] is namespace and given[1] != values:
            parser.error(f"{option_string} given twice ({given[1]} and {values}); give it once")
        self._given = (namespace, values)
        setattr(namespace, self.dest, values)


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A command's warnings as one line on stderr (not the Python source line that raised them)."""
    print(f"warning: {message}", file=sys.stderr)


def run(main: Callable[..., int | None], *args: object, memory_hint: str = MEMORY_HINT) -> NoReturn:
    """Run a command's `main(*args)` and exit with its status, or with one line and 130 on Ctrl-C, one line
    and 2 on MemoryError (`memory_hint` says what to shrink), quietly on a closed pipe."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the command quietly
    if sys.stdout is None:  # started with standard output closed (`>&-`): the answer could go nowhere
        _last_words("error: standard output is closed, so the answer has nowhere to go: send it to a file "
                    "(> FILE) or to /dev/null")
        sys.exit(UNUSABLE)
    from .compile import cache_problem
    if (problem := cache_problem()) is not None:  # before any work: every command compiles or caches through it
        _last_words(f"error: {problem}")
        sys.exit(UNUSABLE)
    warnings.showwarning = _one_line_warning
    try:
        status = main(*args)
        sys.stdout.flush()  # what is still buffered fails here, not in the interpreter's exit, where it is a traceback
    except KeyboardInterrupt:
        _last_words("interrupted")
        sys.exit(INTERRUPTED)
    except MemoryError as e:
        what = f" ({e})" if str(e) else ""
        _last_words(f"error: out of memory{what[:160]}: {memory_hint}")
        sys.exit(UNUSABLE)
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(1)
    except OSError as e:  # a file named on the command line that cannot be read or written
        if e.filename is None and e.errno not in _FULL:
            raise
        if e.filename is None:  # the output itself (stdout to a full disk or /dev/full)
            _quiet_stdout()
            _last_words(f"error: cannot write the output: {e.strerror or e}; send it where there is room")
        else:
            _last_words(f"error: {e.filename}: {e.strerror or e}")
        sys.exit(UNUSABLE)
    sys.exit(status or 0)


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG}  # writing the output failed for want of room


def _last_words(line: str) -> None:
    """`line` on stderr on a line of its own (a progress display or partial output may have left the cursor
    mid-line), flushed; stdout flushed first so the line comes last."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        _quiet_stdout()
    if sys.stderr is None:  # closed too: the status says it
        return
    prefix = "\n" if sys.stderr.isatty() else ""
    try:
        print(f"{prefix}{line}", file=sys.stderr, flush=True)
    except OSError:  # stderr itself cannot be written: the status still says it
        pass


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit cannot fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
