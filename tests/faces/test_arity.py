"""A wrong number of positional arguments raises the real wrapper's TypeError, word for word, before any
conversion (the real Cython wrappers count first)."""
from __future__ import annotations

import importlib

import pytest

from simcuda.faces.bindings import driver as face
from simcuda.faces.bindings import runtime as rt_face

real = pytest.importorskip("cuda.bindings.driver")
real_rt = importlib.import_module("cuda.bindings.runtime")


def cases(mod, real_mod, prefix):
    """(name, args) pairs: too many arguments for every wrapped function, none for those that need some."""
    out = []
    for name in sorted(n for n in dir(mod) if n.startswith(prefix)):
        f, r = getattr(mod, name), getattr(real_mod, name, None)
        if not callable(f) or isinstance(f, type) or r is None or not hasattr(f, "__wrapped__"):
            continue
        sig = (r.__doc__ or "").splitlines()[0] if r.__doc__ else ""
        if "(" not in sig:
            continue
        total = len([p for p in sig[sig.index("(") + 1:sig.rindex(")")].split(",") if p.strip()])
        out.append((name, (0,) * (total + 1)))
        if total and "=" not in sig:
            out.append((name, ()))
    return out


def test_every_case_compares_real_messages():
    """Each case above is a real TypeError of the real wrapper (none compares two absences), and there are many."""
    pairs = cases(face, real, "cu") + cases(rt_face, real_rt, "cuda")
    assert len(pairs) > 400
    assert all(message(getattr(real, n), a) for n, a in cases(face, real, "cu")[:50])


def message(fn, args):
    """The TypeError text of ``fn(*args)``, or None when it raises something else or nothing."""
    try:
        fn(*args)
    except TypeError as e:
        return str(e)
    except Exception:  # noqa: BLE001 - the real driver library is missing: not an arity error
        return None
    return None


def _id(x):
    return x if isinstance(x, str) else len(x)


@pytest.mark.parametrize("name, args", cases(face, real, "cu"), ids=_id)
def test_driver_face_counts_arguments_like_the_real_wrapper(name, args):
    """The tuple face's TypeError for a wrong argument count is the real wrapper's."""
    assert message(getattr(face, name), args) == message(getattr(real, name), args)


@pytest.mark.parametrize("name, args", cases(rt_face, real_rt, "cuda"), ids=_id)
def test_runtime_face_counts_arguments_like_the_real_wrapper(name, args):
    """The runtime face's TypeError for a wrong argument count is the real wrapper's."""
    assert message(getattr(rt_face, name), args) == message(getattr(real_rt, name), args)


def test_a_generator_where_a_list_goes_is_the_wrappers_type_error():
    """A generator as a node list raises the real wrapper's TypeError (it takes the list's len())."""
    args = (0, (x for x in []), [], None, 0)
    assert message(face.cuGraphAddDependencies, args) == "object of type 'generator' has no len()"
    assert message(real.cuGraphAddDependencies, (0, (x for x in []), [], None, 0)) == message(
        face.cuGraphAddDependencies, (0, (x for x in []), [], None, 0))


def _v2_cases():
    from simcuda._generated.driver_outputs import V2_FUNCTIONS
    from simcuda.faces.bindings._v2 import driver as v2
    real_v2 = importlib.import_module("cuda.bindings._v2.driver")
    out = []
    for name, sig in sorted(V2_FUNCTIONS.items()):
        f, r = getattr(v2, name, None), getattr(real_v2, name, None)
        if f is None or r is None or getattr(f, "__simcuda_stub__", False):
            continue
        inner = sig.split(" -> ")[0]
        total = len([p for p in inner[inner.index("(") + 1:inner.rindex(")")].split(",") if p.strip()])
        out.append((name, (0,) * (total + 1)))
        if total and "=" not in inner:
            out.append((name, ()))
    return out


@pytest.mark.parametrize("name, args", _v2_cases(), ids=_id)
def test_v2_face_counts_arguments_like_the_real_wrapper(name, args):
    """The raising face's TypeError for a wrong argument count is the real _v2 wrapper's."""
    from simcuda.faces.bindings._v2 import driver as v2
    real_v2 = importlib.import_module("cuda.bindings._v2.driver")
    assert message(getattr(v2, name), args) == message(getattr(real_v2, name), args)
