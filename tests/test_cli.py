"""The ``simcuda`` command: ``run`` (exit codes, argv, sys.path, summary, --dot, --explain), ``demo``, ``explain``."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from simcuda.cli import main

ROOT = Path(__file__).resolve().parent.parent

CAPTURE_SCRIPT = """\
import sys
from cuda.bindings import runtime as cudart

def check(res):
    assert res[0] == cudart.cudaError_t.cudaSuccess, res
    return res[1] if len(res) == 2 else res[1:]

print("argv", sys.argv[1:])
s1, s2 = check(cudart.cudaStreamCreate()), check(cudart.cudaStreamCreate())
fork, join = check(cudart.cudaEventCreate()), check(cudart.cudaEventCreate())
a = check(cudart.cudaMalloc(64))
check(cudart.cudaStreamBeginCapture(s1, cudart.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
check(cudart.cudaMemsetAsync(a, 1, 32, s1))
check(cudart.cudaEventRecord(fork, s1))
check(cudart.cudaStreamWaitEvent(s2, fork, 0))
check(cudart.cudaMemsetAsync(a, 2, 32, s2))
check(cudart.cudaEventRecord(join, s2))
check(cudart.cudaStreamWaitEvent(s1, join, 0))
check(cudart.cudaMemsetAsync(a, 3, 64, s1))
graph = check(cudart.cudaStreamEndCapture(s1))
exe = check(cudart.cudaGraphInstantiate(graph, 0))
for _ in range(2):
    check(cudart.cudaGraphLaunch(exe, s1))
check(cudart.cudaStreamSynchronize(s1))
print("done")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    """Write a script into ``tmp_path`` and return its path."""
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_run_passes_argv_and_keeps_the_exit_code(tmp_path, capfd):
    """The script sees its own argv, its stdout stays clean and SystemExit's code is the command's."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    rc = main(["run", script, "3", "--flag"])
    out, err = capfd.readouterr()
    assert rc == 3
    assert out == "argv ['3', '--flag']\ndone\n"
    assert "captures: 1 begun, 1 ended" in err
    assert "graph 1 (stream capture): 3 nodes (MEMSET 3), 3 edges, launched 2 times" in err
    assert "graph launches: 2" in err


def test_run_quiet_prints_no_summary(tmp_path, capfd):
    """--quiet suppresses the summary; a normal end is exit code 0."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    assert main(["run", "--quiet", script]) == 0
    out, err = capfd.readouterr()
    assert out.endswith("done\n") and err == ""


def test_run_reports_an_uncaught_exception(tmp_path, capfd):
    """An uncaught exception prints a traceback from the script's frame and gives exit code 1."""
    script = write(tmp_path, "boom.py", "def f():\n    raise ValueError('boom')\nf()\n")
    assert main(["run", script]) == 1
    _, err = capfd.readouterr()
    assert "Traceback" in err and "ValueError: boom" in err and "boom.py" in err
    assert "runpy" not in err.split("ValueError")[0]


def test_run_message_exit(tmp_path, capfd):
    """sys.exit('message') prints the message and exits with 1, as Python does."""
    script = write(tmp_path, "msg.py", "import sys\nsys.exit('bad input')\n")
    assert main(["run", "-q", script]) == 1
    assert "bad input" in capfd.readouterr().err


def test_run_puts_the_script_folder_first_on_sys_path(tmp_path, capfd):
    """A script imports a module next to it, like under ``python script.py``; sys.path is restored after."""
    (tmp_path / "helper_mod_for_cli_test.py").write_text("VALUE = 42\n")
    script = write(tmp_path, "imp.py", "import sys, helper_mod_for_cli_test as h\nprint(h.VALUE, sys.path[0])\n")
    before = list(sys.path)
    try:
        assert main(["run", "-q", script]) == 0
    finally:
        sys.modules.pop("helper_mod_for_cli_test", None)
    assert capfd.readouterr().out == f"42 {tmp_path}\n"
    assert sys.path == before


def test_run_restores_the_real_modules(tmp_path, capfd):
    """After ``run`` the cuda names are back as before (the patch is undone)."""
    before = {n: sys.modules.get(n) for n in ("cuda", "cuda.bindings", "cuda.bindings.runtime", "cuda.cudart")}
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    main(["run", "-q", script])
    capfd.readouterr()
    assert {n: sys.modules.get(n) for n in before} == before


def test_run_writes_dot_files(tmp_path, capfd):
    """--dot DIR writes one DOT file per graph with one edge line per edge."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    out_dir = tmp_path / "dots"
    assert main(["run", "--dot", str(out_dir), script]) == 0
    files = sorted(os.listdir(out_dir))
    assert files == ["cap_graph_1.dot"]
    text = (out_dir / "cap_graph_1.dot").read_text()
    assert text.startswith("digraph dot {") and text.count("->") == 3
    assert "wrote 1 file(s)" in capfd.readouterr().err


def test_run_png_without_graphviz_is_a_notice(tmp_path, capfd, monkeypatch):
    """--png with no Graphviz installed writes the DOT files and says it skipped the PNGs."""
    import shutil
    monkeypatch.setattr(shutil, "which", lambda name: None)
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    assert main(["run", "--dot", str(tmp_path / "d"), "--png", script]) == 0
    err = capfd.readouterr().err
    assert "Graphviz's `dot` is not installed" in err.splitlines()[0]  # said before the program runs
    assert err.count("not installed") == 1 and "apt install graphviz" in err  # said once, before the run
    assert os.listdir(tmp_path / "d") == ["cap_graph_1.dot"]
    assert main(["run", "--png", script]) == 2


def test_run_explain_lists_failures_with_why(tmp_path, capfd):
    """--explain prints each failed call with its code name and the simulator's reason."""
    script = write(tmp_path, "bad.py", """\
        from cuda.bindings import runtime as cudart
        err, s = cudart.cudaStreamCreate()
        cudart.cudaStreamBeginCapture(s, 0)
        print(cudart.cudaStreamSynchronize(s)[0].name)
        print(cudart.cudaSetDevice(7)[0].name)
        """)
    assert main(["run", "--explain", script]) == 0
    out, err = capfd.readouterr()
    assert out == "cudaErrorStreamCaptureUnsupported\ncudaErrorInvalidDevice\n"
    assert "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED (900)" in err and "why:" in err
    assert "device 7 does not exist" in err
    assert "failed calls: 2" in err


def test_run_per_thread_mode(tmp_path, capfd):
    """--per-thread makes handle 0 the per-thread stream, so capture on stream 0 can begin."""
    script = write(tmp_path, "pt.py", """\
        from cuda.bindings import runtime as cudart
        print(cudart.cudaStreamBeginCapture(0, 0)[0].name)
        print(cudart.cudaStreamEndCapture(0)[0].name)
        """)
    assert main(["run", "-q", "--per-thread", script]) == 0
    assert capfd.readouterr().out == "cudaSuccess\ncudaSuccess\n"
    assert main(["run", "-q", script]) == 0
    assert capfd.readouterr().out.startswith("cudaErrorStreamCaptureUnsupported\n")


def test_run_kernels_file_registers_kernels(tmp_path, capfd):
    """--kernels FILE runs a file that registers Python kernels before the script."""
    kfile = write(tmp_path, "kern.py", """\
        import simcuda
        @simcuda.kernel("cli_test_twice")
        def twice(launch):
            ptr, n = launch.args
            v = launch.view(ptr, n)
            v[:] = bytes((2 * b) % 256 for b in v)
        """)
    script = write(tmp_path, "use.py", """\
        import ctypes
        from cuda.bindings import driver as cuda, runtime as cudart, nvrtc
        src = b'extern "C" __global__ void cli_test_twice(unsigned char *p, int n) {}'
        _, prog = nvrtc.nvrtcCreateProgram(src, b"t.cu", 0, None, None)
        nvrtc.nvrtcCompileProgram(prog, 0, None)
        _, size = nvrtc.nvrtcGetPTXSize(prog)
        ptx = b" " * size
        nvrtc.nvrtcGetPTX(prog, ptx)
        cudart.cudaFree(0)
        _, mod = cuda.cuModuleLoadData(ptx)
        _, f = cuda.cuModuleGetFunction(mod, b"cli_test_twice")
        _, d = cudart.cudaMalloc(4)
        cudart.cudaMemcpy(d, bytes([1, 2, 3, 4]), 4, cudart.cudaMemcpyKind.cudaMemcpyDefault)
        cuda.cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, 0, ((d, 4), (ctypes.c_void_p, ctypes.c_int)), 0)
        out = bytearray(4)
        cudart.cudaMemcpy(out, d, 4, cudart.cudaMemcpyKind.cudaMemcpyDefault)
        print(list(out))
        """)
    try:
        assert main(["run", "-q", "--kernels", kfile, script]) == 0
    finally:
        import simcuda._core.facade as core
        core.KERNELS.pop("cli_test_twice", None)
    assert capfd.readouterr().out == "[2, 4, 6, 8]\n"
    # without the kernels file the same script runs the kernel's own PTX (an empty body: the bytes stay), so
    # the summary lists no kernel that could not run (issue 17)
    assert main(["run", script]) == 0
    out, err = capfd.readouterr()
    assert out == "[1, 2, 3, 4]\n"
    assert "kernels that could not run" not in err


def test_run_missing_script(capfd):
    """A script that does not exist is exit code 2 with a message."""
    assert main(["run", "/nonexistent/x.py"]) == 2
    assert "can't open file" in capfd.readouterr().err


def test_demo(capfd):
    """``simcuda demo`` prints the fork/join graph's nodes, edges, DOT, the replay result, and exits 0."""
    assert main(["demo"]) == 0
    out = capfd.readouterr().out
    for line in ["node 0: KERNEL A", "node 3: KERNEL D", "node 4: MEMCPY", "node 0 -> node 1", "node 0 -> node 2",
                 "node 1 -> node 3", "node 2 -> node 3", "node 3 -> node 4", "digraph dot {",
                 "[1.0, 4.0, 7.0, 10.0, 13.0, 16.0, 19.0, 22.0]", "What happened"]:
        assert line in out


@pytest.mark.parametrize("code, expected", [
    ("904", "CUDA_ERROR_STREAM_CAPTURE_UNJOINED (904)"),
    ("CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_INVALID_VALUE (1)"),
    ("cudaErrorStreamCaptureImplicit", "cudaErrorStreamCaptureImplicit (906)"),
    ("stream_capture_merge", "CUDA_ERROR_STREAM_CAPTURE_MERGE (902)"),
    ("12", "cudaErrorInvalidPitchValue (12)"),
])
def test_explain(code, expected, capfd):
    """``simcuda explain`` accepts numbers, driver names, runtime names and short names."""
    assert main(["explain", code]) == 0
    assert expected in capfd.readouterr().out


def test_explain_unknown(capfd):
    """An unknown code is exit code 2."""
    assert main(["explain", "nope"]) == 2


def test_module_entry_point_exit_code(tmp_path):
    """``python -m simcuda.cli run`` in a real process returns the script's exit code."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "simcuda.cli", "run", script, "5"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert res.returncode == 5
    assert res.stdout == "argv ['5']\ndone\n"
    assert "simcuda summary" in res.stderr


def test_version_prints_the_package_version(capsys):
    """``simcuda --version`` prints ``simcuda <version>`` and exits 0."""
    import simcuda
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"simcuda {simcuda.__version__}"


def test_run_m_runs_a_module_with_every_later_argument_its_own(tmp_path, capfd, monkeypatch):
    """``simcuda run -m MODULE ARGS`` runs the module as ``__main__`` on the simulator, options after the
    module name (``-q`` here) going to the module, not to simcuda; the module's exit code is the command's."""
    write(tmp_path, "capmod.py", CAPTURE_SCRIPT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", sys.path[:])
    rc = main(["run", "-m", "capmod", "4", "-q"])
    out, err = capfd.readouterr()
    assert rc == 4
    assert out == "argv ['4', '-q']\ndone\n"
    assert "captures: 1 begun, 1 ended" in err and "capmod exited with code 4" in err


def test_run_m_of_a_missing_module_is_pythons_message(capfd):
    """A module that cannot be found is exit code 1 with Python's ``No module named`` text."""
    rc = main(["run", "-q", "-m", "simcuda_no_such_module_here"])
    assert rc == 1
    assert "No module named simcuda_no_such_module_here" in capfd.readouterr().err


def test_run_dot_into_an_unusable_path_fails_before_the_script_runs(tmp_path, capfd):
    """``--dot`` naming a path under a plain file is a usage error (2) and the script never starts."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    (tmp_path / "plain").write_text("x")
    rc = main(["run", "--dot", str(tmp_path / "plain" / "graphs"), script])
    out, err = capfd.readouterr()
    assert rc == 2 and out == ""
    assert "--dot" in err and "Not a directory" in err


@pytest.mark.parametrize("code", ["CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "stream_capture_unjoined", "904", 904,
                                  "cudaErrorStreamCaptureUnjoined", "0x388"])
def test_simcuda_explain_takes_names_like_the_command_line(code):
    """``simcuda.explain`` accepts the names and numbers ``simcuda explain`` does."""
    import simcuda
    assert simcuda.explain(code).startswith("CUDA_ERROR_STREAM_CAPTURE_UNJOINED (904): ")


def test_simcuda_explain_rejects_what_is_not_a_code():
    """A text naming no code is ValueError; an object that is not a code (a bool included) is TypeError."""
    import simcuda
    with pytest.raises(ValueError, match="not a CUresult"):
        simcuda.explain("CUDA_ERROR_NO_SUCH_THING")
    with pytest.raises(TypeError):
        simcuda.explain(True)
    with pytest.raises(TypeError):
        simcuda.explain(1.5)


FAILED_CAPTURES = """\
from cuda.bindings import driver as cu
cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
s1, s2 = cu.cuStreamCreate(1)[1], cu.cuStreamCreate(1)[1]
e = cu.cuEventCreate(0)[1]
d = cu.cuMemAlloc(64)[1]
M = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
cu.cuStreamBeginCapture(s1, M)
cu.cuMemsetD8Async(d, 1, 64, s1)
cu.cuEventRecord(e, s1)
cu.cuStreamWaitEvent(s2, e, 0)
cu.cuMemsetD8Async(d, 2, 32, s2)      # forked, never joined
cu.cuMemsetD8Async(d, 3, 64, s1)
assert cu.cuStreamEndCapture(s1)[0] == cu.CUresult.CUDA_ERROR_STREAM_CAPTURE_UNJOINED
cu.cuStreamBeginCapture(s1, M)
cu.cuMemsetD8Async(d, 1, 64, s1)
cu.cuMemAlloc(8)                      # 900: invalidates the capture
assert cu.cuStreamEndCapture(s1)[0] == cu.CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
cu.cuStreamBeginCapture(s1, M)
cu.cuMemsetD8Async(d, 1, 64, s1)
assert cu.cuStreamEndCapture(s1)[0] == cu.CUresult.CUDA_SUCCESS
"""


def test_run_dot_draws_the_captures_that_failed(tmp_path, capfd):
    """--dot draws each capture whose end gave no graph as it stood, with the node that broke the rule in red
    (the unjoined memset) or a note naming the call that invalidated it; a capture that ended well is drawn as
    its graph only; the summary counts the failed ones."""
    import pydot
    script = write(tmp_path, "fail.py", FAILED_CAPTURES)
    out_dir = tmp_path / "dots"
    assert main(["run", "--dot", str(out_dir), script]) == 0
    err = capfd.readouterr().err
    assert sorted(p.name for p in out_dir.iterdir()) == ["fail_capture_1_failed.dot", "fail_capture_2_failed.dot",
                                                         "fail_graph_3.dot"]
    unjoined = pydot.graph_from_dot_file(str(out_dir / "fail_capture_1_failed.dot"))[0]
    red = [n.get_name() for n in unjoined.get_nodes() if n.get("color") == '"red"']
    assert red == ['"capture_1_failure"', '"graph_1_node_1"']  # node 1: the memset on the forked stream
    assert "unjoined (904)" in unjoined.get_node('"capture_1_failure"')[0].get("label")
    invalidated = (out_dir / "fail_capture_2_failed.dot").read_text()
    assert "invalidated (901) by cuMemAlloc on thread" in invalidated.replace("\\n", " ")
    assert '"capture_2_failure" -> "graph_2_node_0"' in invalidated
    assert "captures that gave no graph: 2 (capture 1: CUDA_ERROR_STREAM_CAPTURE_UNJOINED, capture 2: " \
           "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED" in err


def test_run_on_the_python_route_points_cuda_core_at_the_native_route(tmp_path, capfd):
    """A program that reaches NVIDIA's compiled layer (cuda.core) on the python route fails as it would without
    a GPU, and the command says which route serves it. In a fresh interpreter: once a process has loaded the
    simulated library (the default route, auto, does), NVIDIA's binding keeps it."""
    pytest.importorskip("cuda.core")
    script = write(tmp_path, "core.py", "from cuda.core import Device\nDevice().set_current()\n")
    r = subprocess.run([sys.executable, "-m", "simcuda", "run", "-q", "--route", "python", script],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    rc, err = r.returncode, r.stderr
    assert rc == 1 and "DynamicLibNotFoundError" in err
    assert "run it on the native route, `simcuda run --route native`" in err


def test_run_takes_the_auto_route_by_default(tmp_path):
    """With no --route and no SIMCUDA_ROUTE, ``simcuda run`` takes auto: a cuda.core program runs on the native
    route where the simulated library can be used (in a fresh interpreter, the environment without the suite's
    pin), and the summary names the route."""
    pytest.importorskip("cuda.core")
    from simcuda.faces import native
    ok, why = native.available()
    if not ok:
        pytest.skip(f"the native route cannot be used here: {why}")
    script = write(tmp_path, "core.py", "from cuda.core import Device\nd = Device()\nd.set_current()\n"
                                        "s = d.create_stream()\ns.sync()\nprint('ran on', d.name)\n")
    env = {k: v for k, v in os.environ.items() if k != "SIMCUDA_ROUTE"}
    r = subprocess.run([sys.executable, "-m", "simcuda", "run", script], capture_output=True, text=True,
                       timeout=300, env=dict(env, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    assert "ran on" in r.stdout
    assert "exited with code 0 (native route)" in r.stderr


def test_run_dot_files_of_two_programs_in_one_folder_do_not_collide(tmp_path, capfd):
    """Two programs writing their pictures into one folder keep them apart: each file starts with the program's
    name (the script's, or the module's for -m)."""
    one, two = write(tmp_path, "one.py", CAPTURE_SCRIPT), write(tmp_path, "two.py", CAPTURE_SCRIPT)
    out_dir = tmp_path / "dots"
    assert main(["run", "-q", "--dot", str(out_dir), one]) == 0
    assert main(["run", "-q", "--dot", str(out_dir), two]) == 0
    capfd.readouterr()
    assert sorted(os.listdir(out_dir)) == ["one_graph_1.dot", "two_graph_1.dot"]


def test_run_dot_at_a_file_says_it_needs_a_folder(tmp_path, capfd):
    """``--dot`` naming an existing plain file is a usage error that says a folder is needed (not ``File
    exists``), and the file is left as it was."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    target = tmp_path / "pictures.dot"
    target.write_text("mine")
    rc = main(["run", "--dot", str(target), script])
    out, err = capfd.readouterr()
    assert rc == 2 and out == ""
    assert "--dot takes a folder" in err and "File exists" not in err
    assert target.read_text() == "mine"


def test_run_m_after_an_option_with_a_value_gives_the_module_all_the_rest(tmp_path, capfd, monkeypatch):
    """``simcuda run --kernels FILE -m MODULE -p x``: options of ``run`` that take a value may stand before -m,
    and everything after the module's name, ``-p`` included, is the module's."""
    write(tmp_path, "capmod.py", CAPTURE_SCRIPT.replace('sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)',
                                                        "sys.exit(0)"))
    kernels = write(tmp_path, "twins.py", "import simcuda\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", sys.path[:])
    rc = main(["run", "--kernels", kernels, "--devices", "2", "-m", "capmod", "-p", "no:cacheprovider", "-m", "x"])
    out, err = capfd.readouterr()
    assert rc == 0, err
    assert out == "argv ['-p', 'no:cacheprovider', '-m', 'x']\ndone\n"


def test_run_a_script_named_after_an_option_value_is_still_the_script(tmp_path, capfd):
    """An ``-m`` that comes after the script is the script's argument, not simcuda's."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT.replace('sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 '
                                                              'else 0)', "sys.exit(0)"))
    assert main(["run", "-q", "--route", "python", script, "-m", "pytest"]) == 0
    assert capfd.readouterr().out == "argv ['-m', 'pytest']\ndone\n"


def test_python_dash_m_simcuda_is_the_command(tmp_path):
    """``python -m simcuda`` runs the ``simcuda`` command: ``run`` keeps the script's exit code."""
    script = write(tmp_path, "cap.py", CAPTURE_SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-m", "simcuda", "run", "-q", script, "3"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert res.returncode == 3, res.stderr
    assert res.stdout == "argv ['3']\ndone\n"


def test_an_uncaught_keyboard_interrupt_exits_130(tmp_path, capfd):
    """A program stopped by an uncaught KeyboardInterrupt (Ctrl-C) ends with status 130, as under ``python``
    (128 + SIGINT), its traceback printed, and the summary still follows."""
    script = write(tmp_path, "stop.py", "raise KeyboardInterrupt\n")
    assert main(["run", script]) == 130
    err = capfd.readouterr().err
    assert "KeyboardInterrupt" in err and "exited with code 130" in err


def test_help_shows_examples_and_no_internals(capsys):
    """``--help`` of the command and of ``run`` show examples; ``demo --help`` says what the demo does; no help
    names simcuda's internals."""
    texts = []
    for argv in (["--help"], ["run", "--help"], ["demo", "--help"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 0
        texts.append(capsys.readouterr().out)
    top, run, demo = texts
    assert "examples:" in top and "examples:" in run
    assert "-m pytest" in run and "fork/join" in demo and "replay" in demo
    for text in texts:
        assert "route_of" not in text and "_patch" not in text and "simcuda._" not in text


FAILING_MANY = """\
from cuda.bindings import driver as cu
for _ in range(300):
    cu.cuStreamSynchronize(12345)
for _ in range(30):
    cu.cuCtxGetDevice()
"""


def test_explain_aggregates_many_failures(tmp_path, capfd):
    """--explain with many failures counts them per entry and code, shows the first --explain-limit in full and
    counts the rest; --explain-limit 0 shows all."""
    script = write(tmp_path, "many.py", FAILING_MANY)
    assert main(["run", "--explain", script]) == 0
    err = capfd.readouterr().err
    assert "simcuda explain: 330 failed call(s)" in err
    assert "by entry and code (2 kind(s)):" in err
    assert "cuStreamSynchronize -> CUDA_ERROR_NOT_INITIALIZED (3): 300" in err
    assert err.count("     why: ") == 20 and "... and 310 more (counted above)" in err
    assert len(err.splitlines()) < 70
    assert main(["run", "-q", "--explain", "--explain-limit", "0", script]) == 0
    assert capfd.readouterr().err.count("     why: ") == 330


MANY_GRAPHS = """\
from cuda.bindings import driver as cu
cu.cuInit(0)
err, ctx = cu.cuDevicePrimaryCtxRetain(0)
cu.cuCtxSetCurrent(ctx)
for _ in range(300):
    err, g = cu.cuGraphCreate(0)
    cu.cuGraphAddEmptyNode(g, None, 0)
    cu.cuGraphDestroy(g)
"""


def test_summary_counts_graphs_past_the_limit(tmp_path, capfd):
    """With 300 graphs the summary lists the first ones, one per line, and counts the rest in one line."""
    script = write(tmp_path, "graphs.py", MANY_GRAPHS)
    assert main(["run", script]) == 0
    err = capfd.readouterr().err
    assert "  graphs: 300" in err
    assert err.count("    graph ") == 20
    assert "... and 280 more graph(s): 280 cuGraphCreate; 280 destroyed; 0 launched; 280 nodes and 0 edges" in err
    assert len(err.splitlines()) < 35
