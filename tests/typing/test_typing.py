"""mypy, in strict mode, accepts ordinary user code (sample.py) and sees numr's types."""

import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.ci_must_run
def test_mypy_accepts_the_sample_and_rejects_wrong_code(tmp_path):
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]')")
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(HERE / "mypy.ini"),
         "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
         str(HERE / "sample.py"), str(HERE / "wrong.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    lines = [ln for ln in r.stdout.splitlines() if ": error:" in ln]
    in_sample = [ln for ln in lines if "sample.py" in ln]
    assert not in_sample, "\n".join(in_sample)
    wrong = sorted(int(ln.split(":")[1]) for ln in lines if "wrong.py" in ln)
    assert wrong == [6, 7], r.stdout + r.stderr


def test_the_sample_runs(device, tmp_path):
    import numr

    previous = numr.set_default_device(device)
    try:
        sys.path.insert(0, str(HERE))
        import sample

        assert sample.main() > 0
        assert sample.devices(str(tmp_path / "x.npy")) == [1.0] * 6
        assert sample.train(2) > 0
    finally:
        sys.path.remove(str(HERE))
        numr.set_default_device(previous)
