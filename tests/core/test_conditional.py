"""Conditional nodes in the core (docs/spec-proposals.md P-20..P-31): handles, the node and its bodies, capture into
a body, replay that evaluates the condition, the instantiate checks, DOT, exec update, clone and destruction."""
from __future__ import annotations

from typing import Any

import pytest

from simcuda import Driver, DriverError
from simcuda._core.errors import CUresult
from simcuda._core.graphs import nodes as nd

from .conftest import ready

SRC = (b'extern "C" __global__ void count(unsigned long long h, int i, int n) {}\n'
       b'extern "C" __global__ void setc(unsigned long long h, unsigned v) {}\n'
       b'extern "C" __global__ void k() {}')
INVALID_VALUE = CUresult.CUDA_ERROR_INVALID_VALUE


def setup() -> tuple[Driver, dict[str, int], list[int]]:
    """A driver with kernels ``count`` (bumps counter ``i``, sets the condition to ``counter < n``), ``setc``
    (sets the condition to ``v``) and ``k`` (bumps counter 99): ``(driver, function handles, counters)``."""
    d = ready()
    m = d.module_load_data(SRC)
    f = {n: d.module_get_function(m, n) for n in ("count", "setc", "k")}
    counters = [0] * 100

    def count(launch: Any) -> None:
        h, i, n = launch.args
        counters[i] += 1
        launch.set_conditional(h, 1 if counters[i] < n else 0)

    def setc(launch: Any) -> None:
        h, v = launch.args
        launch.set_conditional(h, v)

    def k(launch: Any) -> None:
        counters[99] += 1

    d.kernels.update(count=count, setc=setc, k=k)
    return d, f, counters


def code_of(fn: Any, *args: Any) -> int:
    """The CUresult a core call raises (0 when it succeeds)."""
    try:
        fn(*args)
    except DriverError as e:
        return int(e.code)
    return 0


def captured_into(d: Driver, body: int, launches: list[tuple[int, list[Any]]]) -> None:
    """Capture ``launches`` ``(function, args)`` into ``body`` with cuStreamBeginCaptureToGraph."""
    s = d.stream_create(0)
    d.stream_begin_capture_to_graph(s, body, [], None, 0)
    for fn, args in launches:
        d.launch_kernel(fn, (1, 1, 1), (1, 1, 1), 0, s, args)
    assert d.stream_end_capture(s) == body  # the capture went into the body, which stays the node's


def test_if_and_while_built_by_capture_run_their_bodies_as_the_condition_says() -> None:
    """IF runs its body once when a kernel set the condition; WHILE reruns its body until the kernel in it clears
    the condition; each launch starts again from the handles' defaults (ASSIGN_DEFAULT)."""
    d, f, counters = setup()
    g = d.graph_create(0)
    h_if = d.graph_conditional_handle_create(g, 0, 0, nd.COND_ASSIGN_DEFAULT)
    h_w = d.graph_conditional_handle_create(g, 0, 1, nd.COND_ASSIGN_DEFAULT)
    s = d.stream_create(0)
    d.stream_begin_capture_to_graph(s, g, [], None, 0)
    d.launch_kernel(f["setc"], (1, 1, 1), (1, 1, 1), 0, s, [h_if, 1])
    d.stream_end_capture(s)
    first = d.graph_get_nodes(g)[0]
    n_if, (if_body,) = d.graph_add_conditional_node(g, [first], h_if, nd.COND_IF, 1, 0)
    _n_w, (w_body,) = d.graph_add_conditional_node(g, [n_if], h_w, nd.COND_WHILE, 1, 0)
    captured_into(d, if_body, [(f["count"], [h_if, 0, 1])])
    captured_into(d, w_body, [(f["count"], [h_w, 1, 4])])
    x = d.graph_instantiate(g, 0)
    d.graph_launch(x, s)
    d.stream_synchronize(s)
    assert counters[:2] == [1, 4]  # IF body once, WHILE body 4 times (the kernel clears the condition at 4)
    notes = [r.note for r in d.launch_log if r.kind == "CONDITIONAL"]
    assert notes == [f"condition 1: body 0 (graph_{d.handles.graph(if_body).gid}) begins",
                     f"body 0 (graph_{d.handles.graph(if_body).gid}) ends",
                     f"condition 1: body 0 (graph_{d.handles.graph(w_body).gid}) begins",
                     f"condition 0 after 4 pass(es): body 0 (graph_{d.handles.graph(w_body).gid}) ends"]
    counters[1] = 2  # the WHILE body's kernel now clears the condition after 2 more passes
    d.graph_launch(x, s)
    d.stream_synchronize(s)
    assert counters[:2] == [2, 4]  # the WHILE default (1) applied again: two passes, counter 2 -> 4


def test_if_with_two_bodies_and_switch_pick_by_value() -> None:
    """IF with two bodies runs body 1 for a zero condition; SWITCH runs body[value] and nothing for a value past
    its size."""
    d, f, counters = setup()
    for value, want in ((0, [0, 1, 1, 0, 0]), (1, [1, 0, 0, 1, 0]), (2, [1, 0, 0, 0, 1]), (7, [1, 0, 0, 0, 0])):
        counters[:5] = [0] * 5
        g = d.graph_create(0)
        h_if = d.graph_conditional_handle_create(g, 0, value, nd.COND_ASSIGN_DEFAULT)
        h_sw = d.graph_conditional_handle_create(g, 0, value, nd.COND_ASSIGN_DEFAULT)
        n, bodies = d.graph_add_conditional_node(g, [], h_if, nd.COND_IF, 2, 0)
        for i, b in enumerate(bodies):
            d.graph_add_kernel_node(b, [], f["count"], (1, 1, 1), (1, 1, 1), 0, [h_if, i, 0])
        _n, cases = d.graph_add_conditional_node(g, [n], h_sw, nd.COND_SWITCH, 3, 0)
        for i, b in enumerate(cases):
            d.graph_add_kernel_node(b, [], f["k"], (1, 1, 1), (1, 1, 1), 0, [])
            d.graph_add_kernel_node(b, [], f["count"], (1, 1, 1), (1, 1, 1), 0, [h_sw, 2 + i, 0])
        s = d.stream_create(0)
        d.graph_launch(d.graph_instantiate(g, 0), s)
        d.stream_synchronize(s)
        assert counters[:5] == want, value


def test_without_assign_default_the_value_carries_over_between_launches() -> None:
    """Flags 0: the first launch starts at 0 and a later one with what the previous launch left (P-22) [I]."""
    d, f, counters = setup()
    g = d.graph_create(0)
    h = d.graph_conditional_handle_create(g, 0, 1, 0)
    _n, (body,) = d.graph_add_conditional_node(g, [], h, nd.COND_IF, 1, 0)
    d.graph_add_kernel_node(body, [], f["k"], (1, 1, 1), (1, 1, 1), 0, [])
    last = d.graph_add_kernel_node(g, [_n], f["setc"], (1, 1, 1), (1, 1, 1), 0, [h, 1])  # for the next launch
    x = d.graph_instantiate(g, 0)
    s = d.stream_create(0)
    for _ in range(2):
        d.graph_launch(x, s)
    d.stream_synchronize(s)
    assert counters[99] == 1 and last  # launch 1: 0 (no body); launch 2: the 1 launch 1 left


def test_a_while_that_never_ends_stops_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A WHILE whose condition stays non-zero stops after COND_WHILE_LIMIT passes with 702 LAUNCH_TIMEOUT, its
    why naming the limit (P-27)."""
    monkeypatch.setattr(nd, "COND_WHILE_LIMIT", 50)
    d, f, counters = setup()
    g = d.graph_create(0)
    h = d.graph_conditional_handle_create(g, 0, 1, nd.COND_ASSIGN_DEFAULT)
    _n, (body,) = d.graph_add_conditional_node(g, [], h, nd.COND_WHILE, 1, 0)
    d.graph_add_kernel_node(body, [], f["k"], (1, 1, 1), (1, 1, 1), 0, [])
    x = d.graph_instantiate(g, 0)
    with pytest.raises(DriverError) as ei:
        d.graph_launch(x, d.stream_create(0))
    assert ei.value.code == CUresult.CUDA_ERROR_LAUNCH_TIMEOUT and "COND_WHILE_LIMIT (50)" in ei.value.why
    assert counters[99] == 50


def test_handle_create_checks_and_its_state() -> None:
    """cuGraphConditionalHandleCreate: 1 for a bad graph or flags, 201 without a context; nothing is made; a good
    call records the handle with its graph, context, default and flags."""
    d = ready()
    g = d.graph_create(0)
    assert code_of(d.graph_conditional_handle_create, 0, 0, 0, 0) == INVALID_VALUE
    assert code_of(d.graph_conditional_handle_create, g, 0, 0, 2) == INVALID_VALUE
    assert d.handles.graph(g).cond_handles is None
    h = d.graph_conditional_handle_create(g, 0, 7, nd.COND_ASSIGN_DEFAULT)
    ch = d.handles.table[h]
    assert (ch.graph, ch.ctx, ch.default, ch.flags, ch.node) == (d.handles.graph(g), d.threads.current().current, 7, 1,
                                                                  None)
    d.ctx_set_current(0)
    assert code_of(d.graph_conditional_handle_create, g, 0, 0, 0) == CUresult.CUDA_ERROR_INVALID_CONTEXT


def test_add_checks_leave_the_graph_unchanged() -> None:
    """A bad handle, type, size, context, a foreign graph's handle or a handle in use: 1, and no node or body."""
    d = ready()
    g, other = d.graph_create(0), d.graph_create(0)
    h = d.graph_conditional_handle_create(g, 0, 0, 0)
    foreign = d.graph_conditional_handle_create(other, 0, 0, 0)
    ctx2 = d.ctx_create(0, 0)
    graphs_before = len(d.handles.all_graphs)
    for hcond, ctype, size, hctx in ((0, 0, 1, 0), (h, 3, 1, 0), (h, nd.COND_IF, 3, 0), (h, nd.COND_WHILE, 2, 0),
                                     (h, nd.COND_SWITCH, 0, 0), (h, nd.COND_IF, 1, ctx2), (foreign, 0, 1, 0)):
        assert code_of(d.graph_add_conditional_node, g, [], hcond, ctype, size, hctx) == INVALID_VALUE
    assert d.graph_get_nodes(g) == [] and len(d.handles.all_graphs) == graphs_before
    n, bodies = d.graph_add_conditional_node(g, [], h, nd.COND_SWITCH, 4, 0)
    assert len(bodies) == 4 and all(d.handles.graph(b).owner_node is d.handles.table[n] for b in bodies)
    assert code_of(d.graph_add_conditional_node, g, [], h, nd.COND_IF, 1, 0) == INVALID_VALUE  # in use
    assert d.graph_get_nodes(g) == [n]


def test_a_handle_may_serve_a_node_in_a_nested_body() -> None:
    """A handle made for the outer graph may be used by a conditional node inside one of its bodies (P-21)."""
    d, f, counters = setup()
    g = d.graph_create(0)
    outer = d.graph_conditional_handle_create(g, 0, 1, nd.COND_ASSIGN_DEFAULT)
    inner = d.graph_conditional_handle_create(g, 0, 1, nd.COND_ASSIGN_DEFAULT)
    _n, (body,) = d.graph_add_conditional_node(g, [], outer, nd.COND_IF, 1, 0)
    _m, (inner_body,) = d.graph_add_conditional_node(body, [], inner, nd.COND_IF, 1, 0)
    d.graph_add_kernel_node(inner_body, [], f["k"], (1, 1, 1), (1, 1, 1), 0, [])
    s = d.stream_create(0)
    d.graph_launch(d.graph_instantiate(g, 0), s)
    d.stream_synchronize(s)
    assert counters[99] == 1


def test_bodies_are_owned_by_the_node() -> None:
    """A body cannot be destroyed, become a child graph, hold memory nodes or be instantiated apart; destroying the
    node destroys its bodies and frees its handle for another node [I]."""
    d = ready()
    g = d.graph_create(0)
    h = d.graph_conditional_handle_create(g, 0, 0, 0)
    n, (body,) = d.graph_add_conditional_node(g, [], h, nd.COND_IF, 1, 0)
    assert code_of(d.graph_destroy, body) == INVALID_VALUE
    assert code_of(d.graph_add_child_graph_node, g, [], body) == INVALID_VALUE
    assert code_of(d.graph_add_mem_alloc_node, body, [], 64) == INVALID_VALUE
    assert code_of(d.graph_clone, g) == INVALID_VALUE  # cloning graphs with conditional nodes is not supported
    child = d.graph_create(0)
    d.graph_add_conditional_node(child, [], d.graph_conditional_handle_create(child, 0, 0, 0), 0, 1, 0)
    assert code_of(d.graph_add_child_graph_node, g, [], child) == INVALID_VALUE  # no conditionals in a child
    assert not d.handles.graph(body).destroyed
    d.graph_destroy_node(n)
    assert body not in d.handles.table and code_of(d.graph_get_nodes, body) == INVALID_VALUE
    n2, _ = d.graph_add_conditional_node(g, [], h, nd.COND_WHILE, 1, 0)
    assert d.graph_get_nodes(g) == [n2]


def test_instantiate_refuses_what_a_body_may_not_hold() -> None:
    """An event-wait node in a body (C-29), even inside a child graph in it, makes instantiate fail with 1, result
    NODE_OPERATION_NOT_SUPPORTED and the node as error node (P-23); no exec is made."""
    d = ready()
    ev = d.event_create(0)
    for nested in (False, True):
        g = d.graph_create(0)
        h = d.graph_conditional_handle_create(g, 0, 0, 0)
        _n, (body,) = d.graph_add_conditional_node(g, [], h, nd.COND_IF, 1, 0)
        target = body
        if nested:
            child = d.graph_create(0)
            d.graph_add_child_graph_node(body, [], child)
            target = d.handles.graph(body).nodes[0].params.graph.handle
        wait = d.graph_add_event_node(target, [], ev, True)
        with pytest.raises(DriverError) as ei:
            d.graph_instantiate_with_params(g, 0)
        assert ei.value.code == INVALID_VALUE and ei.value.instantiate_result == 3 and ei.value.err_node == wait
        assert "WAIT_EVENT" in ei.value.why and d.handles.graph(g).live_execs == 0


def test_instantiate_refuses_an_unused_handle() -> None:
    """A handle made for the graph that no node uses: instantiate fails with CONDITIONAL_HANDLE_UNUSED (5) (P-22)."""
    d = ready()
    g = d.graph_create(0)
    d.graph_add_empty_node(g, [])
    d.graph_conditional_handle_create(g, 0, 0, 0)
    with pytest.raises(DriverError) as ei:
        d.graph_instantiate_with_params(g, 0)
    assert ei.value.code == INVALID_VALUE and ei.value.instantiate_result == 5 and ei.value.err_node == 0


def test_set_conditional_outside_a_graph_launch_is_the_kernels_fault() -> None:
    """A kernel launched on a stream (no graph) that calls set_conditional raises ValueError (P-25): the kernel's
    fault, so the context takes the sticky 719 with that ValueError in its why (P-9)."""
    d, f, _counters = setup()
    g = d.graph_create(0)
    h = d.graph_conditional_handle_create(g, 0, 0, 0)
    s = d.stream_create(0)
    d.launch_kernel(f["setc"], (1, 1, 1), (1, 1, 1), 0, s, [h, 1])
    with pytest.raises(DriverError) as e:
        d.stream_synchronize(s)
    assert int(e.value.code) == 719 and "not running in a graph launch" in e.value.why


def test_dot_draws_each_body_as_a_cluster() -> None:
    """DOT: the conditional node in its graph's cluster, each body a cluster of its own after it; with
    CONDITIONAL_NODE_PARAMS the handle, type, size, default, flags and bodies (P-30)."""
    d = ready()
    g = d.graph_create(0)
    h = d.graph_conditional_handle_create(g, 0, 3, nd.COND_ASSIGN_DEFAULT)
    _n, (b0, b1) = d.graph_add_conditional_node(g, [], h, nd.COND_IF, 2, 0)
    d.graph_add_empty_node(b1, [])
    gid0, gid1 = d.handles.graph(b0).gid, d.handles.graph(b1).gid
    plain = d.dot(g)
    assert plain.index("subgraph cluster_1 ") < plain.index(f"subgraph cluster_{gid0} ") < plain.index(
        f"subgraph cluster_{gid1} ")
    assert f'"graph_{gid1}_node_0"[style="solid" shape="rectangle" label="0\nEMPTY\n"];' in plain
    verbose = d.dot(g, nd.DOT_CONDITIONAL_PARAMS)
    assert ("{{params | handle | type | size | defaultLaunchValue | flags | phGraph_out[0] | phGraph_out[1]} | "
            f"{{CUDA_CONDITIONAL_NODE_PARAMS | 0x{h:x} | IF | 2 | 3 | 1 | graph_{gid0} | graph_{gid1}}}}}") in verbose


def _switch_graph(d: Driver, f: dict[str, int], default: int, counter: int, size: int = 3,
                  ctype: int = nd.COND_SWITCH) -> int:
    g = d.graph_create(0)
    h = d.graph_conditional_handle_create(g, 0, default, nd.COND_ASSIGN_DEFAULT)
    _n, bodies = d.graph_add_conditional_node(g, [], h, ctype, size, 0)
    for i, b in enumerate(bodies):
        d.graph_add_kernel_node(b, [], f["count"], (1, 1, 1), (1, 1, 1), 0, [h, counter + i, 0])
    return g


def test_exec_update_takes_the_new_handles_defaults_and_body_parameters() -> None:
    """cuGraphExecUpdate from a graph of the same shape: the new graph's handle (its default) and body kernel
    parameters replace the exec's (P-29)."""
    d, f, counters = setup()
    x = d.graph_instantiate(_switch_graph(d, f, 0, 0), 0)
    s = d.stream_create(0)
    d.graph_launch(x, s)
    assert d.graph_exec_update(x, _switch_graph(d, f, 2, 10))[0] == nd.UPD_SUCCESS
    d.graph_launch(x, s)
    d.stream_synchronize(s)
    assert counters[:3] == [1, 0, 0] and counters[10:13] == [0, 0, 1]


def test_exec_update_refuses_a_changed_conditional_and_a_changed_body() -> None:
    """Another conditional type or body count is PARAMETERS_CHANGED (5), an extra (EMPTY) node in a body
    TOPOLOGY_CHANGED (2, the body's created count differs with no memcpy node unpartnered, spec 17); the exec is
    unchanged."""
    d, f, counters = setup()
    x = d.graph_instantiate(_switch_graph(d, f, 1, 0), 0)
    for other, result in ((_switch_graph(d, f, 1, 0, size=2), nd.UPD_PARAMETERS_CHANGED),
                          (_switch_graph(d, f, 1, 0, size=1, ctype=nd.COND_WHILE), nd.UPD_PARAMETERS_CHANGED)):
        with pytest.raises(DriverError) as ei:
            d.graph_exec_update(x, other)
        assert ei.value.code == CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
        assert ei.value.update_info[0] == result and "CONDITIONAL" in ei.value.why
    bigger = _switch_graph(d, f, 1, 0)
    body = d.handles.graph(bigger).nodes[0].params.bodies[2]
    d.graph_add_empty_node(body.handle, [])
    with pytest.raises(DriverError) as ei:
        d.graph_exec_update(x, bigger)
    assert ei.value.update_info[0] == nd.UPD_TOPOLOGY_CHANGED
    s = d.stream_create(0)
    d.graph_launch(x, s)
    d.stream_synchronize(s)
    assert counters[:3] == [0, 1, 0]  # the exec still runs its own body 1


def test_set_params_of_a_conditional_node_is_not_supported() -> None:
    """cuGraphNodeSetParams and cuGraphExecNodeSetParams on a CONDITIONAL node: 801 (changing conditional node
    parameters is not supported, P-29); the node and the exec keep their record."""
    d = ready()
    g = d.graph_create(0)
    n, _ = d.graph_add_conditional_node(g, [], d.graph_conditional_handle_create(g, 0, 0, 0), 0, 1, 0)
    before = d.handles.table[n].params
    assert code_of(d.graph_node_set_params, n, nd.CONDITIONAL, {}) == CUresult.CUDA_ERROR_NOT_SUPPORTED
    assert d.handles.table[n].params is before
    x = d.graph_instantiate(g, 0)
    assert code_of(d.graph_exec_node_set_params, x, n, nd.CONDITIONAL, {}) == CUresult.CUDA_ERROR_NOT_SUPPORTED
    assert d.handles.table[x].body.order[0].params is before  # the exec's node is unchanged too
