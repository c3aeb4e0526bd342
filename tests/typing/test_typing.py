"""mypy and pyright, in strict mode, accept ordinary user code (sample.py) and see numr's
types (wrong.py's errors)."""

import json
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


@pytest.mark.ci_must_run
def test_pyright_accepts_the_sample_and_rejects_wrong_code(tmp_path):
    pytest.importorskip("pyright", reason="pyright is not installed (pip install -e '.[test]')")
    # strict mode, numr read from this checkout as a compat editable install exposes it
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({
        "typeCheckingMode": "strict", "pythonVersion": "3.11",
        "extraPaths": [str(HERE.parent.parent)]}))
    r = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "-p", str(tmp_path / "pyrightconfig.json"),
         str(HERE / "sample.py"), str(HERE / "wrong.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.stdout.startswith("{"), r.stdout + r.stderr  # pyright ran (node found or fetched)
    errors = [d for d in json.loads(r.stdout)["generalDiagnostics"] if d["severity"] == "error"]
    in_sample = [d for d in errors if d["file"].endswith("sample.py")]
    assert not in_sample, json.dumps(in_sample, indent=1)
    # pyright numbers lines from 0; wrong.py's errors are on its lines 6 and 7
    wrong = sorted({d["range"]["start"]["line"] + 1 for d in errors if d["file"].endswith("wrong.py")})
    assert wrong == [6, 7], json.dumps(errors, indent=1)


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
