"""Bad input, swept over every function of the namespace, linalg and fft (issue 19).

The functions come from the namespace itself (``dir(numr)``, ``linalg.__all__``,
``fft.__all__``), so a new function is swept without an edit here; its required
parameters must be known to ``_VALUES`` (the test says which one is not).

Each function gets a valid call built from its signature, then bad variants of it:
wrong argument types, wrong dtypes, out-of-range axes, odd shapes, arrays on two
devices, bogus dtype/device arguments. Where numr must refuse (wrong types, bad axes,
mixed devices, bogus dtype/device arguments) the test asserts the exception type; for
every variant that raises, that the exception is a clear one (TypeError, ValueError,
IndexError, OverflowError) whose message names the function; and that every device
gives the same outcome as the CPU (the same exception type, or success on both).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import numr
from numr import fft, linalg
from tests.helpers import other_device

# Functions about devices and files, not arrays: their bad inputs are covered in
# test_creation.py / test_array.py (device strings) and their own tests (paths).
_NOT_ARRAY_FUNCTIONS = {"default_device", "set_default_device", "synchronize",
                        "memory_info", "empty_cache", "save", "load"}
_CLEAR = (TypeError, ValueError, IndexError, OverflowError)


def _functions():
    out = []
    for name in sorted(dir(numr)):
        f = getattr(numr, name)
        if (not name.startswith("_") and callable(f) and not isinstance(f, type)
                and inspect.isfunction(f) and name not in _NOT_ARRAY_FUNCTIONS):
            out.append((name, f))
    for prefix, mod in (("linalg.", linalg), ("fft.", fft)):
        for name in mod.__all__:
            f = getattr(mod, name)
            if inspect.isfunction(f):
                out.append((prefix + name, f))
    return out


FUNCTIONS = _functions()
_ARRAY_PARAMS = {"x", "x1", "x2", "condition", "indices"}


def _array(dev, dtype=None, shape=(3, 3)):
    """A small well-conditioned (symmetric positive definite) array on ``dev``."""
    d = dtype or dev.defaults["real floating"]
    base = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
    h = np.resize(base, shape) if shape != (3, 3) else base
    if d.kind == "bool":
        h = h > 1
    return numr.asarray(np.asarray(h).astype(d.name), device=dev)


def _value(pname: str, fname: str, dev):
    """A valid argument for parameter ``pname`` of ``fname`` (KeyError: unknown)."""
    if pname in _ARRAY_PARAMS:
        if pname == "condition":
            return _array(dev, numr.bool)
        if pname == "indices":
            return numr.asarray([0, 1], device=dev)
        if fname in ("searchsorted",) and pname == "x1":
            return numr.asarray([1.0, 2.0, 3.0], device=dev)
        return _array(dev)
    return {
        "arrays": [_array(dev), _array(dev)], "shape": (2, 3), "fill_value": 1.0,
        "start": 0, "stop": 3, "num": 3, "n_rows": 3, "n": 3, "dtype": numr.float32,
        "from_": numr.float32, "to": numr.float64, "type": numr.float32,
        "obj": [1.0, 2.0], "source": 0, "destination": 1, "shift": 1, "repeats": 2,
        "repetitions": (2,), "axis": 0, "axes": (1, 0), "kind": "real floating",
        "device": dev,
    }[pname]


def _call_spec(name, f, dev):
    """(args, kwargs) of a valid call of ``f`` on ``dev``; extra keyword names the
    function takes (for the axis/dtype/device variants)."""
    args, kwargs = [], {}
    for p in inspect.signature(f).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            if p.name == "arrays":
                args += [_array(dev), _array(dev)]
            elif p.name == "shapes":
                args += [(2, 3), (3,)]
            elif p.name == "arrays_and_dtypes":
                args += [_array(dev), numr.float32]
            continue
        if p.kind is p.VAR_KEYWORD or p.default is not p.empty:
            continue
        try:
            v = _value(p.name, name, dev)
        except KeyError:
            raise AssertionError(f"tests/test_bad_input.py: no example value for "
                                 f"parameter {p.name!r} of {name}; add one to _value")
        if p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = v
        else:
            args.append(v)
    return args, kwargs


def _params(f):
    return inspect.signature(f).parameters


def _variants(name, f, dev, other):
    """(label, must_raise, args, kwargs) of the bad calls of ``f``."""
    args, kwargs = _call_spec(name, f, dev)
    ps = _params(f)
    out = []
    array_slots = [i for i, a in enumerate(args) if type(a) is numr.Array]
    for i in array_slots:
        for bad in (object(),):
            a = list(args)
            a[i] = bad
            out.append((f"type-{i}-{type(bad).__name__}", TypeError, a, kwargs))
        for d in (numr.bool, numr.int32):
            a = list(args)
            a[i] = _array(dev, d)
            out.append((f"dtype-{i}-{d}", None, a, kwargs))
        for shape in ((), (0, 3)):
            a = list(args)
            a[i] = _array(dev, shape=shape)
            out.append((f"shape-{i}-{shape}", None, a, kwargs))
    if len(array_slots) >= 2 or (array_slots and "arrays" in ps):
        a = list(args)
        j = array_slots[-1]
        a[j] = numr.Array._new(other.ops.from_host(np.ones((3, 3), args[j].dtype.name)),
                               args[j].dtype, other)
        out.append(("mixed-devices", ValueError, a, kwargs))
    if "axis" in ps:
        for axis, exc in ((7, (ValueError, IndexError)), (-7, (ValueError, IndexError)),
                          (1.5, TypeError), ("a", TypeError)):
            pos = list(ps).index("axis")
            if ps["axis"].kind is inspect.Parameter.KEYWORD_ONLY or pos >= len(args):
                out.append((f"axis-{axis!r}", exc, args, {**kwargs, "axis": axis}))
            else:
                a = list(args)
                a[pos] = axis
                out.append((f"axis-{axis!r}", exc, a, kwargs))
    if "dtype" in ps and ps["dtype"].kind is inspect.Parameter.KEYWORD_ONLY:
        out.append(("dtype-str", TypeError, args, {**kwargs, "dtype": "float32"}))
        out.append(("dtype-numpy", TypeError, args, {**kwargs, "dtype": np.float32}))
    if "device" in ps and ps["device"].kind is inspect.Parameter.KEYWORD_ONLY:
        out.append(("device-absent", ValueError, args, {**kwargs, "device": "webgpu:7"}))
        out.append(("device-int", ValueError, args, {**kwargs, "device": 5}))
    return out


def _outcome(f, args, kwargs):
    try:
        f(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return e
    return None


def _short(name):
    return name.rsplit(".", 1)[-1]


def test_every_function_is_swept():
    names = {n for n, _ in FUNCTIONS}
    assert len(names) > 160 and {"add", "linalg.inv", "fft.fft", "asarray"} <= names


@pytest.mark.parametrize("name", [n for n, _ in FUNCTIONS])
def test_bad_input(device, name):
    f = dict(FUNCTIONS)[name]
    cpu = numr.Device("cpu") if device.kind != "cpu" else None
    other = other_device(device)
    problems = []
    variants = _variants(name, f, device, other)
    base_args, base_kwargs = _call_spec(name, f, device)
    base = _outcome(f, base_args, base_kwargs)
    if base is not None:
        # the example call itself is refused (cumulative_sum of a matrix needs an axis):
        # then the variants are checked for clear, equal errors only
        variants = [(label, None, a, k) for label, _, a, k in variants]
        variants.append(("example", None, base_args, base_kwargs))
    reference = {}
    if cpu is not None:
        reference = {label: _outcome(f, a, k) for label, _, a, k in
                     _variants(name, f, cpu, other_device(cpu))}
        reference["example"] = _outcome(f, *_call_spec(name, f, cpu))
    for label, must, args, kwargs in variants:
        e = _outcome(f, args, kwargs)
        if must is not None and not isinstance(e, must):
            problems.append(f"{label}: expected {must}, got {e!r}")
            continue
        if e is not None:
            if not isinstance(e, _CLEAR):
                problems.append(f"{label}: unclear exception {type(e).__name__}: {e}")
            elif _short(name) not in str(e):
                problems.append(f"{label}: the message does not name {name}: "
                                f"{type(e).__name__}: {e}")
        if label in reference:
            r = reference[label]
            if type(r) is not type(e):
                problems.append(f"{label}: cpu gives {r!r}, {device} gives {e!r}")
    assert not problems, f"{name} on {device}:\n  " + "\n  ".join(problems)
