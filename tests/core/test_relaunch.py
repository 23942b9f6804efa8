"""``Driver.relaunch_kernel`` (the native route's repeat of a launch, simcuda/faces/native/adapters.py) answers what
``launch_kernel_fast`` answers for the same arguments, whatever changed since the launch it repeats.

Each case runs the same steps on two fresh drivers, then makes the repeated launch once through
``relaunch_kernel`` and once through ``launch_kernel_fast``, and compares everything a caller can observe: the
code and why (or success), the captured graph's nodes and their launch records, the thread's last error, the
error log, the launch count.
"""
from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable
from typing import Any

import pytest

import simcuda
from simcuda import Driver, DriverError, Options
from simcuda._core.graphs.graph_model import KernelParams

SRC = b'extern "C" __global__ void k(int n) {}\nextern "C" __global__ void boom(int n) {}'


def _boom(launch: Any) -> None:
    raise AssertionError("a device-side assert")


def _setup(capture: bool = True) -> tuple[Driver, dict[str, Any]]:
    d = Driver(options=Options(kernel_faults="sticky"))
    d.init(0)
    ctx = d.ctx_create(0, 0)
    m = d.module_load_data(SRC)
    f = d.module_get_function(m, "k")
    s = d.stream_create(1)
    if capture:
        d.stream_begin_capture(s, 2)  # relaxed: the cases may make unsafe calls
    grid, block, args = (1, 1, 1), (32, 1, 1), [5]
    params = d.launch_kernel_fast(f, grid, block, 0, s, args)
    assert isinstance(params, KernelParams)
    return d, {"ctx": ctx, "m": m, "f": f, "s": s, "params": params, "grid": grid, "block": block, "args": args,
               "t": d.threads.current()}


def _observe(d: Driver, o: dict[str, Any], call: Callable[[], Any]) -> list[Any]:
    try:
        call()
        got: Any = "ok"
    except DriverError as e:
        got = [int(e.code), re.sub(r"0x[0-9a-f]+", "0x?", e.why)]  # handle values differ between drivers
    st = d.handles.table[o["s"]]
    nodes = None
    if st.capture is not None:
        g = st.capture.graph
        nodes = [(n.local_id, n.params is o["params"], list(n.params.args), n.params.grid) for n in g.nodes]
    last = d.last_error()
    return [got, nodes, None if last is None else int(last.code), [(r.call, r.code) for r in d.error_log],
            d.stats["kernel_launches"]]


def _stream_destroyed(d: Driver, o: dict[str, Any]) -> None:
    d.stream_end_capture(o["s"])
    d.stream_destroy(o["s"])


def _other_values(d: Driver, o: dict[str, Any]) -> None:
    d.launch_kernel_fast(o["f"], o["grid"], o["block"], 0, o["s"], [6])  # the function's record changes


def _set_attribute(d: Driver, o: dict[str, Any]) -> None:
    d.func_set_attribute(o["f"], 9, 50)  # PREFERRED_SHARED_MEMORY_CARVEOUT: resets the launch record


def _hooked(d: Driver, o: dict[str, Any]) -> None:
    d.add_hook("launch_kernel", before=lambda drv, a, kw: None)


def _unloaded(d: Driver, o: dict[str, Any]) -> None:
    d.module_unload(o["m"])


def _ctx_destroyed(d: Driver, o: dict[str, Any]) -> None:
    d.stream_end_capture(o["s"])
    d.ctx_destroy(o["ctx"])


def _faulted(d: Driver, o: dict[str, Any]) -> None:
    d.stream_end_capture(o["s"])
    s2 = d.stream_create(1)
    d.launch_kernel(d.module_get_function(o["m"], "boom"), (1, 1, 1), (1, 1, 1), 0, s2, [1])
    with contextlib.suppress(DriverError):
        d.stream_synchronize(s2)  # the assert spoils the context (710, sticky)


def _invalidated(d: Driver, o: dict[str, Any]) -> None:
    with contextlib.suppress(DriverError):  # a wait on uncaptured work invalidates the capture (905, 4.1 row 10)
        d.stream_wait_event(o["s"], _recorded_event(d, d.stream_create(1)), 0)


def _recorded_event(d: Driver, s: int) -> int:
    e = d.event_create(0)
    d.event_record(e, s)
    return e


def _ended(d: Driver, o: dict[str, Any]) -> None:
    d.stream_end_capture(o["s"])  # the repeat now runs (no Python kernel: recorded only)


CASES = {
    "nothing changed": lambda d, o: None,
    "another launch of the same values": lambda d, o: d.launch_kernel_fast(o["f"], o["grid"], o["block"], 0, o["s"],
                                                                           o["args"]),
    "other values launched since": _other_values,
    "cuFuncSetAttribute since": _set_attribute,
    "a hook added": _hooked,
    "the module unloaded": _unloaded,
    "the stream destroyed": _stream_destroyed,
    "the context destroyed": _ctx_destroyed,
    "the context faulted": _faulted,
    "the capture invalidated": _invalidated,
    "the capture ended": _ended,
}


@pytest.mark.parametrize("case", list(CASES))
def test_relaunch_answers_what_launch_kernel_fast_answers(case: str) -> None:
    def relaunch(d: Driver, o: dict[str, Any]) -> None:  # as the native adapter does: the thread's state kept
        d.relaunch_kernel(o["params"], d.handles.table[o["s"]], o["f"], o["s"], o["t"])

    def launch(d: Driver, o: dict[str, Any]) -> None:
        p = o["params"]
        d.launch_kernel_fast(o["f"], p.grid, p.block, p.shmem, o["s"], p.args)

    outcomes = []
    for call in (relaunch, launch):
        d, o = _setup()
        CASES[case](d, o)
        outcomes.append(_observe(d, o, functools.partial(call, d, o)))
        d.close()
    assert outcomes[0] == outcomes[1]


def test_relaunch_reuses_the_record_and_counts_the_launch() -> None:
    """Nothing changed: the repeat adds a node with the very launch record, counted as a launch."""
    d, o = _setup()
    d.relaunch_kernel(o["params"], d.handles.table[o["s"]], o["f"], o["s"])
    g = d.handles.table[o["s"]].capture.graph
    assert [n.params for n in g.nodes] == [o["params"]] * 2 and d.stats["kernel_launches"] == 2
    d.close()


def test_relaunch_in_a_host_function_is_refused_as_any_launch() -> None:
    """From inside a host function the repeat takes launch_kernel_fast's path, which refuses it (spec: no
    driver call in a host function), with the thread's state looked up or given (the native record is per
    thread, so the state it keeps is the calling thread's)."""
    d, o = _setup(capture=False)
    got: list[Any] = []

    def host(_: Any) -> None:
        for fn in (lambda: d.relaunch_kernel(o["params"], d.handles.table[o["s"]], o["f"], o["s"]),
                   lambda: d.relaunch_kernel(o["params"], d.handles.table[o["s"]], o["f"], o["s"], d.threads.current()),
                   lambda: d.launch_kernel_fast(o["f"], o["grid"], o["block"], 0, o["s"], o["args"])):
            try:
                fn()
                got.append("ok")
            except DriverError as e:
                got.append(int(e.code))

    d.launch_host_func(o["s"], host, None)
    d.stream_synchronize(o["s"])
    assert len(got) == 3 and got[0] == got[1] == got[2] != "ok"
    d.close()
    simcuda.reset()
