"""tools/rows_from_strings.py rewrites a row in the older string notation into the typed constructors of
simcuda/_core/rows.py, each form into its constructor, so rows merged in that notation are converted again (issue 18,
item 2)."""
from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from simcuda._core import rows as R
from simcuda._core.api import API

TOOL = runpy.run_path(str(Path(__file__).resolve().parents[2] / "tools" / "rows_from_strings.py"))
DEFS = TOOL["definitions"]()


@pytest.mark.parametrize("shape, source", [
    ("stream_end_capture(hStream) -> phGraph", 'call(Streams.stream_end_capture, "hStream", out="phGraph")'),
    ("mem_alloc(size, 'cudaMalloc', allow_zero=True) -> devPtr",
     'call(Memory.mem_alloc, "size", lit("cudaMalloc"), allow_zero=True, out="devPtr")'),
    ("thread_exchange_stream_capture_mode(*mode) -> mode (...)",
     'hand(call(Streams.thread_exchange_stream_capture_mode, read("mode"), out="mode"))'),
    ("graph_get_edges(hGraph) -> from_[numEdges], to[numEdges] (...)",
     'hand(call(Graphs.graph_get_edges, "hGraph", out=(array("from_", "numEdges"), array("to", "numEdges"))))'),
    ("graph_add_ext_sem_node(hGraph, d[n], wait=False, **p) -> h, p.dptr (...)",
     'hand(call(Graphs.graph_add_ext_sem_node, "hGraph", array("d", "n"), spread("p"), wait=False, '
     'out=("h", field("p", "dptr"))))'),
    ("memset(MemsetParams(dst, uc, 1, N), None, 'x') (...)",
     'hand(call(Memory.memset, record(MemsetParams, "dst", "uc", 1, "N"), None, lit("x")))'),
    ("module_load_data(read_image_file(f, 'x'), 'x') -> module",
     'call(Modules.module_load_data, result(ArgumentRules.read_image_file, "f", lit("x")), lit("x"), out="module")'),
    ("stream_batch_mem_op(s, [(2, a)], (b,)) (...)",
     'hand(call(Streams.stream_batch_mem_op, "s", [(2, "a")], ("b",)))'),
    ("check_kernel_extra/launch_kernel_fast(...)",
     'hand(ArgumentRules.check_kernel_extra, named(Modules.launch_kernel_fast, "launch_kernel_fast"))'),
    ("ctx_create(...)", "hand(Contexts.ctx_create)"),
])
def test_each_form_becomes_its_constructor(shape, source):
    """A shape's text becomes the constructors' source, which makes the record the older parser made."""
    conv = TOOL["Converter"](DEFS, "cuX")
    assert conv.shape(shape, False).flat() == source


def test_runtime_forms_and_decoders():
    """A runtime row's ``(...)`` is ``hand()`` and its empty shape None; a decoder is ``kind(name, literals)``."""
    conv = TOOL["Converter"](DEFS, "cudaX")
    assert conv.shape("(...)", True).flat() == "hand()" and conv.shape("", True) is None
    assert conv.decoder("node_get_value(7, 'event')").flat() == 'kind("node_get_value", 7, "event")'
    assert conv.decoder("kernel_launch").flat() == 'kind("kernel_launch")' and conv.decoder("") is None
    with pytest.raises(ValueError, match="cudaX: no class of simcuda/_core defines the core operation 'no_such'"):
        conv.shape("no_such(a)", True)


def test_the_printed_source_makes_the_committed_record():
    """The source printed for a committed row's former text makes the record that row holds."""
    conv = TOOL["Converter"](DEFS, "cuGraphGetEdges")
    text = conv.shape("graph_get_edges(hGraph) -> from_[numEdges], to[numEdges], edgeData[numEdges]", False)
    from simcuda._core.graphs.graph_entries import Graphs
    assert eval(text.flat(), {**vars(R), "Graphs": Graphs}) == API["cuGraphGetEdges"].shape  # noqa: S307 (the tool's output)


def test_long_shapes_are_wrapped_within_the_line_length():
    """A shape too long for its line is wrapped at its arguments, aligned, within 120 columns."""
    conv = TOOL["Converter"](DEFS, "cuX")
    text = conv.shape("stream_begin_capture_to_graph(hStream, hGraph, dependencies[numDependencies], "
                      "dependencyData[numDependencies], mode) (...)", False).fmt(8, 1)
    assert "\n" in text and all(len(line) <= 120 for line in (" " * 8 + text + ",").splitlines())
