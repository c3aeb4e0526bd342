"""numr as the chunk backend of Cubed (docs/larger-than-memory.md): the interop pieces
(NumPy reads numr's dtypes, numr takes numpy.dtype instances, NumPy's __array__ protocol
on GPU arrays), and Cubed computations with numr chunks on every device and on a
dask.distributed cluster of two worker processes.

Cubed picks its backend when it is first imported (CUBED_BACKEND_ARRAY_API_MODULE), so
its computations run in a subprocess with that environment; the worker processes of the
Dask cluster inherit it.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import numr
from numr import _config
from tests.helpers import to_np

ROOT = Path(__file__).resolve().parent.parent
HAVE_CUBED = importlib.util.find_spec("cubed") is not None
HAVE_DISTRIBUTED = importlib.util.find_spec("distributed") is not None
needs_cubed = pytest.mark.skipif(not HAVE_CUBED, reason="cubed is not installed "
                                 "(pip install -e '.[cubed]')")


# --- dtypes both ways ---------------------------------------------------------------

def test_numpy_reads_numr_dtypes():
    for d in numr._dtypes.ALL:
        assert np.dtype(d) == np.dtype(d.name)
        assert np.dtype(d) == d and d == np.dtype(d)  # NumPy's __eq__ reads .dtype too
    assert np.zeros(2, dtype=numr.int16).dtype == np.int16
    assert repr(numr.float64) == "numr.float64" and numr.float64.dtype == np.float64


def test_numpy_dtypes_are_taken_where_numr_takes_a_dtype(device):
    f32, i8 = np.dtype("float32"), np.dtype("int8")
    x = numr.asarray([1.5, 2.5], dtype=f32, device=device)
    assert x.dtype is numr.float32
    assert numr.astype(x, i8).dtype is numr.int8
    assert numr.ones(3, dtype=i8, device=device).dtype is numr.int8
    assert numr.zeros_like(x, dtype=np.dtype("int32")).dtype is numr.int32
    assert numr.sum(x, dtype=np.dtype("float64")).dtype is numr.float64
    assert numr.result_type(i8, numr.int16) is numr.int16
    assert numr.result_type(x, i8) is numr.float32
    assert numr.can_cast(i8, np.dtype("int64")) and not numr.can_cast(f32, i8)
    assert numr.isdtype(f32, "real floating") and numr.isdtype(i8, (f32, i8))
    assert numr.finfo(f32).dtype is numr.float32 and numr.iinfo(i8).max == 127
    # NumPy's scalar types, strings and byte-swapped dtypes stay refused
    for bad in (np.float32, "float32", float, np.dtype(">f8")):
        with pytest.raises(TypeError, match="asarray: dtype must be a numr dtype"):
            numr.asarray([1.0], dtype=bad, device=device)
        with pytest.raises(TypeError, match="result_type"):
            numr.result_type(bad)


# --- NumPy's __array__ protocol on GPU arrays ---------------------------------------

def test_array_protocol_copies_off_the_device_only_on_request(device):
    with _config.override(NUMR_IMPLICIT_HOST_COPY=False):
        _check_array_protocol(device)


def _check_array_protocol(device):
    x = numr.asarray([1.0, 2.0, 3.0], device=device)
    explicit = [np.array(x), np.asarray(x, copy=True), np.asarray(x, dtype=np.float32,
                                                                copy=True)]
    for h in explicit:
        assert h.tolist() == [1.0, 2.0, 3.0]
    assert explicit[2].dtype == np.float32
    if device.kind == "cpu":
        assert np.shares_memory(np.asarray(x), np.asarray(x))  # CPU arrays share memory
        assert not np.shares_memory(np.array(x), np.asarray(x))
        return
    with pytest.raises(TypeError, match=f"on {device}; implicit conversion.*"
                                        f"NUMR_IMPLICIT_HOST_COPY"):
        np.asarray(x)
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(x, copy=False)
    with _config.override(NUMR_IMPLICIT_HOST_COPY=True):
        h = np.asarray(x)
        h[0] = 9.0  # a host copy: the device array is unchanged
        assert to_np(x).tolist() == [1.0, 2.0, 3.0]
        with pytest.raises(ValueError, match="copy=False"):
            np.asarray(x, copy=False)


# --- Cubed computations -------------------------------------------------------------

def _check_chunk(block, *, device):
    """A map_blocks function: every chunk Cubed hands over is a numr array on ``device``."""
    if type(block) is not numr.Array or str(block.device) != device:
        raise AssertionError(f"chunk {type(block).__name__} on "
                             f"{getattr(block, 'device', None)}, expected numr on {device}")
    return block * 2


def computations(work_dir, device, executor=None):
    """Cubed results (as lists) of a NaN-aware reduction, a mean, a variance, a matmul and
    a map_blocks that checks every chunk, over 40x40 chunks of 120x80 arrays."""
    import functools

    import cubed
    import cubed.array_api as cx

    # Cubed's default executor runs tasks on threads: numr's devices are safe for that
    # (issue 19), so GPU chunks use it too.
    spec = cubed.Spec(work_dir=work_dir, allowed_mem="200MB")
    a = cx.asarray(_data(), chunks=(40, 40), spec=spec)
    b = cx.asarray(np.nan_to_num(_data()), chunks=(40, 40), spec=spec)
    out = {
        "nansum": cubed.nansum(a, axis=0),
        "mean": cx.mean(b, axis=1),
        # Cubed's var calls mean(chunk, dtype=) and combines partials with take(chunk, 0)
        "var": cx.var(b, axis=0, correction=1),
        "matmul": cx.sum(b @ cx.matrix_transpose(b), axis=0),
        "doubled": cx.sum(cubed.map_blocks(functools.partial(_check_chunk, device=device),
                                           b, dtype=b.dtype)),
    }
    kw = {} if executor is None else {"executor": executor}
    got = cubed.compute(*out.values(), **kw)
    return {k: np.asarray(v.to_device("cpu")).tolist() for k, v in zip(out, got)}


def _data():
    h = np.random.default_rng(3).standard_normal((120, 80))
    h[::7, 3] = np.nan
    h[:, 5] = np.nan
    return h


def _expected():
    h = _data()
    b = np.nan_to_num(h)
    return {"nansum": np.nansum(h, axis=0), "mean": b.mean(axis=1), "var": b.var(axis=0, ddof=1),
            "matmul": (b @ b.T).sum(axis=0), "doubled": np.sum(b * 2)}


def dtype_spellings(work_dir, device):
    """Cubed hands a user's dtype to numr unchanged: the namespace's dtype computes, a
    NumPy spelling of it gets numr's TypeError naming the dtype to pass."""
    import cubed
    import cubed.array_api as cx

    spec = cubed.Spec(work_dir=work_dir, allowed_mem="200MB")
    out = {"int64": np.asarray(cx.arange(10, dtype=cx.int64, chunks=(2,), spec=spec)
                               .compute().to_device("cpu")).tolist(),
           "is_numr": cx.int64 is numr.int64}
    for name, spelled in (("str", "int64"), ("numpy_type", np.int64)):
        try:
            cx.arange(10, dtype=spelled, chunks=(2,), spec=spec).compute()
            out[name] = None
        except TypeError as e:
            out[name] = str(e)
    return out


def _run(mode, device, tmp_path, timeout=120, **env):
    # the checkout first, then whatever path the parent had (packages installed with --target)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "CUBED_BACKEND_ARRAY_API_MODULE": "numr", "NUMR_DEVICE": device,
           "PYTHONPATH": path, **env}
    code = f"from tests.test_cubed import main; main({mode!r}, {device!r}, {str(tmp_path)!r})"
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr[-4000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(mode, device, work_dir):
    """Subprocess entry: print the computations' results as JSON on the last line."""
    if mode == "dtypes":
        print(json.dumps(dtype_spellings(work_dir, device)))
        return
    if mode == "distributed":
        from cubed.runtime.executors.dask import DaskExecutor
        from distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            ex = DaskExecutor(compute_kwargs={"address": cluster.scheduler_address})
            print(json.dumps(computations(work_dir, device, ex)))
        return
    print(json.dumps(computations(work_dir, device)))


def _compare(got):
    for k, want in _expected().items():
        np.testing.assert_allclose(np.asarray(got[k]), want, rtol=1e-10, err_msg=k)


@needs_cubed
def test_cubed_computes_with_numr_chunks_on_the_device(device, tmp_path):
    if device.kind == "cuda" and os.environ.get("NUMR_TEST_EMULATE_GPU") == "1":
        pytest.skip("the emulated cuda:0 (NUMR_TEST_EMULATE_GPU) exists only in the test "
                    "process, not in the subprocess that runs Cubed")
    # GPU chunks reach Zarr through np.asarray, which needs the opt-in (numr refuses it
    # by default: test_array_protocol_copies_off_the_device_only_on_request)
    env = {} if device.kind == "cpu" else {"NUMR_IMPLICIT_HOST_COPY": "1"}
    _compare(_run("local", str(device), tmp_path, **env))


@pytest.mark.ci_must_run  # .ci/run installs the [cubed] extra
@needs_cubed
@pytest.mark.skipif(not HAVE_DISTRIBUTED, reason="distributed is not installed "
                    "(pip install -e '.[cubed]')")
def test_cubed_on_a_dask_distributed_cluster_of_two_processes(tmp_path):
    _compare(_run("distributed", "cpu", tmp_path, timeout=180))


def test_full_like_takes_numpys_shape_keyword(device):
    # Cubed's map_overlap pads chunks with full_like(x, value, shape=...)
    x = numr.ones((2, 3), dtype=numr.int8, device=device)
    y = numr.full_like(x, 5, shape=(4, 1))
    assert y.dtype is numr.int8 and y.device == device
    assert to_np(y).tolist() == np.full_like(to_np(x), 5, shape=(4, 1)).tolist()
    assert numr.full_like(x, 2.5, dtype=numr.float32, shape=3).shape == (3,)
    with pytest.raises(ValueError, match="full_like: shape"):
        numr.full_like(x, 1, shape=(-1,))
    with pytest.raises(OverflowError, match="full_like"):
        numr.full_like(x, 1000, shape=(2,))


def test_squeeze_without_axis_removes_every_size_one_axis(device):
    # Cubed's groupby calls squeeze(by) with NumPy's default axis=None
    h = np.arange(6.0).reshape(1, 3, 1, 2)
    x = numr.asarray(h, device=device)
    assert to_np(numr.squeeze(x)).tolist() == np.squeeze(h).tolist()
    assert numr.squeeze(numr.ones((1, 1), device=device)).shape == ()
    assert numr.squeeze(numr.ones((2, 3), device=device)).shape == (2, 3)
    with pytest.raises(ValueError, match="squeeze: axis 1 has size 3"):
        numr.squeeze(x, axis=1)


def test_dtype_spellings_stay_refused_naming_the_dtype_to_pass(device):
    # The decision (docs/larger-than-memory.md, numr._dtypes.spelling_hint): NumPy's
    # spellings of a dtype, its name or its scalar type, stay TypeErrors as everywhere in
    # numr (tests/test_bad_input.py); the message names numr's dtype.
    for spelled, name in (("int64", "int64"), (np.uint8, "uint8"), (np.bool_, "bool"),
                          ("float32", "float32")):
        with pytest.raises(TypeError, match=rf"ones: dtype must be .* \(pass numr\.{name}:"):
            numr.ones(2, dtype=spelled, device=device)
        with pytest.raises(TypeError, match=rf"astype: dtype .* \(pass numr\.{name}:"):
            numr.astype(numr.ones(2, device=device), spelled)
        want = np.ones(2, dtype=name)
        got = to_np(numr.ones(2, dtype=getattr(numr, name), device=device))
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
    with pytest.raises(TypeError) as e:  # no numr dtype of that name: no hint
        numr.ones(2, dtype="f8", device=device)
    assert "pass numr." not in str(e.value)


@needs_cubed
def test_cubed_hands_the_users_dtype_to_numr(device, tmp_path):
    if device.kind == "cuda" and os.environ.get("NUMR_TEST_EMULATE_GPU") == "1":
        pytest.skip("the emulated cuda:0 (NUMR_TEST_EMULATE_GPU) exists only in the test "
                    "process, not in the subprocess that runs Cubed")
    env = {} if device.kind == "cpu" else {"NUMR_IMPLICIT_HOST_COPY": "1"}
    got = _run("dtypes", str(device), tmp_path, **env)
    assert got["is_numr"] and got["int64"] == np.arange(10).tolist()
    for name in ("str", "numpy_type"):
        assert got[name] is not None and "arange: dtype must be a numr dtype" in got[name]
        assert "(pass numr.int64:" in got[name], got[name]


def test_mean_takes_numpys_dtype_keyword(device):
    # Cubed's var and std call mean(chunk, dtype=...) on their backend
    h = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    x = numr.asarray(h, device=device)
    f = numr.float64 if numr.float64 in device.dtypes else numr.float32
    m = numr.mean(x, axis=1, dtype=f)
    assert m.dtype is f and m.device == device
    np.testing.assert_allclose(to_np(m), h.astype(f.name).mean(axis=1), rtol=1e-6)
    i = numr.mean(numr.asarray([1, 2, 4], device=device), dtype=numr.float32)
    assert i.dtype is numr.float32 and float(i) == np.mean([1, 2, 4], dtype=np.float32)
    with pytest.raises(TypeError, match="mean: dtype must be a floating-point dtype"):
        numr.mean(x, dtype=numr.int32)
    with pytest.raises(TypeError, match="mean: dtype must be a numr dtype"):
        numr.mean(x, dtype="float32")


def test_take_takes_a_python_int_index(device):
    # Cubed's var and std combine partial results with take(x, 0, axis=a)
    h = np.arange(24.0).reshape(2, 3, 4)
    x = numr.asarray(h, device=device)
    for i, axis in ((0, 0), (2, 1), (-1, 2), (-3, 1)):
        got = numr.take(x, i, axis=axis)
        assert got.device == device
        assert to_np(got).tolist() == np.take(h, i, axis=axis).tolist()
    assert float(numr.take(numr.asarray([5.0, 6.0], device=device), 1)) == 6.0
    with pytest.raises(IndexError, match="take: index 3 is out of bounds for axis 1"):
        numr.take(x, 3, axis=1)
    with pytest.raises(ValueError, match="take: axis is required"):
        numr.take(x, 0)
