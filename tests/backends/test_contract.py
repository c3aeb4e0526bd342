"""The backend contract: every device's ops cover every function of the namespace."""

import numr

# Namespace functions that decide everything from dtypes and shapes (no data to touch),
# or reach a device through other ops (asarray uses from_host).
NO_OP = {"asarray", "broadcast_shapes", "can_cast", "isdtype", "result_type",
         "set_default_device",
         # numr's device and I/O extensions: backend methods (device_name, memory_info,
         # empty_cache) or the sync/to_host/from_host ops, not ops of their own
         "default_device", "synchronize", "memory_info", "empty_cache", "save", "load",
         # composed above the backends from other functions (numr/_nan.py)
         "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanmedian", "nanargmin",
         "nanargmax"}
CORE = {"from_host", "to_host", "astype", "getitem", "getslice", "setitem", "assign", "writable",
        "dlpack", "dlpack_device", "from_dlpack", "scalar", "sync", "finfo", "iinfo"}


def _functions(module):
    return [n for n in module.__all__ if callable(getattr(module, n))
            and not isinstance(getattr(module, n), type)]


def test_every_function_has_an_op(device):
    ops = device.ops
    main = [n for n in dir(numr) if not n.startswith("_") and callable(getattr(numr, n))
            and not isinstance(getattr(numr, n), type) and n not in NO_OP]
    missing = [n for n in main if not hasattr(ops, n)]
    missing += [f"linalg.{n}" for n in _functions(numr.linalg)
                if not hasattr(ops, "linalg_" + n) and not hasattr(ops, n)]
    missing += [f"fft.{n}" for n in _functions(numr.fft) if not hasattr(ops, "fft_" + n)]
    missing += [n for n in CORE if not hasattr(ops, n)]
    assert not missing, f"{device} has no op for {missing}"
    assert len(main) > 120  # the walk saw the namespace
