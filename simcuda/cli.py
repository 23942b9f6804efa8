"""The ``simcuda`` command (console script ``simcuda = simcuda.cli:main``).

Subcommands:

* ``simcuda run [options] script.py [args...]``: run a CUDA Python program on the simulator, like
  ``python script.py args...``, then print a summary on stderr.
* ``simcuda demo``: a fork/join stream capture written against ``cuda.bindings.driver``, its graph
  and a replay.
* ``simcuda explain CODE``: what a ``CUresult`` / ``cudaError_t`` means (name or number).

``python -m simcuda`` is the same command (:mod:`simcuda.__main__`).
"""
from __future__ import annotations

import argparse
import os
import runpy
import shutil
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._core.facade import Driver

__all__ = ["main", "build_parser", "run_script"]

_RUN_HELP = """\
Run SCRIPT like `python SCRIPT ARGS...`, or -m MODULE like `python -m MODULE ARGS...` (sys.argv,
__main__, the script's folder first on sys.path, the same exit code) with cuda.bindings.driver/runtime/
nvrtc/_v2.driver and the legacy cuda.cuda / cuda.cudart / cuda.nvrtc replaced by simcuda's faces, on a
fresh simulated driver (--route native: NVIDIA's own cuda.bindings.driver and _v2.driver over the
simulated libcuda.so.1 instead). Then print a summary on stderr: captures begun and ended, each graph
with its node counts by type and its edge count, and graph launches. Options go before SCRIPT (or
-m MODULE); everything after SCRIPT or MODULE goes to the script (or module), options included.
"""

_RUN_EXAMPLES = """\
examples:
  simcuda run my_program.py --size 1024        run a program; --size goes to the program
  simcuda run --explain my_program.py          then list every failed call with its why
  simcuda run --dot pictures my_program.py     draw each graph (pictures/my_program_graph_1.dot)
  simcuda run --route native my_cuda_core_app.py
                                               cuda.core / numba-cuda programs: NVIDIA's own binding
                                               over the simulated libcuda.so.1 (docs/native.md)
  simcuda run --kernels twins.py -m pytest -p no:cacheprovider tests/
                                               a module, with all its own options
"""

_DEMO_HELP = """\
Capture the CUDA Programming Guide's fork/join example on the simulator: a stream capture that forks
work onto a second stream through an event and joins it back, then print the captured graph (its nodes,
its edges, its DOT picture) and replay it. Needs nothing installed besides simcuda; the program is
simcuda/_demo.py, written against cuda.bindings.driver as a user would write it.
"""

_MAIN_EXAMPLES = """\
examples:
  simcuda demo                           a fork/join capture, its graph and a replay
  simcuda run my_program.py              run a CUDA Python program on the simulator
  python -m simcuda run -m pytest tests  the same command, run as a module
  simcuda explain 904                    what CUDA_ERROR_STREAM_CAPTURE_UNJOINED means
"""



class Parser(argparse.ArgumentParser):
    """The ``simcuda`` command's parser: argparse's, knowing which options of ``run`` take a value."""

    run_value_options: frozenset[str] = frozenset()


def build_parser() -> Parser:
    """The argument parser of the ``simcuda`` command."""
    from . import __version__
    p = Parser(prog="simcuda", description="In-memory simulator of CUDA stream capture and graphs.",
               epilog=_MAIN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"simcuda {__version__}")
    sub = p.add_subparsers(dest="command", metavar="{run,demo,explain}")
    sub.required = True
    r = sub.add_parser("run", help="run a CUDA Python script on the simulator", description=_RUN_HELP,
                       epilog=_RUN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    value_options: set[str] = set()  # the options of ``run`` that take a value (read by _split_module)

    def add(*flags: str, **kwargs: Any) -> None:
        action = r.add_argument(*flags, **kwargs)
        if action.nargs != 0:
            value_options.update(action.option_strings)

    add("--dot", metavar="DIR",
        help="write each graph as Graphviz DOT into folder DIR (PROGRAM_graph_<id>.dot, PROGRAM the script's "
             "or module's name), and each capture whose end gave no graph (PROGRAM_capture_<id>_failed.dot:"
             " the node that broke the rule in red)")
    add("--png", action="store_true", help="with --dot, also render each picture as PNG with Graphviz's 'dot'")
    add("--explain", action="store_true",
        help="list the non-success results with the simulator's why: counts per entry and code, then "
             "the first ones in full (see --explain-limit)")
    add("--explain-limit", metavar="N", type=_count, default=_summary_limit(),
        help="with --explain, how many failed calls to show in full (default %(default)s; 0: all)")
    add("--per-thread", action="store_true",
        help="per-thread default stream mode (as CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1)")
    add("--kernel-bounds", choices=("strict", "gpu-like"), default=None,
        help="bounds of a PTX kernel's global accesses: strict (memcheck-like, an access past an "
             "allocation faults 700) or gpu-like (one inside a mapped page goes unnoticed); default: "
             "$SIMCUDA_KERNEL_BOUNDS, else strict (simcuda.Options.kernel_bounds, docs/kernels.md)")
    add("--kernels", metavar="FILE", action="append", default=[],
        help="a Python file that registers kernel implementations with simcuda.kernel(...); "
             "run before SCRIPT (may be repeated)")
    add("--route", choices=("python", "native", "auto"), default=None,
        help="how cuda.bindings.driver reaches the simulator: simcuda's Python faces (python), NVIDIA's "
             "own binding over the simulated libcuda.so.1 (native), or native where available (auto); "
             "default: $SIMCUDA_ROUTE, else auto")
    add("--devices", metavar="N", type=_device_count, default=1,
        help="simulate N devices (default 1), each a default simcuda.DeviceSpec: for peer access and "
             "peer copies")
    add("--quiet", "-q", action="store_true", help="do not print the summary")
    add("-m", dest="module", metavar="MODULE",
        help="run library module MODULE as a script (like python -m MODULE); the rest are its arguments")
    p.run_value_options = frozenset(value_options)
    r.add_argument("script", nargs="?", help="the Python script to run")
    r.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script (optional)")
    sub.add_parser("demo", help="capture the Programming Guide's fork/join graph and show it", description=_DEMO_HELP)
    e = sub.add_parser("explain", help="explain a CUresult or cudaError_t (name or number)")
    e.add_argument("code", help="e.g. 904, CUDA_ERROR_STREAM_CAPTURE_UNJOINED or cudaErrorStreamCaptureUnjoined")
    return p


def _summary_limit() -> int:
    """The default of ``--explain-limit`` (:data:`simcuda._summary.EXPLAIN_LIMIT`)."""
    from ._summary import EXPLAIN_LIMIT
    return EXPLAIN_LIMIT


def _at_least(minimum: int, what: str, bound: str) -> Callable[[str], int]:
    """An argparse type: a whole number of ``what`` (``--devices``, ``--explain-limit``), at least ``minimum``
    (``bound`` says so in the error); argparse reports anything else as a usage error."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what}") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"{bound}, got {n}")
        return n
    return parse


#: ``--explain-limit N`` (0: all) and ``--devices N`` (at least 1)
_count = _at_least(0, "calls", "the limit must be 0 (all) or more")
_device_count = _at_least(1, "devices", "the number of devices must be at least 1")


def _exit_code(e: SystemExit) -> int:
    """The process exit status Python gives for ``SystemExit(e.code)`` (printing a non-int message)."""
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if code >= 0 else code % 256
    print(code, file=sys.stderr)
    return 1


def _print_exception(exc: BaseException, script: str) -> None:
    """Print a traceback the way ``python script.py`` does (frames from the script on)."""
    tb = exc.__traceback__
    target = os.path.abspath(script)
    t = tb
    while t is not None and os.path.abspath(t.tb_frame.f_code.co_filename) != target:
        t = t.tb_next
    traceback.print_exception(type(exc), exc, t if t is not None else tb)


def run_script(script: str, args: Sequence[str] = (), *, kernels: Sequence[str] = (), per_thread: bool = False,
               driver: Driver | None = None, route: str | None = None, module: bool = False,
               devices: int = 1, kernel_bounds: str | None = None) -> tuple[int, Driver]:
    """Run ``script`` under :func:`simcuda.patch` on a fresh recording driver.

    Args:
        script: path of the Python file (with ``module=True``: the name of a module, run as ``python -m``
            runs it: ``sys.argv[0]`` its file, the current folder first on ``sys.path``).
        args: its command-line arguments (``sys.argv[1:]``).
        kernels: files run first (inside the patch) to register kernels with :func:`simcuda.kernel`.
        per_thread: per-thread default stream mode.
        driver: use this driver instead of a fresh one watched by a :class:`simcuda._summary.Recorder`.
        route: the patch's route (``"python"``, ``"native"``, ``"auto"``; None: :func:`simcuda._patch.route_of`'s
            default). On the native route the simulated ``libcuda.so.1`` stays loaded in this process.
        devices: the number of simulated devices of the fresh driver (each a default :class:`simcuda.DeviceSpec`);
            ignored with ``driver``.
        kernel_bounds: :attr:`simcuda.Options.kernel_bounds` of the fresh driver (``"strict"`` or ``"gpu-like"``;
            None: its default, ``$SIMCUDA_KERNEL_BOUNDS`` else strict); ignored with ``driver``.

    A Python the script starts (``subprocess``, ``multiprocessing`` spawn) starts on a simulated driver of its own
    with the same settings (:mod:`simcuda.inherit`).

    Returns:
        ``(exit code, driver)``: 0 on normal completion, the ``SystemExit`` status, 130 after an uncaught
        ``KeyboardInterrupt`` (Ctrl-C), or 1 after another uncaught exception (the traceback is printed on
        stderr, as Python does). With ``module=True``, a
        module that cannot be found is exit code 1 with Python's ``No module named`` message.
    """
    from . import _summary
    from ._core.config import DeviceSpec
    from ._core.facade import Options
    from ._patch import patch, route_of
    choices: dict[str, Any] = {"per_thread_default_stream": True} if per_thread else {}
    if kernel_bounds is not None:
        choices["kernel_bounds"] = kernel_bounds
    drv = driver if driver is not None else _summary.RecordingDriver(
        devices=[DeviceSpec() for _ in range(devices)], options=Options(**choices) if choices else None)
    old_argv, old_path = sys.argv[:], sys.path[:]
    script_dir = os.getcwd() if module else os.path.dirname(os.path.abspath(script))
    rc = 0
    from .inherit import exported, settings_of
    child = settings_of(route_of(route), len(drv.devices), drv.progression, kernel_bounds, kernels)
    try:
        with patch(driver=drv, route=route), exported(child):
            sys.argv = [script, *args]
            sys.path.insert(0, script_dir)
            try:
                for k in kernels:
                    runpy.run_path(k, run_name="simcuda_kernels")
                if module:
                    spec = _module_spec(script)
                    sys.argv[0] = spec.origin or script
                    runpy.run_module(script, run_name="__main__", alter_sys=True)
                else:
                    runpy.run_path(script, run_name="__main__")
            except SystemExit as e:
                rc = _exit_code(e)
            except KeyboardInterrupt as e:  # as python does: the traceback, then the status of SIGINT (128 + 2)
                _print_exception(e, script)
                rc = 130
            except BaseException as e:  # noqa: BLE001 - report like the interpreter, then carry on to the summary
                _print_exception(e, script)
                rc = 1
                if type(e).__name__ == "DynamicLibNotFoundError" and route_of(route) == "python":
                    print("simcuda run: the program reached NVIDIA's compiled layer, which looks for a real "
                          "libcuda.so.1 (cuda.core, numba-cuda and cuda.bindings' Cython API do): run it on the "
                          "native route, `simcuda run --route native` (or --route auto), where that layer runs on "
                          "the simulated driver (docs/native.md)", file=sys.stderr)
    finally:
        sys.argv[:] = old_argv
        sys.path[:] = old_path
    return rc, drv


def _module_spec(name: str) -> Any:
    """The import spec of module ``name`` as ``python -m`` finds it (a package: its ``__main__``).

    Raises ``SystemExit`` with Python's message when there is none.
    """
    import importlib.util
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as e:
        raise SystemExit(f"No module named {name!r} ({e})") from None
    if spec is None:
        raise SystemExit(f"No module named {name}")
    if spec.submodule_search_locations is not None:
        main = importlib.util.find_spec(name + ".__main__")
        if main is None:
            raise SystemExit(f"No module named {name}.__main__; {name!r} is a package and cannot be directly executed")
        return main
    return spec


def _dot_dir_problem(path: str) -> str | None:
    """Why DOT files cannot be written into folder ``path``, found by making it (if missing) and a scratch file
    in it, before the script runs; ``None`` when they can."""
    import tempfile
    if os.path.exists(path) and not os.path.isdir(path):
        return "a file of that name exists; --dot takes a folder (made if missing), where one file per graph goes"
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        return e.strerror or str(e)
    return None


def _route_of_run(ns: argparse.Namespace) -> tuple[str, str | None]:
    """``(route, None)`` for ``simcuda run``'s ``--route`` (or ``$SIMCUDA_ROUTE``), or ``("", why)`` when that
    route is malformed or not available here, or ``$SIMCUDA_KERNEL_BOUNDS`` is malformed (with no
    ``--kernel-bounds``): usage errors found before the script starts."""
    from ._patch import route_of
    try:
        route = route_of(ns.route)
        if route == "native":
            from .faces import native
            ok, why = native.available()
            if not ok:
                return "", f"the native route is not available here: {why}"
        if ns.kernel_bounds is None:
            from ._core.config import Options
            Options()
    except ValueError as e:
        return "", str(e)
    return route, None


def _cmd_run(ns: argparse.Namespace) -> int:
    from . import _summary
    if ns.module is not None:
        if ns.script is not None:
            ns.args = [ns.script, *ns.args]
        ns.script = ns.module
    elif not os.path.isfile(ns.script):
        print(f"simcuda run: can't open file {ns.script!r}: no such file", file=sys.stderr)
        return 2
    for k in ns.kernels:
        if not os.path.isfile(k):
            print(f"simcuda run: can't open kernels file {k!r}: no such file", file=sys.stderr)
            return 2
    if ns.png and not ns.dot:
        print("simcuda run: --png needs --dot DIR", file=sys.stderr)
        return 2
    if ns.dot and (problem := _dot_dir_problem(ns.dot)) is not None:
        print(f"simcuda run: --dot {ns.dot}: {problem}", file=sys.stderr)
        return 2
    if ns.png and shutil.which("dot") is None:
        print("simcuda run: --png: Graphviz's `dot` is not installed, so only the .dot files will be written; "
              f"{_summary.GRAPHVIZ_INSTALL}, and run again", file=sys.stderr)
    route, problem = _route_of_run(ns)
    if problem is not None:
        print(f"simcuda run: {problem}", file=sys.stderr)
        return 2
    rc, drv = run_script(ns.script, ns.args, kernels=ns.kernels, per_thread=ns.per_thread, route=route,
                         module=ns.module is not None, devices=ns.devices, kernel_bounds=ns.kernel_bounds)
    sys.stdout.flush()
    err = sys.stderr
    if ns.explain:
        err.write(_summary.explain_text(drv, _native_stubs(route), limit=ns.explain_limit))
    if ns.dot:
        # without Graphviz the notice came before the run: no second one
        paths = _summary.write_dots(drv, ns.dot, png=ns.png and shutil.which("dot") is not None, log=err,
                                    prefix=_program_name(ns) + "_")
        if not ns.quiet:
            err.write(f"simcuda: wrote {len(paths)} file(s) to {ns.dot}\n")
    if not ns.quiet:
        err.write(_summary.summary_text(drv, f"{ns.script} exited with code {rc} ({route} route)",
                                        explained=ns.explain))
    err.flush()
    return rc


def _program_name(ns: argparse.Namespace) -> str:
    """The name ``--dot`` files start with: the script's file name without ``.py``, or the module's name (dots
    kept), so that two programs writing pictures into one folder do not overwrite each other's."""
    if ns.module is not None:
        return str(ns.module)
    name = os.path.basename(str(ns.script))
    return name[:-3] if name.endswith(".py") else name


def _native_stubs(route: str) -> dict[str, int] | None:
    """On the native route, the calls the simulated library answered 801 itself (``None`` on the Python route)."""
    if route != "native":
        return None
    from .faces.native import not_simulated_calls
    return not_simulated_calls()


def _cmd_explain(code: str) -> int:
    from ._core.errors import code_value, explain
    from ._generated.driver_enums import CUresult
    from ._generated.runtime_enums import cudaError_t
    from ._generated.runtime_outputs import ERROR_STRINGS
    try:
        value: int | None = code_value(code)
    except ValueError:
        value = None
    if value is None or (value not in CUresult and value not in cudaError_t):
        print(f"simcuda explain: {code!r} is not a CUresult or cudaError_t name or value", file=sys.stderr)
        return 2
    if value in CUresult:
        print(explain(value))
    if value in cudaError_t:
        print(f"runtime: {cudaError_t(value).name} ({value}): {ERROR_STRINGS.get(value, '')}")
    return 0


def _split_module(parser: Parser, argv: list[str]) -> tuple[list[str], list[str] | None]:
    """``simcuda run [options] -m MODULE ARGS...``: split off ARGS, which are all the module's own (its options
    included, as for ``python -m``), so that argparse never reads them. ``-m`` counts only where an option of
    ``run`` may stand: not as the value of an option that takes one (``--kernels FILE``), nor after the script.
    Returns ``(argv up to MODULE, ARGS)``, or ``(argv, None)`` when there is no such ``-m``."""
    if argv[:1] != ["run"]:
        return argv, None
    takes_value = parser.run_value_options
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "-m":
            return (argv[:i + 2], argv[i + 2:]) if i + 1 < len(argv) else (argv, None)
        if a == "--" or not a.startswith("-"):
            return argv, None  # the script: everything after it is its own
        i += 2 if a in takes_value else 1  # ``--opt=value`` is one word
    return argv, None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``simcuda`` console script; returns the exit status."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, rest = _split_module(parser, argv)
    ns = parser.parse_args(argv)
    if rest is not None:
        ns.args = rest
    if ns.command == "run" and not ns.script and ns.module is None:
        parser.error("simcuda run needs a script: simcuda run [options] SCRIPT [ARGS...] (or -m MODULE [ARGS...])")
    if ns.command == "run":
        return _cmd_run(ns)
    if ns.command == "demo":
        from ._demo import main as demo_main
        from ._patch import route_of
        try:
            route_of()  # a malformed SIMCUDA_ROUTE is a usage error, before the demo starts
        except ValueError as e:
            print(f"simcuda demo: {e}", file=sys.stderr)
            return 2
        return demo_main()
    return _cmd_explain(ns.code)


if __name__ == "__main__":
    sys.exit(main())
