"""Run the official Array API test suite (data-apis/array-api-tests) against numr.

    python conformance/run.py /path/to/array-api-tests --device cpu --max-examples 200
    python conformance/run.py SUITE --device webgpu -- -k test_add   # extra pytest args

The suite runs on the chosen device (``NUMR_DEVICE``) with ``ARRAY_API_TESTS_MODULE=numr``,
in parallel through pytest-xdist where it is installed. Known failures of a device kind
are listed in ``conformance/xfails-<kind>.txt``, one ``<test id>  # <reason>`` a line;
the suite's ``--xfails-file`` takes bare ids, so a stripped copy is handed to it.

A run of the whole suite writes its counts into ``conformance/RESULTS.md``, one row per
device, replacing that device's previous row (``--no-record`` skips this; a run with
extra pytest arguments is a partial run and is recorded only with ``--record``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
COLUMNS = ("device", "passed", "failed", "xfailed", "xpassed", "skipped", "suite commit",
           "max examples", "numr commit", "date", "machine")


class XfailsError(ValueError):
    pass


def read_xfails(path: Path) -> list[str]:
    """The test ids of an xfails file; every entry must give its reason after ``#``.

    Blank lines and lines that start with ``#`` (comments) are ignored.
    """
    if not path.exists():
        return []
    ids = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        test_id, sep, reason = text.partition("#")
        test_id, reason = test_id.strip(), reason.strip()
        if not sep or not reason:
            raise XfailsError(f"{path}:{n}: an xfail needs a reason: '<test id>  # <reason>', "
                              f"got {line!r}")
        if not test_id or any(ch.isspace() for ch in test_id):
            raise XfailsError(f"{path}:{n}: expected one test id before '#', got {test_id!r}")
        ids.append(test_id)
    return ids


def suite_commit(suite: Path) -> str:
    """The suite checkout's commit; "unknown" for a copy without its own .git (git would
    answer with the commit of a repository around it: numr's, for a copy inside numr)."""
    try:
        git = ["git", "-C", str(suite), "rev-parse"]
        top = subprocess.run(git + ["--show-toplevel"], check=True, capture_output=True,
                             text=True).stdout.strip()
        if Path(top).resolve() != suite.resolve():
            return "unknown"
        out = subprocess.run(git + ["HEAD"], check=True, capture_output=True, text=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine(device: str) -> str:
    desc = f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python " \
           f"{platform.python_version()}"
    if device.startswith("cuda"):
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=30)
            names = sorted(set(out.stdout.split("\n")) - {""})
            if names:
                desc += ", " + "/".join(names)
        except (OSError, subprocess.SubprocessError):
            pass
    return desc


_COUNT = re.compile(r"(\d+) (passed|failed|xfailed|xpassed|skipped|errors?|deselected)\b")


def parse_counts(summary: str) -> dict[str, int]:
    """Counts from pytest's last summary line ("3 failed, 120 passed, 2 skipped in 9s")."""
    counts = dict.fromkeys(("passed", "failed", "xfailed", "xpassed", "skipped", "error"), 0)
    for n, what in _COUNT.findall(summary):
        what = "error" if what.startswith("error") else what
        if what in counts:
            counts[what] += int(n)
    return counts


# The page is a short current one (issue 24): the table and what it needs to be read;
# the runs' stories (failures found, their fixes) are in its git history.
INTRO = (
    "Counts of the official Array API test suite (data-apis/array-api-tests) run against "
    "numr, one row per device, written by `conformance/run.py` ([README.md](README.md)); "
    "`failed` includes errors. The xfails, each with its reason, are listed in "
    "`conformance/xfails-<device>.txt`. Rows written before the `numr commit` column name "
    "the commit that recorded them; earlier runs, the failures they found and their fixes: "
    "`git log -p conformance/RESULTS.md`.")


# The consumers' suites (issue 19) are run by hand (/work/shared/peers/run_peers.sh, see
# README.md), not by this script: their section of the page is carried through as written.
CONSUMERS = "## Consumers' suites on numr"


def record(row: dict[str, str]) -> None:
    """Write RESULTS.md with ``row`` in place of the row of the same device."""
    rows: list[list[str]] = []
    tail: list[str] = []
    if RESULTS.exists():
        text = RESULTS.read_text()
        at = text.find(CONSUMERS)
        if at >= 0:
            text, tail = text[:at], text[at:].rstrip("\n").splitlines()
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("|") and len(cells) == len(COLUMNS) and cells[0] not in \
                    ("device", "") and not set(cells[0]) <= set("-: "):
                rows.append(cells)
    rows = [r for r in rows if r[0] != row["device"]] + [[row[c] for c in COLUMNS]]
    rows.sort(key=lambda r: r[0])
    lines = ["# Conformance results", INTRO, "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += tail
    RESULTS.write_text("\n".join(lines) + "\n")


def has_xdist() -> bool:
    try:
        import xdist  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("suite", type=Path, help="checkout of data-apis/array-api-tests")
    p.add_argument("--device", default="cpu", help="cpu, cuda[:N] or webgpu[:N] (default cpu)")
    p.add_argument("--module", default="numr", choices=["numr", "numr.autograd"],
                   help="the namespace under test: numr, or the differentiable one")
    p.add_argument("--max-examples", type=int, default=100, help="Hypothesis examples per test")
    p.add_argument("--workers", default="auto",
                   help="pytest-xdist workers ('auto', a number, or 0 for none)")
    p.add_argument("--deadline", action="store_true",
                   help="keep Hypothesis' deadline (off by default: time is not conformance)")
    p.add_argument("--xfails", type=Path, default=None,
                   help="xfails file (default conformance/xfails-<kind>.txt)")
    rec = p.add_mutually_exclusive_group()
    rec.add_argument("--record", action="store_true", help="write RESULTS.md even for a partial run")
    rec.add_argument("--no-record", action="store_true", help="do not write RESULTS.md")
    args = p.parse_args(argv)

    suite = args.suite.resolve()
    if not (suite / "array_api_tests").is_dir():
        p.error(f"{suite} is not a checkout of array-api-tests (no array_api_tests/ folder)")
    if not any((suite / "array-api").glob("*")):
        p.error(f"{suite / 'array-api'} is empty: check out data-apis/array-api there "
                f"(see conformance/README.md)")
    kind = args.device.split(":")[0]
    xfails = args.xfails or HERE / f"xfails-{kind}.txt"
    try:
        ids = read_xfails(xfails)
    except XfailsError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2

    env = dict(os.environ)
    env["NUMR_DEVICE"] = args.device
    env["ARRAY_API_TESTS_MODULE"] = args.module
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))

    with tempfile.NamedTemporaryFile("w", suffix=".txt", prefix=f"xfails-{kind}-",
                                     delete=False) as tmp:
        tmp.write("".join(f"{i}\n" for i in ids))
    # The whole suite, unless the extra arguments name tests of their own.
    where = [] if any(a.startswith("array_api_tests") for a in extra) else ["array_api_tests/"]
    cmd = [sys.executable, "-m", "pytest", *where, "-p", "no:cacheprovider",
           "--max-examples", str(args.max_examples), "--xfails-file", tmp.name, "-q", "-rfE"]
    if not args.deadline:
        cmd.append("--disable-deadline")
    if args.workers != "0" and has_xdist():
        cmd += ["-n", args.workers]
    cmd += extra
    print("run.py:", " ".join(cmd), f"(in {suite}; NUMR_DEVICE={args.device})", flush=True)

    last = ""
    try:
        proc = subprocess.Popen(cmd, cwd=suite, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, bufsize=1)
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            if _COUNT.search(line):
                last = line
        rc = proc.wait()
    finally:
        os.unlink(tmp.name)

    counts = parse_counts(last)
    # One row per (device, namespace): numr.autograd's rows say so.
    label = args.device if args.module == "numr" else f"{args.device} ({args.module})"
    print(f"run.py: device {label}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    partial = bool(extra)
    if rc in (0, 1) and not args.no_record and (args.record or not partial):
        record({
            "device": label,
            "passed": str(counts["passed"]),
            "failed": str(counts["failed"] + counts["error"]),
            "xfailed": str(counts["xfailed"]),
            "xpassed": str(counts["xpassed"]),
            "skipped": str(counts["skipped"]),
            "suite commit": suite_commit(suite)[:12],
            "max examples": str(args.max_examples),
            "numr commit": suite_commit(ROOT)[:7],
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(args.device) + (f"; pytest args: {' '.join(extra)}" if partial else ""),
        })
        print(f"run.py: wrote {RESULTS.relative_to(ROOT)}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
