"""tools/run_client_suites.py: how a run's output becomes a classified outcome (no network, no client copy)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "tools" / "run_client_suites.py"
_spec = importlib.util.spec_from_file_location("run_client_suites", _PATH)
assert _spec is not None and _spec.loader is not None
rcs = importlib.util.module_from_spec(_spec)
sys.modules["run_client_suites"] = rcs
_spec.loader.exec_module(rcs)

#: the two lines simcuda's summary writes for a kernel with neither a twin nor PTX (its wording, shortened)
NO_KERNEL = ("simcuda summary: x.py exited with code 255\n  kernel launches taken (cuLaunchKernel and friends): 1\n"
             "  kernels that could not run (no Python twin and no PTX the engine runs: recorded only, their results "
             "not computed): VecAdd_kernel (1 run); register a twin with simcuda.kernel(name) or --kernels FILE\n")


def _explain(call: str, name: str, code: int, why: str) -> str:
    return f"simcuda explain: 1 failed call(s)\n  1. {call} -> {name} ({code}) [thread MainThread]\n     why: {why}\n"


def test_exit_zero_passes_with_an_empty_note() -> None:
    """A program that exits 0 with every kernel computed passes with no note."""
    assert rcs.classify(0, "Result = PASS\n", "simcuda summary: ok\n") == ("pass", "")


def test_exit_zero_with_an_uncomputed_kernel_passes_with_a_note() -> None:
    """Exit 0 still passes, but the note names the kernel that did not compute (the program checked nothing)."""
    outcome, note = rcs.classify(0, "", NO_KERNEL)
    assert outcome == "pass"
    assert note == "exit 0, but kernels not computed: VecAdd_kernel (1 run)"


def test_uncomputed_kernel_is_the_cause_of_a_failed_check() -> None:
    """A failing program whose kernel did not compute gets that cause, with the kernel and the program's last line."""
    outcome, detail = rcs.classify(255, "Result = FAIL\n", NO_KERNEL)
    assert outcome == "kernel did not compute"
    assert detail == "VecAdd_kernel (1 run) -> Result = FAIL"


def test_engine_refusal_is_told_from_an_unsimulated_entry() -> None:
    """An 801 whose why names the engine and a PTX form is 'engine unsupported'; any other 801 names the entry."""
    engine = _explain("cuLaunchKernel", "CUDA_ERROR_NOT_SUPPORTED", 801,
                      "the PTX engine does not run the instruction tex.2d.v4.f32 (textures are refused)")
    assert rcs.classify(1, "", engine) == ("engine unsupported", "cuLaunchKernel: the PTX engine does not run the "
                                           "instruction tex.2d.v4.f32 (textures are refused)")
    entry = _explain("cudaCreateChannelDesc", "cudaErrorNotSupported", 801, "cudaCreateChannelDesc is not simulated")
    assert rcs.classify(1, "", entry) == ("entry answered 801",
                                          "cudaCreateChannelDesc (cudaErrorNotSupported): cudaCreateChannelDesc is "
                                          "not simulated")


def test_unrecorded_801_still_counts_as_an_entry_refusal() -> None:
    """An 801 the program reports but simcuda's explain report does not list is an entry refusal with no why."""
    err = ("CUDAError: CUDA_ERROR_NOT_SUPPORTED: This error indicates that the attempted operation is not supported\n"
           "simcuda explain: every call succeeded\n")
    outcome, detail = rcs.classify(1, "", err)
    assert outcome == "entry answered 801"
    assert detail.startswith("no why recorded (not in --explain): CUDAError: CUDA_ERROR_NOT_SUPPORTED")


def test_801_from_the_native_library_names_the_entry() -> None:
    """An 801 answered by the native library itself (an entry not simulated, listed by ``--explain`` with no why)
    is an entry refusal that names the entry."""
    err = ("CUDAError: CUDA_ERROR_NOT_SUPPORTED: This error indicates that the attempted operation is not supported\n"
           "simcuda explain: no failed call recorded\n"
           "  calls answered 801 (CUDA_ERROR_NOT_SUPPORTED) by the native library, entries not simulated (no why "
           "recorded; see docs/supported-api.md): cuMemGetMemPool (version 13000) x1\n")
    outcome, detail = rcs.classify(1, "", err)
    assert outcome == "entry answered 801"
    assert detail.startswith("cuMemGetMemPool (version 13000) x1 (not simulated, no why) -> CUDAError: "
                             "CUDA_ERROR_NOT_SUPPORTED")


def test_outcome_records_count_each_test_once_by_its_worst_phase() -> None:
    """The plugin's outcome lines give one outcome per test: a failed call wins over a later teardown error, an
    erroring setup counts as an error, and an xfail is told from a skip."""
    lines = ["passed t.py::a", "failed t.py::b", "error t.py::b", "error t.py::c", "skipped t.py::d",
             "xfailed t.py::e", ""]
    assert rcs.outcome_counts(lines) == {"passed": 1, "failed": 1, "error": 1, "skipped": 1, "xfailed": 1}


def test_timeout_crash_environment_wrong_and_other_errors() -> None:
    """Timeouts, signals, missing modules, failed checks and anything else each get their own cause."""
    assert rcs.classify(None, "", "", timed_out=True)[0] == "timeout"
    assert rcs.classify(-11, "", "Segmentation fault\n") == ("crash", "killed by signal 11: Segmentation fault")
    assert rcs.classify(1, "", "ModuleNotFoundError: No module named 'cupy'\nsimcuda summary: x\n") == (
        "environment", "ModuleNotFoundError: No module named 'cupy'")
    assert rcs.classify(1, "", "simcuda run: the program reached NVIDIA's compiled layer, which looks for a real "
                        "libcuda.so.1\n")[0] == "environment"
    assert rcs.classify(1, "atomicAdd failed val = 1 testData = 0\n", "")[0] == "wrong result"
    assert rcs.classify(1, "", "RuntimeError: boom\nsimcuda explain: every call succeeded\n") == (
        "error", "RuntimeError: boom")


def test_last_line_stops_before_simcuda_report() -> None:
    """The program's last line is the one before simcuda's explain and summary report."""
    assert rcs.last_line("a\n\nTraceback\nValueError: x\nsimcuda explain: every call succeeded\nsimcuda summary: y\n"
                         ) == "ValueError: x"
    assert rcs.last_line("") == ""


@pytest.mark.parametrize("msg, cause", [
    ("AssertionError: Expected 42, got 0", "kernel did not compute"),
    ("assert np.int32(0) == 4", "kernel did not compute"),
    ("AssertionError: Expected 3, got 5", "wrong result"),
    ("assert np.int32(5) == 0", "wrong result"),
    ("Failed: Timeout (>60.0s) from pytest-timeout.", "timeout"),
    ("cuda.core._utils.cuda_utils.CUDAError: CUDA_ERROR_NOT_SUPPORTED: not simulated", "entry answered 801"),
    ("CUDAError: CUDA_ERROR_NOT_SUPPORTED: the PTX engine refuses wgmma", "engine unsupported"),
    ("AttributeError: 'GraphBuilder' object has no attribute 'create_conditional_handle'", "version drift"),
    ("TypeError: __init__() got an unexpected keyword argument 'enable_timing'", "version drift"),
    ("TypeError: 'int' object is not callable", "version drift"),
    ("AssertionError: Regex pattern did not match.", "version drift"),
    ("ModuleNotFoundError: No module named 'cupy'", "environment"),
    ("RuntimeError: something else", "error"),
])
def test_test_messages_map_to_causes(msg: str, cause: str) -> None:
    """Each kind of one-line pytest failure message maps to its cause."""
    assert rcs.classify_test_message(msg) == cause


def test_pytest_short_summary_is_parsed_per_test() -> None:
    """FAILED and ERROR lines of ``pytest -rfE`` give one row per test, errors marked, messages classified."""
    out = ("....F\n=== short test summary info ===\n"
           "FAILED t/test_a.py::test_x[1] - AssertionError: Expected 42, got 0\n"
           "ERROR t/test_b.py::test_y - ModuleNotFoundError: No module named 'cupy'\n"
           "FAILED t/test_a.py::test_z\n1 failed, 1 error, 3 passed in 1.0s\n")
    assert rcs.pytest_failures(out) == [
        ("t/test_a.py::test_x[1]", "kernel did not compute", "AssertionError: Expected 42, got 0"),
        ("t/test_b.py::test_y (error)", "environment", "ModuleNotFoundError: No module named 'cupy'"),
        ("t/test_a.py::test_z", "error", ""),
    ]


def test_totals_count_outcomes_and_causes() -> None:
    """The totals count examples by outcome and cuda.core tests by pytest outcome and by failure cause."""
    ex = [{"outcome": "pass"}, {"outcome": "kernel did not compute"}, {"outcome": "pass"}]
    core = [{"counts": {"passed": 3, "failed": 1}, "failures": [["a", "timeout", ""]]},
            {"counts": {"failed": 2}, "failures": [["b", "timeout", ""], ["c", "error", ""]]}]
    assert rcs.totals(ex, core) == {"examples": {"pass": 2, "kernel did not compute": 1}, "examples_total": 3,
                                    "core_tests": {"passed": 3, "failed": 3},
                                    "core_failure_causes": {"timeout": 2, "error": 1}}


def test_example_files_skip_helpers(tmp_path: Path) -> None:
    """The bindings examples' ``common`` helpers and ``_``-prefixed files are not run; core examples follow."""
    for rel in ["cuda_bindings/examples/common/common.py", "cuda_bindings/examples/0_Intro/a_test.py",
                "cuda_bindings/examples/_private.py", "cuda_core/examples/saxpy.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert [str(f.relative_to(tmp_path)) for f in rcs.example_files(tmp_path)] == [
        "cuda_bindings/examples/0_Intro/a_test.py", "cuda_core/examples/saxpy.py"]


def test_missing_root_answers_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without a copy under --root the script exits 2 and says where the copy belongs."""
    assert rcs.main(["--root", str(tmp_path)]) == 2
    assert f"no copy at {tmp_path / 'cuda-python'}" in capsys.readouterr().err


@pytest.mark.parametrize("line, counts", [
    ("11 failed, 231 passed, 25 skipped, 1 warning, 19 subtests passed in 136.01s (0:02:16)",
     "11 failed, 231 passed, 25 skipped, 1 warning, 19 subtests passed"),
    ("========== 3 passed in 1.02s ==========", "3 passed"),
    ("collected 5 items", None),
])
def test_pytest_final_line_is_found_with_or_without_its_rule(line: str, counts: str | None) -> None:
    """pytest's final counts line is read whether ``-q`` dropped its ``=`` rule or not; other lines are not it."""
    m = rcs.COUNTS_LINE.search(line)
    assert (m.group(1) if m else None) == counts


def test_two_device_examples_get_two_simulated_devices() -> None:
    """The samples that waive themselves on one GPU are the ones run with two simulated devices."""
    assert rcs.EXAMPLE_DEVICES == {"simpleP2P_test.py": 2, "isoFDModelling_test.py": 2}


def test_an_exception_inside_simcuda_is_a_simulator_bug() -> None:
    """A program whose call answered 999 because simcuda raised inside the native adapter is a simulator bug, named
    by the entry and the exception."""
    err = ("simcuda: internal error in the native adapter of cuLaunchKernel:\nTraceback (most recent call last):\n"
           "  File \"x.py\", line 1, in go\n    view = buf.view(dt)\nValueError: When changing to a larger dtype\n"
           "simcuda explain: every call succeeded\n")
    assert rcs.classify(1, "out[0] = 0 (expected 42)\n", err) == (
        "simulator bug", "cuLaunchKernel: ValueError: When changing to a larger dtype (999 CUDA_ERROR_UNKNOWN)")
    assert rcs.classify_test_message("cuda.core._utils.cuda_utils.CUDAError: CUDA_ERROR_UNKNOWN: This indicates "
                                     "that an unknown internal error has occurred.") == "simulator bug"
