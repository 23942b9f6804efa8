"""The simulated CUDA driver: :class:`Driver` puts the per-concept entries together over one state.

Where things are (a newcomer finds each by name):

* :mod:`simcuda._core.state`: ``DriverState`` (lock, counters, logs, the services below) and the ``entry``
  decorator every entry point wears;
* the services a driver holds, each with public, typed methods, reached by every entry group through them:
  ``handles`` (:mod:`simcuda._core.handles`: the object table, graphs and nodes, the preamble resolvers of spec
  section 3), ``threads`` (:mod:`simcuda._core.threads`: per-thread state and current contexts), ``captures``
  (:class:`simcuda._core.capture.capture_rules.CaptureRegistry`), ``memory``
  (:class:`simcuda._core.memory.memory_model.MemorySpace`), ``variables``
  (:class:`simcuda._core.modules.variables.ModuleVariables`), ``scheduler`` (:class:`simcuda._core.work.Scheduler`: how
  eager work runs, at once, queued, after user code or behind an in-flight kernel, and how user code runs outside the
  lock); docs/architecture.md lists them, generated from the code;
* the entry points by concept, one folder each with the concept's model and rows: :mod:`simcuda._core.contexts`
  (init, devices, contexts), :mod:`simcuda._core.streams` (streams and capture control), :mod:`simcuda._core.events`,
  :mod:`simcuda._core.capture` (the rule engine and CIG), :mod:`simcuda._core.memory` (memory, stream-ordered
  allocation and pools, VMM, peers, batch copies), :mod:`simcuda._core.modules` (modules, functions, launches, the
  JIT linker), :mod:`simcuda._core.graphs` (graphs and nodes, exec: instantiate, launch, update; user objects);
* an entry group that calls another group's entries names it as its base (``Execs(Graphs)``,
  ``Graphs(Conditionals)``, ``Peers(Memory)``); helpers two groups share are functions of the module owning the
  concept (:mod:`simcuda._core.graphs.graph_build` for adding nodes), never a sibling's private method
  (tests/test_layers.py);
* :mod:`simcuda._core.capture.capture_rules`: every capture rule (the rule engine);
  :mod:`simcuda._core.graphs.graph_model`: the graph model, replay, update pairing and DOT; both, and the node kinds of
  :mod:`simcuda._core.graphs.nodes`, are typed against narrow protocols of what they use of a driver (``CaptureHost``,
  ``GraphHost``, ``RunHost``, ``BuildHost``, ``ReplayHost``), so they import nothing of the driver and run against a
  small fake;
* :mod:`simcuda._core.memory.memory_model` and :mod:`simcuda._core.process`: the memory model and the process-wide
  address space;
* :mod:`simcuda._core.config` (``DeviceSpec``, ``Options``), :mod:`simcuda._core.logs` (launch and
  error logs), :mod:`simcuda._core.modules.kernels` (Python kernels).

Core entries take plain Python values (``int`` handles, ``int`` enum values, byte counts), apply the
preamble checks, hand every capture decision to the rule engine, and either return a value or raise
:class:`~simcuda._core.errors.DriverError`. They know nothing about the faces.
"""
from __future__ import annotations

from .arguments import ArgumentRules
from .capture.cig_entries import Cig
from .config import DEFAULT_LAUNCH_LOG_LIMIT, DeviceSpec, Options
from .contexts.context_entries import Contexts
from .events.event_entries import Events
from .graphs.conditional_entries import Conditionals
from .graphs.exec_entries import Execs
from .graphs.graph_entries import Graphs
from .graphs.userobj_entries import UserObjects
from .logs import ErrorRecord, LaunchLog, LaunchRecord
from .memory.batch_entries import BatchCopies
from .memory.memory_entries import Memory
from .memory.peer_entries import Peers
from .memory.pool_entries import Pools
from .memory.vmm_entries import VirtualMemory
from .modules.kernels import KERNELS, KernelLaunch
from .modules.link_entries import Linking
from .modules.module_entries import Modules
from .modules.symbol_entries import Symbols
from .state import CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, DRIVER_VERSION, HANDLE_STEP, entry
from .streams.stream_entries import Streams

__all__ = ["CU_STREAM_LEGACY", "CU_STREAM_PER_THREAD", "DEFAULT_LAUNCH_LOG_LIMIT", "DRIVER_VERSION", "HANDLE_STEP",
           "KERNELS", "DeviceSpec", "Driver", "ErrorRecord", "KernelLaunch", "LaunchLog", "LaunchRecord", "Options",
           "entry"]


class Driver(Contexts, Streams, Cig, Events, Peers, Memory, Pools, Modules, Execs, Graphs, Conditionals,
             UserObjects, ArgumentRules, VirtualMemory, Symbols, BatchCopies, Linking):
    """An in-memory CUDA driver: devices, contexts, streams, events, memory, modules, graphs.

    Mirrors: ``libcuda`` as seen through ``cuda.bindings.driver`` 13.5.

    Args:
        devices: one :class:`DeviceSpec` per simulated device (default: one H100-like device).
        available: ``False`` simulates a machine without a usable driver: ``cuInit`` returns
            ``CUDA_ERROR_NO_DEVICE`` (100) and every other call ``CUDA_ERROR_NOT_INITIALIZED`` (3).
        progression: ``"immediate"`` (work enqueued outside capture completes at once) or
            ``"manual"`` (work stays pending, queries return NOT_READY, until :meth:`advance`).
        options: :class:`Options` for the spec's open choices.

    Attributes:
        launch_log: a :class:`LaunchLog` of the work that ran, bounded by ``Options.launch_log_limit``.
        error_log: an :class:`ErrorRecord` per refused call (the first 100,000).
        stats: counters that change only when the counted thing happens, never on a refused call:
            ``captures_begun`` (a cuStreamBeginCapture* that succeeded), ``captures_ended`` (a capture
            that ended: a cuStreamEndCapture that returned its graph, and also one answering 901 or 904,
            since that call ends the capture too, spec 3.3), ``graph_launches`` (cuGraphLaunch replays
            that ran: in manual progression when they run, never for a launch refused with 906, 901 or
            900, nor one recorded into a CIG command list or added to a capture as a child-graph node),
            ``kernel_launches`` (cuLaunchKernel-family calls the stream took: run, captured or recorded
            into a CIG command list; not the ones refused, e.g. 906 on the legacy stream or 901 in an
            invalidated capture).

    The object is ordinary: tests may create as many as they like. The faces act on the
    current default driver (``simcuda.use``, ``simcuda.reset``). Each driver has its own range of
    handles and of device addresses (:mod:`simcuda._core.process`): a value of another driver is
    refused as an invalid one, with a ``why`` naming the driver it came from.

    Public surface (kept stable; everything with a leading underscore is internal): the entry methods
    (one per driver call, ``stream_begin_capture`` for ``cuStreamBeginCapture``...; the faces call
    them); ``stats`` (counters), ``launch_log`` (:class:`~simcuda._core.logs.LaunchLog`),
    ``error_log`` (:class:`~simcuda._core.logs.ErrorRecord` list, capped at 100,000), ``kernels``
    (per-driver Python kernels), ``options``, ``devices``, ``progression``, ``available``, ``serial``,
    ``memory`` (the address space; ``memory.device_view``), the services ``handles``, ``threads``,
    ``captures`` and ``scheduler`` (internal, typed; see :mod:`simcuda._core.handles`,
    :mod:`simcuda._core.work`), and the helpers ``advance()``, ``close()``,
    ``dot()``, ``capture_info()``, ``cig_ops()``, ``graphs_from_captures()``, ``all_graphs()``,
    ``last_error()``, ``thread_id()``, ``is_device_pointer()``, ``refuse()`` and ``add_hook()`` (observe
    an entry without subclassing; ``simcuda run``'s recorder uses it).

    Threads: every entry takes the driver's lock, except while user code runs (host functions,
    host nodes, Python kernels), which runs with the lock released as on a driver thread; other
    threads' work on the same stream waits behind it and their synchronising calls wait for it.
    Fidelity notes: under ``progression="manual"`` queued work runs in one global enqueue order, so
    a synchronisation from another thread while a host function of queued work runs waits for that
    host function even on an unrelated stream (a host function that waits for such a call would
    deadlock here, not on a GPU); and the legacy stream's implicit synchronisation with blocking
    streams does not wait for a host function running on one of them.
    """
