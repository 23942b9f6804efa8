"""User objects: reference-counted destructors whose references graphs, execs and launches hold (issue 9).

Who holds references, and when they go [D: cuUserObjectCreate, cuGraphRetainUserObject and the Programming
Guide's "CUDA User Objects", unless tagged]:

* the caller: ``initialRefcount`` at create, more with ``cuUserObjectRetain``, fewer with ``cuUserObjectRelease``
  and with ``cuGraphRetainUserObject(..., CU_GRAPH_USER_OBJECT_MOVE)``, which hands them to the graph;
* a graph (``Graph.user_refs``): ``cuGraphRetainUserObject``; a clone gets its own copy (``cuGraphClone``, and a
  child-graph node's copy of its graph); a destroyed graph releases them (``cuGraphDestroy``, a capture graph
  discarded at the end of an invalidated capture, a child graph going with its node);
* an exec (``GraphExec.user_refs``): its own copy of the references of its graph and the graphs nested in it,
  taken at instantiate, replaced by the source graph's at ``cuGraphExecUpdate``, released at
  ``cuGraphExecDestroy``;
* a launch: a copy of its exec's references from ``cuGraphLaunch`` until the replay has run, so an exec destroyed
  while a launch is pending or running keeps its objects alive until that launch completes.

The destructor ``destroy(ptr)`` runs once the last reference goes, when the call that dropped it ends, as a host
function (:meth:`~simcuda._core.work.Scheduler.run_destructors`): without the driver lock, with calls from it refused
(800, spec 3.9) [I: NVIDIA runs it later on an internal thread; the docs forbid CUDA calls from it].
None of these calls is in the potentially unsafe class: cuda.core creates a user object and retains it on the
capture's graph while the capture is open (spec 5.2, 5.4) [O: cuda.core's GraphBuilder].
"""
from __future__ import annotations

from typing import Any

from ..errors import CUresult, DriverError
from ..objects import UserObject
from ..state import DriverState, entry

#: ``CU_USER_OBJECT_NO_DESTRUCTOR_SYNC``, the one flag ``cuUserObjectCreate`` requires
NO_DESTRUCTOR_SYNC = 1
#: ``CU_GRAPH_USER_OBJECT_MOVE``: take the references from the caller instead of making new ones
GRAPH_USER_OBJECT_MOVE = 1
INT_MAX = 2 ** 31 - 1


def _check_count(count: int, call: str, what: str = "count") -> int:
    """``count`` of a retain/release: nonzero and at most INT_MAX [D], else INVALID_VALUE."""
    if not 0 < int(count) <= INT_MAX:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{call}: {what} {count} must be nonzero and not larger than INT_MAX (2147483647)")
    return int(count)


class UserObjects(DriverState):
    """User objects of the simulated driver: create, retain and release, and the references graphs hold.

    Entries: ``cuUserObjectCreate``, ``cuUserObjectRetain``, ``cuUserObjectRelease``, ``cuGraphRetainUserObject``,
    ``cuGraphReleaseUserObject``.
    """

    def _user_object(self, h: int, call: str) -> UserObject:
        """A live user object, or INVALID_VALUE (the one error code the calls document)."""
        u = self.handles.get(h) if h else None
        if not isinstance(u, UserObject):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: the user object handle is NULL" if not h else
                              f"{call}: 0x{h:x} is not a user object handle{self.handles.foreign(h)}")
        if u.gone:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: every reference of {u.label()} was released and its destructor ran; using "
                              "the handle after that is undefined behaviour in CUDA [inferred code]")
        return u

    @entry
    def user_object_create(self, ptr: Any, destroy: Any, initial_refcount: int, flags: int) -> int:
        """cuUserObjectCreate: a user object whose destructor ``destroy(ptr)`` runs when its last reference goes.

        Args: ``ptr``: the value passed to ``destroy`` (an address; ``None``/0 is NULL); ``destroy``: a host
        function address (``CUhostFn``), or, core only, a Python callable; ``initial_refcount``: references the
        caller starts with; ``flags``: must be ``CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`` (1) [D].
        Returns: the handle. Errors (INVALID_VALUE, no object made): ``flags`` other than 1 [D]; an
        ``initial_refcount`` of 0 or above INT_MAX [H: hip-tests; I for CUDA]; a NULL ``destroy`` [H; I], or an
        address that is not executable host memory.
        """
        if flags != NO_DESTRUCTOR_SYNC:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuUserObjectCreate flags {flags}: CU_USER_OBJECT_NO_DESTRUCTOR_SYNC (1) is required")
        refs = _check_count(initial_refcount, "cuUserObjectCreate", "initialRefcount")
        if not destroy:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "cuUserObjectCreate: the destroy callback is NULL [inferred code, as HIP]")
        self.scheduler.check_host_fn(destroy, "cuUserObjectCreate: the destroy callback")
        u = UserObject(0, ptr, destroy, refs)
        u.handle = self.handles.add(u)
        return u.handle

    @entry
    def user_object_retain(self, obj: int, count: int) -> None:
        """cuUserObjectRetain: ``count`` more references, owned by the caller.

        Errors: INVALID_VALUE a bad or dead handle; ``count`` 0 or above INT_MAX [D].
        """
        u = self._user_object(obj, "cuUserObjectRetain")
        k = _check_count(count, "cuUserObjectRetain")
        u.refs += k
        u.caller += k

    @entry
    def user_object_release(self, obj: int, count: int) -> None:
        """cuUserObjectRelease: drop ``count`` of the caller's references; the last one runs the destructor.

        Errors (nothing released): INVALID_VALUE a bad or dead handle; ``count`` 0 or above INT_MAX [D];
        more references than the caller holds (created, retained, less released or moved to graphs):
        undefined behaviour in CUDA, INVALID_VALUE here [I].
        """
        u = self._user_object(obj, "cuUserObjectRelease")
        k = _check_count(count, "cuUserObjectRelease")
        if k > u.caller:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuUserObjectRelease of {k} reference(s) of {u.label()}: the caller holds {u.caller} "
                              f"(graphs, execs and launches hold {u.refs - u.caller}); releasing references not "
                              "owned by the caller is undefined behaviour in CUDA, refused here [inferred]")
        u.caller -= k
        self._drop(u, k)

    def _drop(self, u: UserObject, k: int) -> None:
        u.refs -= k
        if u.refs <= 0 and not u.gone:
            u.gone = True
            self.scheduler.due_user_objects.append(u)  # the destructor runs as this call ends (the entry wrapper)

    @entry
    def graph_retain_user_object(self, graph: int, obj: int, count: int, flags: int) -> None:
        """cuGraphRetainUserObject: the graph takes ``count`` references (new ones, or the caller's with MOVE).

        Allowed on the graph of an open capture (cuda.core's GraphBuilder does it) [O].
        Errors (nothing changes): INVALID_VALUE a bad graph or object; ``count`` 0 or above INT_MAX [D];
        ``flags`` other than 0 and ``CU_GRAPH_USER_OBJECT_MOVE`` (1); with MOVE, more references than the
        caller holds [I].
        """
        g = self.handles.graph(graph)
        u = self._user_object(obj, "cuGraphRetainUserObject")
        k = _check_count(count, "cuGraphRetainUserObject")
        if flags not in (0, GRAPH_USER_OBJECT_MOVE):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuGraphRetainUserObject flags {flags} must be 0 or CU_GRAPH_USER_OBJECT_MOVE (1)")
        if flags == GRAPH_USER_OBJECT_MOVE:
            if k > u.caller:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"cuGraphRetainUserObject with CU_GRAPH_USER_OBJECT_MOVE of {k} reference(s) of "
                                  f"{u.label()}: the caller holds {u.caller}; moving references it does not own is "
                                  "refused [inferred]")
            u.caller -= k
        else:
            u.refs += k
        if g.user_refs is None:
            g.user_refs = {}
        g.user_refs[u] = g.user_refs.get(u, 0) + k

    @entry
    def graph_release_user_object(self, graph: int, obj: int, count: int) -> None:
        """cuGraphReleaseUserObject: the graph drops ``count`` of its references to the object.

        Execs already made from the graph keep their own copy, so the object outlives this call while one of
        them (or a launch of one) holds it.
        Errors (nothing changes): INVALID_VALUE a bad graph or object; ``count`` 0 or above INT_MAX [D]; more
        references than the graph holds: undefined behaviour in CUDA, INVALID_VALUE here [I].
        """
        g = self.handles.graph(graph)
        u = self._user_object(obj, "cuGraphReleaseUserObject")
        k = _check_count(count, "cuGraphReleaseUserObject")
        held = g.user_refs.get(u, 0) if g.user_refs else 0
        if k > held:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuGraphReleaseUserObject of {k} reference(s) of {u.label()}: graph {g.gid} holds "
                              f"{held}; releasing more is undefined behaviour in CUDA, refused here [inferred]")
        assert g.user_refs is not None
        if k == held:
            del g.user_refs[u]
        else:
            g.user_refs[u] = held - k
        self._drop(u, k)
