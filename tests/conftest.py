"""One device fixture: every array test runs on every device kind numr knows.

Devices that this machine lacks are skipped with the reason (no GPU in CI); run the
suite on a GPU machine to exercise them.
"""

import os

import pytest

from numr import backends
from numr.backends import load_backend
from numr._devices import get_device


def _emulate_gpu():
    """NUMR_TEST_EMULATE_GPU=1: serve 'cuda:0' with the NumPy backend, so that code which
    quietly puts data on the default device, or converts through NumPy, fails on a
    machine without a GPU (arrays on a non-CPU device refuse implicit conversion)."""
    from numr.backends.numpy import NumpyBackend

    class Emulated(NumpyBackend):
        kind = "cuda"

    backends._loaded["cuda"] = Emulated()


if os.environ.get("NUMR_TEST_EMULATE_GPU") == "1":
    _emulate_gpu()

# The first device of every kind the registry knows (cpu, cuda:0, webgpu:0).
_CANDIDATES = [backends.device_name(kind, 0) for kind in backends.KINDS]


def _available(spec):
    kind = spec.split(":")[0]
    backend = load_backend(kind)
    if backend is None:
        return f"no {kind} backend on this machine (package or hardware missing)"
    return None


# The one marker for what only WebGPU has (its kernels, planner, runtime, WGSL accuracy):
# such a test is collected for webgpu:0 alone and skips with the reason where this machine
# has no adapter. `-m webgpu_only` selects them; tests/backends/webgpu/ marks its modules.
WEBGPU_ONLY = "webgpu_only"


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker(WEBGPU_ONLY) is not None
        metafunc.parametrize("device", ["webgpu:0"] if only else _CANDIDATES, indirect=True)


def pytest_runtest_setup(item):
    if item.get_closest_marker(WEBGPU_ONLY) is not None:
        reason = _available("webgpu:0")
        if reason is not None:
            pytest.skip(reason)


@pytest.fixture
def device(request):
    reason = _available(request.param)
    if reason is not None:
        pytest.skip(reason)
    return get_device(request.param)


# NUMR_TEST_REQUIRE=1 (set by .ci/run): a test marked ci_must_run fails instead of
# skipping, so that CI cannot pass with a dependency of [test] missing (mpmath, mypy,
# mkdocs) and the tests that need it skipped silently.
_REQUIRE = os.environ.get("NUMR_TEST_REQUIRE") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if _REQUIRE and report.skipped and item.get_closest_marker("ci_must_run") is not None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"{item.nodeid} must run in CI (NUMR_TEST_REQUIRE=1) but skipped: {reason}"
