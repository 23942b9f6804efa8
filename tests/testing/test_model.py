"""The reference model (simcuda.testing.model) on the spec's worked examples, and its independence."""
from __future__ import annotations

import ast
import pathlib

from simcuda.testing import LEGACY, CaptureModel
from simcuda.testing import model as model_module


def fresh(*blocking: bool) -> CaptureModel:
    """A model with streams s1.. (blocking as given) and events e1..e3."""
    m = CaptureModel()
    for i, b in enumerate(blocking, 1):
        m.create_stream(f"s{i}", b)
    for i in range(1, 4):
        m.create_event(f"e{i}")
    return m


def test_the_model_imports_nothing_of_simcuda():
    """The model is a second implementation: its module imports no simcuda code at all."""
    tree = ast.parse(pathlib.Path(model_module.__file__).read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if "simcuda" in n or n.startswith("_core")]


def test_the_guides_fork_join_example_gives_its_graph():
    """Spec 4.3: A, fork to s2, B on s1, C on s2, join, D gives edges A->B, A->C, B->D, C->D."""
    m = fresh(True, True)
    assert m.begin(0, "s1", 0) == 0
    assert m.launch(0, "s1") == 0  # A = 0
    assert m.record(0, "e1", "s1") == 0
    assert m.wait(0, "s2", "e1") == 0  # fork
    assert m.status("s2") == (0, 1)
    assert m.launch(0, "s1") == 0  # B = 1
    assert m.launch(0, "s2") == 0  # C = 2
    assert m.record(0, "e2", "s2") == 0
    assert m.wait(0, "s1", "e2") == 0  # join
    assert m.launch(0, "s1") == 0  # D = 3
    code, g = m.end(0, "s1")
    assert code == 0 and g is not None
    assert g.nodes == 4 and sorted(g.edges) == [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert m.status("s1") == m.status("s2") == (0, 0)


def test_work_after_the_last_join_is_unjoined():
    """Spec 4.4: a launch on the fork after its join makes the end 904, every member goes back to NONE and the
    captured event stays bound (spec 17)."""
    m = fresh(True, True)
    m.begin(0, "s1", 0)
    m.launch(0, "s1")
    m.record(0, "e1", "s1")
    m.wait(0, "s2", "e1")
    m.launch(0, "s2")
    m.record(0, "e2", "s2")
    m.wait(0, "s1", "e2")
    m.launch(0, "s2")
    assert m.end(0, "s1") == (904, None)
    assert m.status("s2") == (0, 0) and m.events["e1"] == "bound"
    assert m.event_sync(0, "e1") == 1 and m.wait(0, "s2", "e1") == 401


def test_a_fork_that_did_nothing_is_not_unjoined():
    """Spec 4.4: a forked stream that enqueued nothing does not make the capture unjoined."""
    m = fresh(True, True)
    m.begin(0, "s1", 0)
    m.launch(0, "s1")
    m.record(0, "e1", "s1")
    m.wait(0, "s2", "e1")
    m.launch(0, "s1")
    code, g = m.end(0, "s1")
    assert code == 0 and g is not None and g.edges == [(0, 1)]


def test_the_unsafe_table_of_spec_5_2():
    """Spec 5.2: a GLOBAL thread is restricted by another thread's GLOBAL capture, a THREAD_LOCAL one is not,
    and a RELAXED capture restricts nobody."""
    m = fresh(False, False)
    m.begin(1, "s1", 0)  # T1, GLOBAL
    m.exchange_mode(0, 1)
    assert m.mem_alloc(0) == 0  # T0 THREAD_LOCAL: other thread's GLOBAL capture allowed
    m.exchange_mode(0, 0)
    assert m.mem_alloc(0) == 900  # T0 GLOBAL: prohibited, and T1's capture is invalidated
    assert m.status("s1") == (0, 2)
    m2 = fresh(False)
    m2.begin(0, "s1", 2)
    assert m2.mem_alloc(0) == 0


def test_the_legacy_stream_under_a_blocking_capture():
    """Spec 6: any use of the legacy stream while a blocking stream captures is 906 and invalidates it; a
    non-blocking capture leaves the legacy stream usable."""
    m = fresh(True, False)
    m.begin(0, "s2", 0)
    assert m.launch(0, LEGACY) == 0
    m.begin(0, "s1", 0)
    assert m.status(LEGACY) == (906, 0)
    assert m.launch(0, LEGACY) == 906
    assert m.status("s1") == (0, 2) and m.status("s2") == (0, 1)


def test_merge_isolation_and_a_wrong_thread_end():
    """Spec 4.1 rows 9-10 and 3.3 row 4: 902 invalidates both captures, 905 the waiting one, 908 the ended one."""
    m = fresh(False, False, False)
    m.begin(0, "s1", 0)
    m.begin(0, "s2", 0)
    m.record(0, "e1", "s1")
    assert m.wait(0, "s2", "e1") == 902
    assert m.status("s1") == m.status("s2") == (0, 2)
    m3 = fresh(False, False)
    m3.record(0, "e1", "s2")
    m3.begin(0, "s1", 1)
    assert m3.wait(0, "s1", "e1") == 905
    m4 = fresh(False)
    m4.begin(0, "s1", 1)
    assert m4.end(1, "s1") == (908, None)
    assert m4.end(0, "s1") == (901, None)
