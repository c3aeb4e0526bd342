"""The benchmarks' result page (benchmarks/RESULTS.md) and its figures, written by the
benchmark scripts themselves, so nobody edits the page by hand.

A script adds the flag and wraps its run::

    from benchmarks import _results
    _results.add_flag(parser)                        # --write-results, --machine
    with _results.record(args, "overhead", args.device):
        run(...)                                     # prints its markdown tables

or, without indenting the run, ``rec = _results.start(args, ...)`` first and
``rec.finish()`` last.

Everything the run prints still goes to the terminal. With ``--write-results`` the
markdown tables it printed (and its ``# `` comment lines, which say what was measured
on what) replace that script's block for that device and machine in RESULTS.md: a
heading ``### <script> · <device> · <machine>``, the command and its notes on one line,
then the tables, each row ending in the numr commit, the date and the machine (columns
that no row fills are dropped). Other scripts' and other devices' blocks stay.
A script that prints no markdown table gives its rows through ``rec.table(header, rows)``;
``keep=`` chooses the rows that go to the page. The page is a short current one (with
conformance/RESULTS.md at most about 150 lines): what a script measures is its
docstring's first paragraph, shown on docs/benchmarks.md, and history is in git.

Figures: each block whose tables have a ratio column (a header with "ratio", " / " or
"vs") is drawn as bars of that ratio per row, a line at 1 (the anchor), into
``docs/img/bench-<script>-<device>.png``; docs/benchmarks.md shows them. Drawing needs
matplotlib, an optional dependency (``pip install ".[bench]"``); without it the page is
still written and the figures are left as they were. ``python benchmarks/_results.py``
redraws every figure and docs/benchmarks.md from RESULTS.md.
"""

from __future__ import annotations

import ast
import contextlib
import datetime
import io
import os
import pathlib
import platform
import re
import subprocess
import sys
from typing import Iterator

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "benchmarks" / "RESULTS.md"
FIGURES = ROOT / "docs" / "img"
DOCS_PAGE = ROOT / "docs" / "benchmarks.md"
STAMP = ("commit", "date", "machine")

HEADER = """# Benchmark results
Written by `python benchmarks/<script>.py ... --write-results` (`benchmarks/_results.py`): \
a table per script, device and machine, each row with the numr commit measured, the date \
and the machine; do not edit by hand. What each script measures, and figures: \
[docs/benchmarks.md](../docs/benchmarks.md); earlier figures: `git log -p benchmarks/RESULTS.md`.
"""
# The page's budget in lines (with conformance/RESULTS.md's dozen, about 150 in all).
BUDGET = 135


# --- the page: blocks, grouped by script ----------------------------------------------------

def parse(text: str) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """[(script, [(block key, block lines)])] of a results page, the blocks of one script
    together; the header before the first ``### `` is the module's own and is not kept."""
    sections: list[tuple[str, list[tuple[str, list[str]]]]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("### "):
            key = line[4:].strip()
            script = key.split(" · ")[0]
            blocks = next((b for name, b in sections if name == script), None)
            if blocks is None:
                blocks = []
                sections.append((script, blocks))
            current = []
            blocks.append((key, current))
        elif current is not None:
            current.append(line)
    return sections


def render(sections) -> str:
    out = [HEADER.rstrip("\n")]
    for _, blocks in sections:
        for key, lines in blocks:
            body = list(lines)
            while body and not body[-1].strip():
                body.pop()
            while body and not body[0].strip():
                body.pop(0)
            out += ["", f"### {key}", *body]
    return "\n".join(out) + "\n"


def replace_block(text: str, script: str, device: str, lines: list[str]) -> str:
    """``text`` with the block ``script · device`` replaced by ``lines`` (added after the
    script's other blocks, or at the end, where there is none yet)."""
    sections = parse(text)
    key = f"{script} · {device}"
    for name, blocks in sections:
        if name == script:
            for j, (k, _) in enumerate(blocks):
                if k == key:
                    blocks[j] = (key, lines)
                    break
            else:
                blocks.append((key, lines))
            break
    else:
        sections.append((script, [(key, lines)]))
    return render(sections)


def title(script: str) -> str:
    """What ``script`` measures: the first paragraph of its docstring."""
    path = ROOT / "benchmarks" / f"{script}.py"
    doc = ast.get_docstring(ast.parse(path.read_text())) if path.exists() else None
    return " ".join((doc or script).split("\n\n")[0].split())


def tables(lines: list[str]) -> list[list[list[str]]]:
    """The markdown tables among ``lines``: each a list of rows of cells, the header
    first (the separator row dropped)."""
    found, current = [], []
    for line in lines + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


# --- recording a run ------------------------------------------------------------------------

def add_flag(parser) -> None:
    parser.add_argument("--write-results", action="store_true",
                        help="replace this script's block for this device in "
                             "benchmarks/RESULTS.md (and redraw its figure)")
    parser.add_argument("--machine", default=None,
                        help="the machine's name in RESULTS.md (default: the device's "
                             "name, or the CPU's core count and architecture)")


def commit() -> str:
    """numr's commit, short, with ``+`` where the work tree differs from it."""
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", "numr")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (head or "unknown") + ("+" if dirty else "")


def machine(device: str, given: str | None = None) -> str:
    if given:
        return given
    cpu = f"{os.cpu_count()}-core {platform.machine()}"
    if device.split(":")[0] in ("cuda", "webgpu"):
        try:
            import numr

            name = numr.Device(device if ":" in device else device + ":0").name
            return f"{name}, {cpu}"
        except Exception:  # the device is gone: the CPU alone still says something
            return cpu
    return cpu


class Run:
    """One recorded run: what it prints is kept (and still printed) until ``finish()``."""

    def __init__(self, args, script: str, device: str | None, keep=None):
        # a block per device kind where one device of it was measured ("webgpu:0": webgpu)
        device = str(device or "cpu")
        self.args, self.script = args, script
        self.device = device[:-2] if device.endswith(":0") else device
        self.keep = keep
        self.extra: list[list[list[str]]] = []
        self.on = bool(getattr(args, "write_results", False))
        self._tee = None
        if self.on:
            self._tee = _Tee(sys.stdout)
            self._stdout, sys.stdout = sys.stdout, self._tee

    def table(self, header: list[str], rows: list[list[object]]) -> None:
        """A table for scripts that do not print theirs as markdown (cells are str()-ed)."""
        self.extra.append([list(map(str, header))] + [list(map(str, r)) for r in rows])

    def finish(self) -> None:
        """Write the run's block into RESULTS.md (with ``--write-results``) and redraw."""
        if not self.on or self._tee is None:
            return
        sys.stdout, printed, self._tee = self._stdout, self._tee.buf.getvalue(), None
        stamp = (commit(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                 machine(self.device, getattr(self.args, "machine", None)))
        found = [_kept(t, self.keep) for t in tables(printed.splitlines()) + self.extra]
        lines = block_lines(self.script, printed, [t for t in found if len(t) > 1], stamp)
        if len(lines) == 1:
            print(f"_results: {self.script} printed no table; RESULTS.md left as it was")
            return
        old = PAGE.read_text() if PAGE.exists() else ""
        # a block per script, device and machine: lavapipe's webgpu figures do not replace
        # the H200's
        where = f"{self.device} · {stamp[2]}"
        PAGE.write_text(replace_block(old, self.script, where, lines))
        n = len(PAGE.read_text().splitlines())
        print(f"_results: wrote {self.script} · {where} in {PAGE.relative_to(ROOT)} "
              f"({n} lines" + (f"; the page's budget is {BUDGET}: keep fewer rows)"
                               if n > BUDGET else ")"))
        draw_all()


def _kept(table: list[list[str]], keep) -> list[list[str]]:
    if keep is None:
        return table
    return [table[0]] + [r for r in table[1:] if keep(table[0], r)]


class _Tee(io.TextIOBase):
    def __init__(self, out):
        self.out, self.buf = out, io.StringIO()

    def write(self, s: str) -> int:
        self.buf.write(s)
        return self.out.write(s)

    def flush(self) -> None:
        self.out.flush()


def _command(script: str) -> str:
    args = [a for a in sys.argv[1:] if a != "--write-results"]
    return " ".join([f"python benchmarks/{script}.py", *args])


def block_lines(script: str, printed: str, found, stamp: tuple[str, str, str]) -> list[str]:
    """A block from what a run printed: its command, its ``# `` comment lines, and its
    tables (``found``) with the commit, date and machine columns."""
    notes = [ln[2:].strip() for ln in printed.splitlines() if ln.startswith("# ")]
    out = [f"`{_command(script)}`" + (": " + "; ".join(notes) if notes else "")]
    for t in map(filled, found):
        out += ["", "| " + " | ".join(t[0] + list(STAMP)) + " |",
                "|" + "---|" * (len(t[0]) + len(STAMP))]
        out += ["| " + " | ".join(r + list(stamp)) + " |" for r in t[1:]]
    return out


def filled(table: list[list[str]]) -> list[list[str]]:
    """``table`` without the columns that no row fills (a run that skipped a measure:
    the page stays narrow)."""
    keep = [i for i in range(len(table[0])) if any(i < len(r) and r[i] for r in table[1:])]
    return [[r[i] if i < len(r) else "" for i in keep] for r in table]


def start(args, script: str, device: str | None, keep=None) -> Run:
    """Start recording a run (call ``.finish()`` at its end). ``keep(header, row)``: which
    printed rows go to the page (default all; the terminal gets every row)."""
    return Run(args, script, device, keep)


@contextlib.contextmanager
def record(args, script: str, device: str | None, keep=None) -> Iterator[Run]:
    """``start`` ... ``finish`` around a block (nothing is written if it raises)."""
    run = start(args, script, device, keep)
    try:
        yield run
    except BaseException:
        if run._tee is not None:
            sys.stdout, run._tee = run._stdout, None
        raise
    run.finish()


# --- figures --------------------------------------------------------------------------------

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
# a measured value (a time, a rate, a share): where a row's label ends
_MEASURE = re.compile(r"\d\s*(?:[µmn]?s|GB/s|TFLOP/s|%|[KMG]iB)\b|^[-+]?\d+(?:\.\d+)?$")


def _ratio_columns(header: list[str]) -> list[int]:
    return [i for i, h in enumerate(header)
            if h not in STAMP and re.search(r"ratio|\S / \S|\bvs\b", h)]


def series(block: list[str]) -> list[tuple[str, list[tuple[str, float]]]]:
    """[(ratio column, [(row label, ratio)])] of a block's tables: the label joins the
    cells before the first measured value; a cell's ratio is its first number."""
    out = []
    for t in tables(block):
        header = t[0]
        for c in _ratio_columns(header):
            points = []
            for row in t[1:]:
                if c >= len(row) or not (m := _NUMBER.search(row[c])):
                    continue
                label = []
                for cell in row[:c]:
                    if label and _MEASURE.search(cell):
                        break
                    label.append(cell.strip("`"))
                if _MEASURE.search(label[0]):  # a table of measures alone: its first header
                    label = [header[0]]
                points.append((" ".join(label[:3]), float(m.group())))
            if points:
                out.append((header[c], points))
    return out


def _slug(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")


def figure_name(key: str) -> str:
    return f"bench-{_slug(key)}.png"


def draw(key: str, block: list[str], path: pathlib.Path) -> bool:
    """Bars of the block's ratios (the anchor at 1); False without matplotlib
    or ratios."""
    data = series(block)
    if not data:
        return False
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = max(len(p) for _, p in data)
    fig, axes = plt.subplots(1, len(data), figsize=(4.2 * len(data) + 2, 0.32 * rows + 1.2),
                             squeeze=False)
    for ax, (column, points) in zip(axes[0], data):
        labels = [p[0] for p in points][::-1]
        values = [p[1] for p in points][::-1]
        ax.barh(range(len(values)), values, color="#4c72b0")
        ax.set_yticks(range(len(values)), labels, fontsize=8)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel(column + " (1 = the anchor)", fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
        for y, v in enumerate(values):
            ax.text(v, y, f" {v:g}", va="center", fontsize=7)
    fig.suptitle(key, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
    return True


def docs_page(sections) -> str:
    """docs/benchmarks.md: what each script measures, the figure of every block that has
    one, then the page's tables."""
    out = ["# Benchmarks", "",
           "<!-- Written by benchmarks/_results.py; do not edit by hand. -->", "",
           "Each script in `benchmarks/` prints its tables and, with `--write-results`, "
           "replaces its block for that device and machine in `benchmarks/RESULTS.md` "
           "(the tables below); `python benchmarks/<script>.py --help` lists its flags. "
           "The figures are the ratios to the anchor of each benchmark (numr's time over "
           "the anchor's, or the ratio the table names; below 1 is faster where the anchor "
           "is a time), drawn from those tables by `benchmarks/_results.py`.", ""]
    for script, blocks in sections:
        out += [f"## {script}", "", title(script), ""]
        for key, lines in blocks:
            if series(lines) and (FIGURES / figure_name(key)).exists():
                out += [f"![{key}](img/{figure_name(key)})", ""]
    out += ["## Tables", "", "{{ include benchmarks/RESULTS.md untitled }}", ""]
    return "\n".join(out)


def draw_all() -> None:
    sections = parse(PAGE.read_text())
    drew = 0
    for _, blocks in sections:
        for key, lines in blocks:
            drew += draw(key, lines, FIGURES / figure_name(key))
    if not drew:
        print("_results: no figure drawn (matplotlib is not installed: pip install "
              "'.[bench]')")
    else:  # the figures of blocks that are gone
        wanted = {figure_name(key) for _, blocks in sections for key, _ in blocks}
        for old in FIGURES.glob("bench-*.png"):
            if old.name not in wanted:
                old.unlink()
    DOCS_PAGE.write_text(docs_page(sections))


if __name__ == "__main__":
    draw_all()
    print(f"_results: drew the figures of {PAGE.relative_to(ROOT)} into "
          f"{FIGURES.relative_to(ROOT)}, wrote {DOCS_PAGE.relative_to(ROOT)}")
