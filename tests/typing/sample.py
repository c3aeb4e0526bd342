"""Ordinary user code, type-checked by mypy and pyright in tests/typing/test_typing.py (it also
runs)."""

from __future__ import annotations

import numr
import numr.fft
import numr.linalg
import numr.special
import numr.autograd as ag
from numr import Array


def normalize(x: Array, axis: int = -1) -> Array:
    mean = numr.mean(x, axis=axis, keepdims=True)
    std = numr.std(x, axis=axis, keepdims=True, correction=1)
    return (x - mean) / std


def devices(path: str) -> list[float]:
    dev = numr.Device("cpu")
    with numr.default_device(dev):
        x = numr.ones(4)
    numr.synchronize(dev)
    used = numr.memory_info(dev)["in_use"]
    numr.empty_cache()
    numr.save(path, x)
    y = numr.load(path, device=dev)
    values: list[float] = y.tolist()
    assert used is None or used >= 0
    return values + [float(y[0].item()), float(len(dev.name) > 0)]


def train(steps: int) -> float:
    w = ag.Var(numr.ones((3, 2)), requires_grad=True)
    x = numr.ones((4, 3))
    loss = ag.sum(ag.tanh(x @ w) ** 2)
    for _ in range(steps):
        loss = ag.sum(ag.tanh(x @ w) ** 2) + 0.5 * ag.mean(w * w)
        loss.backward()
        with ag.no_grad():
            w -= 0.1 * w.grad
        w.zero_grad()
    g = ag.grad(lambda v: ag.sum(ag.sin(v) * v))(numr.linspace(0, 1, 5))
    # autograd's functions take Vars and Arrays together and give Vars (its stubs)
    both = ag.concat([w, x[:3, :2]], axis=0)
    assert isinstance(both.device, ag.Device) and ag.sum(both).shape == ()
    assert ag.special.erf(ag.sum(both)).shape == ()
    return float(loss) + float(numr.sum(g))


def main() -> float:
    # creation
    x = numr.linspace(0.0, 1.0, 12, dtype=numr.float32)
    a = numr.reshape(x, (3, 4))
    w = numr.ones((4, 2), dtype=numr.float32)
    eye = numr.eye(3, dtype=numr.float64)
    ints = numr.arange(10)
    z = numr.zeros_like(a)
    f = numr.full((2, 2), 3.5)

    # arithmetic, operators both ways, elementwise functions
    b = 2.0 * a + 1.0
    c = 1.0 - a / 3.0
    mask = 2.0 < a
    mask2 = a >= 0.5
    both = mask & mask2
    h = a @ w
    g = numr.tanh(a) + numr.exp(-a) ** 2
    i = ints % 3 + (ints << 1)
    z += 1
    d = numr.where(both, b, c)
    m = numr.maximum(a, 0.25)
    e = abs(-a)

    # reductions and statistics
    total = numr.sum(d)
    s_ax = numr.max(g, axis=1)
    am = numr.argmax(a, axis=0)
    anyb = numr.any(mask)
    nrm = normalize(a)

    # linalg and fft
    inv = numr.linalg.inv(eye + 1.0)
    sol = numr.linalg.solve(eye, numr.ones(3, dtype=numr.float64))
    fro = numr.linalg.matrix_norm(h)
    spec = numr.fft.rfft(x)
    power = numr.abs(spec) ** 2
    erfs = numr.special.erf(a) + numr.special.gammainc(2.0, a)

    # indexing
    row = a[0]
    col = a[:, 1]
    sub = a[1:, ::2]
    picked = a[mask]
    a[0, 0] = 7.0
    first = float(a[0, 0])
    t = numr.take(ints, numr.asarray([1, 2, 3]))

    shapes = [b.shape, h.shape, i.shape, f.shape, m.shape, e.shape, s_ax.shape, am.shape,
              inv.shape, sol.shape, power.shape, row.shape, col.shape, sub.shape,
              picked.shape, t.shape, nrm.shape, z.shape, erfs.shape]
    assert all(len(s) >= 0 for s in shapes)
    return float(total) + float(fro) + first + float(anyb) + a.dtype.itemsize * 0


if __name__ == "__main__":
    import tempfile

    print(main(), devices(tempfile.mkdtemp() + "/x.npy"))
