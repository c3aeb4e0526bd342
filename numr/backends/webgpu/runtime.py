"""The WebGPU runtime: adapters, one device and queue per adapter, recorded dispatches,
a size-bucketed buffer pool, pipeline and bind-group caches, pooled read-back.

Work is recorded, not run: every dispatch goes into the device's one pending command
encoder (into one open compute pass) and the encoder is submitted only at a sync point
(a read back to the host, :meth:`Runtime.flush`). Kernel parameters (shapes, strides,
scalars) go into one uniform arena per batch, bound with a dynamic offset, so that a
bind group depends only on the buffers it binds and is reused across dispatches.

Threads and finalizers: every method that reads or changes the recording state (encoder,
pass, parameter slots, pending set, pool, caches) is one *section*: it holds the WebGPU
lock (one re-entrant lock for every device) and runs with the cyclic garbage collector
paused, so neither another thread nor a finalizer that computes on the device (a user's
``__del__`` run by a collection in the middle of recording) can see a half-recorded
dispatch. A finalizer still runs, at the next allocation after the section, between two
of the runtime's calls, where the state is whole.

Errors: a failed submit, read back or bind raises one RuntimeError naming the device and
the step; the batch's pending state is reset, so the next call works, and the blocks
the failed batch wrote are marked lost (reading them, or computing from them, raises
instead of giving a wrong answer). A device found lost says so on every later call.
"""

from __future__ import annotations

import functools
import gc
import os
import struct
import threading
from typing import Any, Callable, Sequence

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # quiets Mesa's warnings on headless hosts

import wgpu  # noqa: E402

from ... import _config  # noqa: E402
from . import native as _native  # noqa: E402
from .pieces import Pieces, piece_bytes, ranges, rewrite  # noqa: E402

# Note: recording a dispatch through wgpu-py's public methods costs three Python-level
# error-capturing wrappers (plus a cffi array per set_bind_group), about half of the
# recording time of a small op. The compute-pass commands report their errors when the
# pass ends / the encoder finishes (which still go through wgpu-py), so numr calls the
# three native functions directly where wgpu-py's wgpu-native backend exposes them,
# and falls back to the public methods otherwise. native.py is the one module that reaches
# below wgpu-py's public API (ffi, lib and the objects' native handles); without them
# the public path is taken: every use below is behind ``_ffi is not None``.
try:
    from .native import ffi as _ffi, handle as _handle, lib as _lib

    _SET_PIPELINE = _lib.wgpuComputePassEncoderSetPipeline
    _SET_BIND_GROUP = _lib.wgpuComputePassEncoderSetBindGroup
    _DISPATCH = _lib.wgpuComputePassEncoderDispatchWorkgroups
except Exception:  # another wgpu-py backend or layout: the public API
    _ffi = None
    # (importable, never called: without ffi a pass has no native pointer)
    _handle = _SET_PIPELINE = _SET_BIND_GROUP = _DISPATCH = None

# Features numr asks for where the adapter has them (dtypes and faster reductions).
WANTED_FEATURES = ("shader-f16", "shader-f64", "shader-int64", "subgroup")

# One slot of the parameter arena: 128 u32 words, room for 3 operands of 30 dimensions
# (and a multiple of every adapter's uniform offset alignment, at most 256).
SLOT_WORDS = 128
SLOT_BYTES = SLOT_WORDS * 4
ARENA_SLOTS = 2048                  # parameter slots (dispatches) of one submitted batch
SUBMIT_EVERY = 128                  # dispatches recorded before a submit (<= ARENA_SLOTS)
# After a sync point (the device idle) the first submit comes sooner: the device starts
# on a long chain of small ops after 64 dispatches instead of idling while Python
# records the whole batch. Later batches hold SUBMIT_EVERY, not more: a submit costs
# the host 70-90 us on the H200 (wgpu-native's), which 128 dispatches amortise, and a
# batch twice as long as the last (as the batches once grew, up to 256) takes the host
# twice as long to record as the device takes to run the last one, so the device
# idled whenever a dispatch's device time was less than twice its host time (numr.nn
# float16 rms norm forward at 4096x4096 on the H200: 26-28 us a call, 20-21 us with
# batches of a constant size; benchmarks/RESULTS.md, ninth session).
FIRST_BATCH = 64
# ... or sooner where the recorded dispatches bind this many bytes (the buffers they read
# and write; doubling each batch, while the count stays capped): an op on large arrays
# keeps the device busy longer than its submit takes on the host, so waiting for 64 of
# them left the device idle while Python recorded them (numr.nn forward on 4096x4096
# float16 on the H200: 37 us a call in a loop of 100 right after a sync, 30 us with a
# submit after the first call). Read bytes count too: a reduction writes almost nothing,
# so counting written bytes alone never submitted a loop of full sums of 16M float32
# before the sync (the H100 idled while Python recorded them: 53 us a call).
FIRST_BYTES = 64 * 2**20
# Free buffers kept for reuse; beyond this the least recently freed are dropped. A fresh
# buffer is expensive (a 1 GiB one cost ~50 ms on the H200: allocation and WebGPU's
# zero fill), so the pool must hold a few of the largest arrays a loop makes; an alloc
# that fails empties the pool and tries again.
POOL_KEEP_BYTES = 4 * 2**30

# Launch plans kept (Runtime.remember) before the cache starts over.
PLANS_KEPT = 8192
# Bind groups kept (one per set of blocks a kernel bound) before the cache starts over: a
# loop whose arrays change buffers from call to call binds new sets until the pool's
# order repeats (an Adam step over 64 parameters: 2658 after 40 steps), or never, and
# each group holds native memory. Dropping one a recorded pass uses is safe: the pass
# holds its own reference (wgpu-core).
BIND_GROUPS_KEPT = 16384

_STORAGE = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
_STAGING = wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST

_adapters: list | None = None
_new = object.__new__

# One lock for every WebGPU device, re-entrant (sections call sections: record -> flush).
# Note: one lock rather than one per device because sections pause the process-wide
# garbage collector (gc.disable), which two sections on two devices in two threads at
# once would turn back on under each other; host work is serialised by the GIL anyway.
_LOCK = threading.RLock()
_acquire, _release = _LOCK.acquire, _LOCK.release
_gc_on, _gc_off, _gc_resume = gc.isenabled, gc.disable, gc.enable


def _section(method):
    """A runtime method run as one section (see the module docstring): the lock held and
    the collector paused (resumed after, unless it was off already: nested sections and
    a program that turned it off leave it as it was)."""
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        _acquire()
        on = _gc_on()
        if on:
            _gc_off()
        try:
            return method(self, *args, **kwargs)
        finally:
            if on:
                _gc_resume()
            _release()
    return guarded


def _wgpu_message(e: BaseException) -> str:
    """wgpu's message without its blank lines (it reads as one clause in ours)."""
    return " ".join(line.strip() for line in str(e).splitlines() if line.strip())


# Note: wgpu-py's map_sync(READ) first submits an empty command buffer (its guard for
# a buffer written by queue.write_buffer and not submitted since, wgpu-native issue 305),
# about 60 us on the H200 per read back. numr's read backs map a staging buffer right
# after submitting the copy into it, so the guard has nothing to do; wgpu-py's own
# queue.read_buffer maps its copy with the mode "READ_NOSYNC" for the same reason,
# which numr uses where this wgpu-py takes it (else the public mode).
_map_nosync = True


def _map_read(staging: Any, nbytes: int) -> None:
    """Map ``nbytes`` of ``staging`` for reading; the copy into it is submitted."""
    global _map_nosync
    if _map_nosync:
        try:
            promise = staging.map_async("READ_NOSYNC", 0, nbytes)
        except (ValueError, KeyError, TypeError, AttributeError):  # a wgpu-py without it
            _map_nosync = False
        else:
            promise.sync_wait()
            return
    staging.map_sync(wgpu.MapMode.READ, 0, nbytes)


def _grid(groups: int) -> tuple[int, int]:
    """An x by y grid of at least ``groups`` workgroups, x at most 65535 (the
    per-dimension limit), with as few extra as can be: 65536 groups become 32768 x 2
    rather than 65535 x 2. Kernels number their workgroup x + y * num_workgroups.x."""
    ny = -(-groups // 65535)
    return -(-groups // ny), ny


def adapters() -> list:
    """The adapters that serve webgpu:0..N, in that order.

    Note: wgpu often reports one physical GPU twice, through Vulkan/Metal/D3D12 and
    through its downlevel OpenGL backend (no 64-bit types, limited compute); OpenGL
    adapters are used only where no other adapter exists.
    """
    global _adapters
    if _adapters is None:
        with _LOCK:  # two threads' first use would enumerate (and open) twice
            if _adapters is None:
                try:
                    found = list(wgpu.gpu.enumerate_adapters_sync())
                except Exception:  # no driver at all: the backend is simply absent
                    found = []
                primary = [a for a in found if a.info.get("backend_type") != "OpenGL"]
                _adapters = primary or found
    return _adapters


def bucket(nbytes: int) -> int:
    """The pooled size for a request: 256 bytes at least, then powers of two split in
    four steps, so a reused buffer wastes at most a quarter of its size."""
    if nbytes <= 256:
        return 256
    p = 1 << (nbytes - 1).bit_length()
    step = p // 8
    return -(-nbytes // step) * step


class Block:
    """One pooled GPU storage buffer. Bind groups are keyed by the Block objects
    themselves (identity), which the cache keeps alive, so a key is never reused."""

    __slots__ = ("buffer", "nbytes", "serial")

    # One Block per GPU buffer, ever: copying one would duplicate the buffer's handle, and
    # a collected duplicate releases the buffer under the original.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, buffer: Any, nbytes: int, serial: int):
        self.buffer = buffer
        self.nbytes = nbytes
        self.serial = serial


class Storage:
    """What arrays (and their views) share: a Block, returned to the pool when the last
    array using it is garbage-collected.

    Note: ``__del__`` rather than ``weakref.finalize``: a finalizer runs at the same
    moment (the last reference goes) but costs a registry entry per array, on the hot
    path of every elementwise op.
    """

    __slots__ = ("block", "rt")

    def __copy__(self):  # shared, like the Block (see Block.__copy__)
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, block: Block, rt: "Runtime"):
        self.block = block
        self.rt = rt

    def __del__(self):
        # Only a list append: __del__ runs wherever the last reference goes, which may be
        # inside the runtime itself (a garbage collection in the middle of recording a
        # dispatch) or on another thread (wgpu's poller). Pool bookkeeping that can
        # flush or destroy buffers then waits for the next alloc (see Runtime.collect).
        try:
            self.rt.released.append(self.block)
        except Exception:  # interpreter shutdown: the device goes with it
            pass




class Runtime:
    """One WebGPU device (one adapter): queue, pending encoder, pools and caches."""

    def __copy__(self):  # one per device (see Block.__copy__)
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, index: int):
        adapter = adapters()[index]
        self.index = index
        self.adapter = adapter
        self.features = frozenset(f for f in WANTED_FEATURES if f in adapter.features)
        # A CPU adapter (lavapipe): fusion.py keeps long ops out of fused kernels there
        self.cpu = adapter.info.get("adapter_type") == "CPU"
        limits = {k: v for k, v in dict(adapter.limits).items()
                  if k.startswith(("max-storage", "max-buffer", "max-compute",
                                   "max-uniform", "min-storage", "min-uniform",
                                   "max-bind"))}
        try:
            self.device = adapter.request_device_sync(
                label=f"numr webgpu:{index}", required_features=sorted(self.features),
                required_limits=limits)
        except Exception:  # an adapter refusing its own limits: ask for the defaults
            self.device = adapter.request_device_sync(
                label=f"numr webgpu:{index}", required_features=sorted(self.features))
        self.limits = dict(self.device.limits)
        self.max_buffer = min(self.limits["max-buffer-size"],
                              self.limits["max-storage-buffer-binding-size"])
        # Storage beyond one binding is made of pieces this large (see pieces.py);
        # NUMR_WEBGPU_PIECE_BYTES makes them smaller, so that tests of ordinary size
        # cross pieces.
        self.piece = piece_bytes(self.limits)
        small = _config.settings().webgpu_piece_bytes
        if small:
            self.piece = min(self.piece, 1 << max(small, 256).bit_length() - 1)
        self.max_bindings = self.limits.get("max-storage-buffers-per-shader-stage", 8)
        self._origin: dict[Any, tuple] = {}          # pipeline -> (key, source, n)
        self._variants: dict[tuple, Any] = {}        # (pipeline, pieces) -> pipeline
        self.queue = self.device.queue
        self._serial = 0
        self._free: dict[int, list[Block]] = {}      # bucket size -> free blocks
        self._lru: dict[Block, None] = {}            # free blocks, least recently freed first
        self._free_bytes = 0
        self._blocks: set[Block] = set()             # every block not yet trimmed (see alloc)
        self._sizes: dict[int, int] = {}             # requested bytes -> bucket size
        self.released: list[Block] = []             # freed by Storage.__del__, not pooled yet
        # The pending batch's dispatches, each its bind-group key (the blocks it binds,
        # the last written; ``written`` appended where more are): one list append a
        # dispatch, where a set of bound blocks and a list of written ones cost two
        # updates on the hot path; the rare questions (upload, trim, a failure) scan it.
        self._batch: list[tuple] = []
        self._lost_blocks: set[Block] = set()        # written by a batch that failed
        self.lost: str | None = None                 # why the device is lost, once it is
        self._staging: dict[int, list[Any]] = {}     # bucket size -> mappable buffers
        self._pipelines: dict[Any, tuple] = {}       # kernel key -> (pipeline, layout)
        self._layouts: dict[int, tuple] = {}         # n buffers -> (bg layout, pl layout)
        self._bind_groups: dict[tuple, tuple] = {}   # blocks -> (bind group, native ptr)
        self.plans: dict[tuple, Any] = {}            # launch signature -> plan (kernels)
        # The pending group of elementwise ops (fusion.py): recorded before anything
        # else is (every dispatch, upload, read back and flush drains it first).
        self.group: Any = None
        self._arena = self.device.create_buffer(
            label="numr params", size=ARENA_SLOTS * SLOT_BYTES,
            usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
        self._arena_host = bytearray(ARENA_SLOTS * SLOT_BYTES)
        # What the device's arena holds (numr is its one writer): a batch whose parameter
        # bytes are those already there skips its upload (see _upload_params).
        self._arena_sent = bytearray(ARENA_SLOTS * SLOT_BYTES)
        self._arena_sent_end = 0
        self._packers: dict[int, Any] = {}           # n words -> struct.Struct
        self._slots = 0
        # Recorded work is submitted every so many dispatches, so the device runs while
        # Python records the rest (a sync point submits whatever is left).
        # (NUMR_WEBGPU_SUBMIT_EVERY etc., numr/_config.py; defaults SUBMIT_EVERY etc.)
        cfg = _config.settings()
        self.submit_every = cfg.webgpu_submit_every
        self.first_batch = cfg.webgpu_first_batch
        self.first_bytes = cfg.webgpu_first_bytes
        # each later batch may bind this many times the last one's bytes
        # (benchmarks/ops.py --submit-sweep times other factors)
        self.growth = 2
        self._limit = min(self.first_batch, self.submit_every)  # this batch's size
        self._wlimit = self.first_bytes                # ... or the bytes it may bind
        self._written = 0                              # bytes the pending batch binds
        self._encoder = None
        self._pass = None
        self._pass_ptr = None                        # the open pass's native handle
        self._last_pipe = None                       # skips a repeated set_pipeline
        # bind groups through cffi where this wgpu allows (native.bind_group_maker)
        self._make_bind_group = _native.bind_group_maker(self.device)
        # Each slot's dynamic offset as a ready uint32_t* (a list index a dispatch, where
        # writing one shared cffi word cost a store through cffi each time).
        if _ffi is not None:
            self._offsets = _ffi.new("uint32_t[]", [k * SLOT_BYTES for k in range(ARENA_SLOTS)])
            self._offset_at = [self._offsets + k for k in range(ARENA_SLOTS)]
        # Counters the tests and benchmarks read.
        self.stats = {"buffers_created": 0, "submits": 0, "dispatches": 0,
                      "pipelines": 0, "bind_groups": 0, "staging_created": 0,
                      "param_uploads": 0}

    # -- buffers -----------------------------------------------------------------------

    def alloc(self, nbytes: int) -> Storage:
        """A Storage of at least ``nbytes`` bytes (contents undefined)."""
        # One section (see _section), written out: the hot path of every op.
        _acquire()
        on = _gc_on()
        if on:
            _gc_off()
        try:
            return self._alloc(nbytes)
        finally:
            if on:
                _gc_resume()
            _release()

    def _alloc(self, nbytes: int) -> Storage:
        """:meth:`alloc` inside a section."""
        size = self._sizes.get(nbytes)
        if size is None:
            size = bucket(max(nbytes, 4))
            if len(self._sizes) < 4096:
                self._sizes[nbytes] = size
        released = self.released
        if released:
            # The hot case of a chain of ops: the array freed last is the size wanted
            # (a temporary of the previous op); take it without a trip through the pool.
            block = released.pop()
            if block.nbytes == size:
                if released:
                    self.collect()
                if self._lost_blocks:
                    self._lost_blocks.discard(block)
                return Storage(block, self)
            self.release(block)
            self.collect()
        free = self._free.get(size)
        if free:
            block = free.pop()
            del self._lru[block]
            self._free_bytes -= size
            if self._lost_blocks:
                self._lost_blocks.discard(block)
            return Storage(block, self)
        return self._create(nbytes, size)

    def _buffer(self, nbytes: int, size: int) -> Any:
        try:
            return self.device.create_buffer(size=size, usage=_STORAGE)
        except Exception as e:
            self._check_lost(f"allocating {nbytes} bytes", e)
            # Out of memory: give the pool back and try once more before failing.
            self.trim(0)
            try:
                return self.device.create_buffer(size=size, usage=_STORAGE)
            except Exception:
                raise MemoryError(f"webgpu:{self.index}: out of GPU memory allocating "
                                  f"{nbytes} bytes ({_wgpu_message(e)})") from None

    def _pieces(self, nbytes: int, size: int, count: int) -> list:
        """The ``count`` blocks of a Pieces of ``size`` bytes; all or none."""
        parts: list = []
        piece = self.piece
        try:
            for k in range(count):
                n = min(piece, size - k * piece)
                self._serial += 1
                parts.append(Block(self._buffer(nbytes, n), n, self._serial))
        except MemoryError:
            # Give back what this request took before it ran out: the traceback keeps this
            # frame alive, and with it every piece made (on the H200, ones((2**40,)) held
            # all 134 GiB of the GPU in the pieces made before the failing one, and every
            # other process on the GPU then failed). Never bound, so destroying is safe.
            for block in parts:
                block.buffer.destroy()
            parts.clear()
            raise
        return parts

    def _create(self, nbytes: int, size: int) -> Storage:
        """A new buffer of bucket ``size`` (nothing pooled fits); beyond one binding, a
        row of buffers (pieces.Pieces)."""
        piece = self.piece
        if size > piece:
            count = -(-size // piece)
            # every piece is a binding of its own, and a kernel binds two arrays at least
            if count > self.max_bindings // 2:
                raise MemoryError(
                    f"webgpu:{self.index}: cannot allocate {nbytes} bytes; the adapter "
                    f"binds at most {self.max_bindings} buffers of {piece} bytes to a kernel")
            parts = self._pieces(nbytes, size, count)
            self._serial += 1
            self.stats["buffers_created"] += count
            block = Pieces(parts, size, self._serial)
        else:
            buffer = self._buffer(nbytes, size)
            self._serial += 1
            self.stats["buffers_created"] += 1
            block = Block(buffer, size, self._serial)
        # The runtime holds every block until trim forgets it. Otherwise an array caught in
        # a reference cycle (an exception's traceback holding a frame, say) is freed by the
        # cyclic collector, which runs the wgpu buffer's __del__ (releasing its handle) in
        # the same pass as Storage.__del__ (which hands the block back to the pool): a
        # later bind group of that block then aborted the process in create_bind_group.
        self._blocks.add(block)
        return Storage(block, self)

    @_section
    def collect(self) -> None:
        """Pool the blocks that arrays gave back since the last call."""
        released = self.released
        while released:
            self.release(released.pop())

    @_section
    def release(self, block: Block) -> None:
        """Back to the pool. Reuse by later recorded dispatches is safe (WebGPU orders
        them); an upload into a block the pending batch uses flushes first (see upload)."""
        self._free.setdefault(block.nbytes, []).append(block)
        self._lru[block] = None
        self._free_bytes += block.nbytes
        if self._free_bytes > POOL_KEEP_BYTES:
            self.trim(POOL_KEEP_BYTES // 2)

    @_section
    def trim(self, keep: int) -> None:
        """Destroy free buffers, least recently freed first, until at most ``keep`` bytes
        stay pooled. (Largest first dropped the very block a loop over large arrays
        frees and takes back each iteration whenever older blocks filled the pool: every
        call then created a 2 GiB buffer, 15 ms on the H200.)"""
        used = self._bound()
        for block in list(self._lru):
            if self._free_bytes <= keep:
                break
            if block in used:
                # recorded work still reads it: submit that work before destroying
                self.flush()
                used = ()
            self._free[block.nbytes].remove(block)
            del self._lru[block]
            self._free_bytes -= block.nbytes
            # Note: dropped, not destroy()ed: wgpu releases the buffer when its last
            # reference goes, so a stale reference anywhere (a cached bind group, a
            # recorded pass) keeps it valid instead of aborting the process, as an
            # explicit destroy() did on the H200 and lavapipe (in create_bind_group).
            self._forget(block)

    def _bound(self) -> set:
        """The blocks the pending batch binds."""
        return {b for key in self._batch for b in key if type(b) is not int}

    def _outputs(self) -> list:
        """The blocks the pending batch writes."""
        outs: list = []
        for key in self._batch:
            w = key[-1]
            if type(w) is int:
                outs.extend(key[-1 - w:-1])
            else:
                outs.append(w)
        return outs

    def _forget(self, block: Block) -> None:
        self._blocks.discard(block)
        self._lost_blocks.discard(block)
        for key in [k for k in self._bind_groups if block in k]:
            del self._bind_groups[key]

    @_section
    def pooled_bytes(self) -> int:
        self.collect()
        return self._free_bytes

    def held_bytes(self) -> int:
        """The bytes of every buffer the runtime holds, in use or pooled."""
        return sum(b.nbytes for b in self._blocks)

    # -- transfers ---------------------------------------------------------------------

    @_section
    def upload(self, storage: Storage, data: bytes | memoryview) -> None:
        """Write bytes at the start of a fresh buffer (nothing recorded reads it yet)."""
        if self.group is not None:
            self._drain()
        if self.lost is not None:
            raise self._lost_error(f"writing {len(data)} bytes")
        block = storage.block
        if self._batch and any(block in key for key in self._batch):
            # queue.write_buffer runs before the pending batch: recorded work that reads
            # this (recycled) buffer must be submitted first.
            self.flush()
        n = len(data)
        if n % 4:
            data = bytes(data) + b"\0" * (4 - n % 4)
        block = storage.block
        try:
            if type(block) is Pieces:
                view = memoryview(data)
                for k, at, m in ranges(block.nbytes, self.piece, 0, len(data)):
                    start = k * self.piece + at
                    self.queue.write_buffer(block.parts[k].buffer, at, view[start:start + m])
            elif len(data):
                self.queue.write_buffer(block.buffer, 0, data)
        except Exception as e:
            raise self._error(f"writing {len(data)} bytes", e) from None
        self._lost_blocks.discard(block)

    @_section
    def download(self, storage: Storage, offset: int, nbytes: int) -> bytes:
        """``nbytes`` bytes from ``offset`` (both multiples of 4): a sync point. Copies
        into a pooled mappable buffer, so no staging buffer is created per read."""
        if nbytes == 0:
            return b""
        if self.group is not None:
            self._drain()
        if self.lost is not None:
            raise self._lost_error(f"reading {nbytes} bytes back")
        if storage.block in self._lost_blocks:
            raise RuntimeError(
                f"webgpu:{self.index}: reading {nbytes} bytes back: this array's data was "
                f"lost: the batch of work that computed it failed (the error raised then)")
        block = storage.block
        if type(block) is Pieces:
            return b"".join(self._download(block.parts[k].buffer, at, m)
                            for k, at, m in ranges(block.nbytes, self.piece, offset, nbytes))
        return self._download(block.buffer, offset, nbytes)

    def _download(self, buffer: Any, offset: int, nbytes: int) -> bytes:
        size = bucket(nbytes)
        free = self._staging.get(size)
        if free:
            staging = free.pop()
        else:
            try:
                staging = self.device.create_buffer(size=size, usage=_STAGING)
            except Exception as e:
                raise self._error(f"reading {nbytes} bytes back", e) from None
            self.stats["staging_created"] += 1
        try:
            if self._encoder is None:  # nothing recorded: no (empty) compute pass either
                self._encoder = self.device.create_command_encoder()
            else:
                self._end_pass()
            self._encoder.copy_buffer_to_buffer(buffer, offset, staging, 0, nbytes)
        except Exception as e:
            raise self._error(f"reading {nbytes} bytes back", e) from None
        self.flush(f"reading {nbytes} bytes back")
        try:
            _map_read(staging, nbytes)
            data = staging.read_mapped(0, nbytes, copy=True)
            staging.unmap()
        except Exception as e:
            raise self._error(f"reading {nbytes} bytes back", e) from None
        self._staging.setdefault(size, []).append(staging)
        self._idle()
        return bytes(data)

    # -- dispatch ----------------------------------------------------------------------

    def _layout(self, n: int, written: int = 1) -> tuple:
        """Bind group layout and pipeline layout for the params arena plus ``n`` storage
        buffers, the last one written (the last ``written``: the pieces of one array)."""
        lay = self._layouts.get((n, written))
        if lay is None:
            C = wgpu.ShaderStage.COMPUTE
            entries = [{"binding": 0, "visibility": C,
                        "buffer": {"type": wgpu.BufferBindingType.uniform,
                                   "has_dynamic_offset": True}}]
            for i in range(n):
                kind = (wgpu.BufferBindingType.storage if i >= n - written
                        else wgpu.BufferBindingType.read_only_storage)
                entries.append({"binding": i + 1, "visibility": C, "buffer": {"type": kind}})
            bgl = self.device.create_bind_group_layout(entries=entries)
            lay = (bgl, self.device.create_pipeline_layout(bind_group_layouts=[bgl]))
            self._layouts[(n, written)] = lay
        return lay

    def pipeline(self, key: Any, source: Callable[[], str], n: int, written: int = 1,
                 trusted: bool = False) -> Any:
        """The compute pipeline for a kernel key; ``source()`` is only called on a miss.
        ``written``: the last so many of the ``n`` buffers are written (fused kernels
        write several). ``trusted``: the kernel's indices are in range by construction,
        so its module goes without naga's runtime bounds checks and loop bounding where
        this wgpu offers that (:func:`native.trusted_module`)."""
        p = self._pipelines.get(key)
        if p is None:
            p = self._compile(key, source, n, written, trusted)
        return p

    @_section
    def _compile(self, key: Any, source: Callable[[], str], n: int, written: int = 1,
                 trusted: bool = False) -> Any:
        p = self._pipelines.get(key)
        if p is not None:  # another thread compiled it meanwhile
            return p
        if self.lost is not None:
            raise self._lost_error(f"compiling kernel {key!r}")
        from .kernels import reverse  # tests: NUMR_TEST_REVERSE_INVOCATIONS (a no-op)
        source = reverse.hook(source)
        code = source()
        try:
            module = trusted and _native.trusted_module(self.device, code)
            module = module or self.device.create_shader_module(code=code)
            p = self.device.create_compute_pipeline(
                layout=self._layout(n, written)[1],
                compute={"module": module, "entry_point": "main"})
        except Exception as e:
            self._check_lost(f"compiling kernel {key!r}", e)
            raise RuntimeError(f"webgpu:{self.index}: kernel {key!r} failed to compile: "
                               f"{_wgpu_message(e)}\n{code}") from None
        self._pipelines[key] = p
        self._origin[p] = (key, source, n)
        self.stats["pipelines"] += 1
        return p

    def _variant(self, pipe: Any, counts: tuple) -> Any:
        """``pipe`` compiled for bindings in pieces (``counts``: pieces per binding)."""
        v = self._variants.get((pipe, counts))
        if v is None:
            key, source, n = self._origin[pipe]
            code = rewrite(source(), counts, self.piece)
            module = self.device.create_shader_module(code=code)
            try:
                v = self.device.create_compute_pipeline(
                    layout=self._layout(sum(counts), counts[-1])[1],
                    compute={"module": module, "entry_point": "main"})
            except Exception as e:
                raise RuntimeError(f"webgpu:{self.index}: kernel {key!r} in pieces "
                                   f"{counts} failed to compile: {e}\n{code}") from None
            self._variants[(pipe, counts)] = v
            self.stats["pipelines"] += 1
        return v

    def _open(self) -> None:
        if self._pass is None:
            if self._encoder is None:
                try:
                    self._encoder = self.device.create_command_encoder()
                except Exception as e:
                    raise self._error("recording a dispatch", e) from None
            self._pass = self._encoder.begin_compute_pass()
            self._pass_ptr = _handle(self._pass) if _ffi is not None else None
            self._last_pipe = None

    def _end_pass(self) -> None:
        if self._pass is not None:
            self._pass.end()
            self._pass = None
            self._pass_ptr = None

    def dispatch(self, key: Any, source: Callable[[], str], blocks: Sequence[Block],
                 params: Sequence[int], groups: int) -> None:
        """Record one dispatch of ``groups`` workgroups (spread over x and y beyond the
        per-dimension limit, see _grid) reading ``blocks[:-1]`` and writing ``blocks[-1]``."""
        self.record(self.pipeline(key, source, len(blocks)), tuple(blocks), params, groups)

    def record(self, pipe: Any, blocks: Any, params: Sequence[Any], groups: int,
               packer: Any = None, new: int = 0, written: int = 1,
               held: bool = False) -> Storage | None:
        """:meth:`dispatch` for a pipeline already looked up (kernels cache it in their
        launch plans). ``packer``: a struct.Struct of the parameters (default: all u32
        words), at most SLOT_WORDS words. Every dispatch takes one parameter slot (flush
        counts them). With ``new`` (bytes), the output is allocated here, in the same
        section (one lock an op): ``blocks`` is then the inputs (a tuple or a list), and
        the output's Storage is returned (:meth:`record_new`). ``written``: the last so
        many blocks are written (a fused kernel's outputs; never in pieces, see
        fusion.py). ``held``: the caller is inside a section already (fusion.py recording
        a pending op), so none is taken here."""
        if packer is None:
            packer = self._packers.get(len(params)) or self._packer(len(params))
        if new:
            return self.record_new(pipe, tuple(blocks), params, groups, packer, new, held)
        # One section (see _section), written out: the hot path of writes into views.
        if held:
            on = False
        else:
            _acquire()
            on = _gc_on()
            if on:
                _gc_off()
        try:
            if self.group is not None:
                self._drain()
            if self._lost_blocks:
                self._check_inputs(blocks[:-written])
            slot = self._slots
            if slot >= self._limit:
                slot = self._take_slot()
            packer.pack_into(self._arena_host, slot * SLOT_BYTES, *params)
            key = blocks if written == 1 else blocks + (written,)
            bg = self._bind_groups.get(key)
            if bg is None:
                bg = self._bind_group(blocks, written)
            ptr = self._pass_ptr
            moved = 0
            for b in blocks:
                moved += b.nbytes
            if ptr is None or bg[2] is not None or groups > 65535:
                self._dispatch(pipe, bg, slot, groups, key, moved)
                return None
            # _dispatch's common case, written out (as in record_new)
            self._slots = slot + 1
            self._batch.append(key)
            if pipe is not self._last_pipe:
                _SET_PIPELINE(ptr, _handle(pipe))
                self._last_pipe = pipe
            _SET_BIND_GROUP(ptr, 0, bg[1], 1, self._offset_at[slot])
            _DISPATCH(ptr, groups, 1, 1)
            w = self._written + moved
            self._written = w
            if w >= self._wlimit:
                self._submit_batch()
            return None
        finally:
            if on:
                _gc_resume()
            if not held:
                _release()

    def record_new(self, pipe: Any, inputs: tuple, params: Sequence[Any], groups: int,
                   packer: Any, nbytes: int, held: bool = False) -> Storage:
        """:meth:`record` of a dispatch that reads ``inputs`` (a tuple of blocks) and
        writes one fresh output of ``nbytes`` bytes, allocated here in the same section;
        returns the output's Storage. The hot path of every elementwise op and
        reduction: :meth:`record`'s general cases (outputs given, several written, a
        default packer) cost a dozen tests a call, so this one is written out on its own
        (and its hot case once more in fusion._record_one: keep the two in step).
        """
        # One section (see _section), written out.
        if held:
            on = False
        else:
            _acquire()
            on = _gc_on()
            if on:
                _gc_off()
        try:
            if self.group is not None:
                self._drain()
            # _alloc's hot case, written out: the block freed last fits. (Popped before
            # it is looked at: another thread's Storage.__del__ may append to
            # ``released`` at any moment; only a section pops.)
            released = self.released
            lost = self._lost_blocks
            if released and not lost:
                block = released.pop()
                if block.nbytes == self._sizes.get(nbytes):
                    if released:
                        self.collect()
                    storage = _new(Storage)  # Storage(block, self), no __init__ frame
                    storage.block = block
                    storage.rt = self
                else:
                    self.release(block)
                    storage = self._alloc(nbytes)
                    block = storage.block
            else:
                if lost:
                    self._check_inputs(inputs)
                storage = self._alloc(nbytes)
                block = storage.block
            blocks = (*inputs, block)
            slot = self._slots
            if slot >= self._limit:
                slot = self._take_slot()
            packer.pack_into(self._arena_host, slot * SLOT_BYTES, *params)
            bg = self._bind_groups.get(blocks)
            if bg is None:
                bg = self._bind_group(blocks)
            ptr = self._pass_ptr
            moved = block.nbytes
            for b in inputs:
                moved += b.nbytes
            if ptr is None or bg[2] is not None or groups > 65535:
                self._dispatch(pipe, bg, slot, groups, blocks, moved)
                return storage
            # _dispatch's common case, written out
            self._slots = slot + 1
            self._batch.append(blocks)
            if pipe is not self._last_pipe:
                _SET_PIPELINE(ptr, _handle(pipe))
                self._last_pipe = pipe
            _SET_BIND_GROUP(ptr, 0, bg[1], 1, self._offset_at[slot])
            _DISPATCH(ptr, groups, 1, 1)
            w = self._written + moved
            self._written = w
            if w >= self._wlimit:
                self._submit_batch()
            return storage
        finally:
            if on:
                _gc_resume()
            if not held:
                _release()

    def _check_inputs(self, inputs: Sequence) -> None:
        """Raise if a block a dispatch reads was lost by a failed batch."""
        if self._lost_blocks and not self._lost_blocks.isdisjoint(inputs):
            raise RuntimeError(f"webgpu:{self.index}: an input's data was lost: the "
                               f"batch of work that computed it failed (the error "
                               f"raised then)")

    def _take_slot(self) -> int:
        """The next parameter slot, submitting the batch first where it is full."""
        slot = self._slots
        if slot >= self._limit:
            self._submit_batch()
            slot = 0
        return slot

    def _dispatch(self, pipe: Any, bg: tuple, slot: int, groups: int, key: tuple,
                  nbytes: int) -> None:
        """Record the dispatch of ``pipe`` with bind group ``bg`` (cached under ``key``)
        and parameter ``slot`` (packed), binding buffers of ``nbytes`` bytes in all; the
        batch is submitted where it has bound enough (see FIRST_BYTES)."""
        if bg[2] is not None:  # an array in pieces: the kernel's variant for them
            pipe = self._variant(pipe, bg[2])
        self._slots = slot + 1
        self._batch.append(key)
        ptr = self._pass_ptr
        if ptr is None:
            self._open()
            ptr = self._pass_ptr
        if ptr is not None:
            if pipe is not self._last_pipe:
                _SET_PIPELINE(ptr, _handle(pipe))
                self._last_pipe = pipe
            _SET_BIND_GROUP(ptr, 0, bg[1], 1, self._offset_at[slot])
            if groups <= 65535:
                _DISPATCH(ptr, groups, 1, 1)
            else:
                _DISPATCH(ptr, *_grid(groups), 1)
        else:
            p = self._pass
            p.set_pipeline(pipe)
            p.set_bind_group(0, bg[0], (slot * SLOT_BYTES,))
            if groups <= 65535:
                p.dispatch_workgroups(groups)
            else:
                p.dispatch_workgroups(*_grid(groups))
        w = self._written + nbytes
        self._written = w
        if w >= self._wlimit:
            self._submit_batch()

    def _submit_batch(self) -> None:
        """Submit a full batch (see SUBMIT_EVERY, FIRST_BYTES): the next may write
        ``growth`` (two) times as many bytes, since the device has this one to run
        meanwhile, and hold up to SUBMIT_EVERY dispatches."""
        self.flush()
        self._limit = min(2 * self._limit, self.submit_every)
        self._wlimit *= self.growth

    def _packer(self, n: int) -> Any:
        p = self._packers[n] = packer(n)
        return p

    def _bind_group(self, blocks: tuple, written: int = 1) -> tuple:
        """(bind group, its native handle, pieces per binding or None where no block
        is in pieces); cached under ``blocks`` (with ``written`` appended where more
        than the last block is written: another layout)."""
        counts = None
        flat = blocks
        if any(type(b) is Pieces for b in blocks):
            counts = tuple(len(b.parts) if type(b) is Pieces else 1 for b in blocks)
            if sum(counts) > self.max_bindings:
                raise MemoryError(f"webgpu:{self.index}: a kernel would bind {sum(counts)} "
                                  f"buffers (arrays of {[b.nbytes for b in blocks]} bytes); "
                                  f"the adapter allows {self.max_bindings}")
            flat = [p for b in blocks for p in (b.parts if type(b) is Pieces else (b,))]
        n = len(flat)
        try:
            layout = self._layout(n, counts[-1] if counts else written)[0]
            make = self._make_bind_group
            if make is not None:
                bg = make(layout, [(self._arena, SLOT_BYTES)]
                          + [(b.buffer, b.nbytes) for b in flat])
            else:
                entries = [{"binding": 0, "resource": {"buffer": self._arena, "offset": 0,
                                                        "size": SLOT_BYTES}}]
                entries += [{"binding": i + 1, "resource": {"buffer": b.buffer, "offset": 0,
                                                             "size": b.nbytes}}
                            for i, b in enumerate(flat)]
                bg = self.device.create_bind_group(layout=layout, entries=entries)
        except Exception as e:
            # Nothing of this dispatch is recorded yet: the batch stays whole.
            self._check_lost(f"binding {n} buffers", e)
            raise RuntimeError(f"webgpu:{self.index}: binding {n} buffers "
                               f"({[b.nbytes for b in blocks]} bytes) for a dispatch failed: "
                               f"{_wgpu_message(e)}") from None
        pair = (bg, _handle(bg) if _ffi is not None else None, counts)
        if len(self._bind_groups) >= BIND_GROUPS_KEPT:
            self._bind_groups.clear()
        self._bind_groups[blocks if written == 1 else blocks + (written,)] = pair
        self.stats["bind_groups"] += 1
        return pair

    @_section
    def flush(self, why: str = "a sync point") -> None:
        """Submit everything recorded (a sync point); ``why`` names the step in errors."""
        if self.group is not None:
            self._drain()
        if self.lost is not None:
            raise self._lost_error(why)
        if self._encoder is None:
            return
        n = self._slots
        try:
            self._end_pass()
            if n:
                self._upload_params(n * SLOT_BYTES)
            self.queue.submit([self._encoder.finish()])
        except Exception as e:
            raise self._error(f"{why}: submitting {n} recorded dispatches", e) from None
        self.stats["dispatches"] += n
        self.stats["submits"] += 1
        self._slots = 0
        self._written = 0
        self._encoder = None
        self._batch.clear()

    def _upload_params(self, end: int) -> None:
        """Upload the first ``end`` bytes of the parameter arena, unless the device's
        arena holds them already: a loop of the same ops packs the same parameters into
        the same slots batch after batch, and a queue.write_buffer costs the host about
        19 us on the H100 (wgpu-native stages every write in a fresh buffer), a fifth of
        a submit's cost. The device's arena changes only by these writes, queue-ordered,
        so skipping one that would write the bytes already there changes nothing."""
        host = self._arena_host
        if end <= self._arena_sent_end and host[:end] == self._arena_sent[:end]:
            return
        self.queue.write_buffer(self._arena, 0, memoryview(host)[:end])
        self.stats["param_uploads"] += 1
        self._arena_sent[:end] = host[:end]
        self._arena_sent_end = max(self._arena_sent_end, end)

    @_section
    def wait(self) -> None:
        """Submit everything recorded and wait until the device has finished it."""
        self.flush("waiting for the device")
        # Note: wgpu 0.32's queue.on_submitted_work_done_sync fails (a cffi callback
        # type mismatch); a blocking device poll waits for all submitted work, and where
        # wgpu-py has no such method a 4-byte read back is a sync point too.
        poll = getattr(self.device, "_poll_wait", None)
        if poll is not None:
            try:
                poll()
            except Exception as e:
                raise self._error("waiting for the device", e) from None
            self._idle()
        else:
            self.download(self.alloc(4), 0, 4)

    def _idle(self) -> None:
        """The device has finished everything: the next batch starts small again."""
        if self.lost is None:
            self._limit = min(self.first_batch, self.submit_every)
        self._wlimit = self.first_bytes

    # -- errors ------------------------------------------------------------------------

    def _drop_batch(self) -> None:
        """Forget the pending batch after a failure, so that the next call starts clean;
        what it would have written is marked lost (never read as if computed)."""
        self._pass = None
        self._pass_ptr = None
        self._last_pipe = None
        self._encoder = None
        self._slots = 0
        self._written = 0
        self._lost_blocks.update(self._outputs())
        self._batch.clear()
        self._idle()

    def _error(self, what: str, e: BaseException) -> RuntimeError:
        """The error of a step that broke the pending batch (dropped here)."""
        self._check_lost(what, e)
        n = len(self._batch)
        self._drop_batch()
        return RuntimeError(f"webgpu:{self.index}: {what} failed: {_wgpu_message(e)} "
                            f"(the {n} dispatches recorded since the last sync point were "
                            f"dropped; arrays they computed are lost, later work runs)")

    def _check_lost(self, what: str, e: BaseException) -> None:
        """After a wgpu error: raise the lost-device error if the device is gone (a
        4-byte buffer, the cheapest thing to ask of it, is refused), else return."""
        if self.lost is None:
            try:
                self.device.create_buffer(size=4, usage=wgpu.BufferUsage.COPY_DST)
                return
            except Exception as probe:
                self.lost = f"{_wgpu_message(e)}; then {_wgpu_message(probe)}"
            self._drop_batch()
            self._limit = 0  # every record now goes through flush, which raises
        raise self._lost_error(what) from None

    def _lost_error(self, what: str) -> RuntimeError:
        return RuntimeError(f"webgpu:{self.index}: {what}: the device is lost "
                            f"({self.lost}); every operation on it fails")

    def pending(self) -> bool:
        """Whether recorded work waits for a sync point."""
        return self._encoder is not None or self.group is not None

    # -- fusion (fusion.py) --------------------------------------------------------------

    def _drain(self) -> None:
        """Record the pending group of elementwise ops (inside a section)."""
        g = self.group
        self.group = None
        if type(g) is tuple:  # one op: (its record function, its arguments...)
            g[0](g)
        else:
            g.record()

    @_section
    def materialise(self, a: Any) -> None:
        """Give pending array ``a`` its storage: record the group that computes it
        (the GPUArray.storage property, at the first read of ``a.storage``)."""
        if self.group is not None:
            self._drain()
        try:
            a._storage
        except AttributeError:
            raise RuntimeError(f"webgpu:{self.index}: this array's data was never "
                               f"computed: recording the elementwise ops that compute it "
                               f"failed (the error raised then)") from None


@functools.lru_cache(maxsize=None)
def packer(n: int) -> struct.Struct:
    """The struct of ``n`` u32 parameter words (a ValueError beyond a slot's, less its
    last word: template.FENCE_WORD, which stays 0), for :meth:`Runtime.record`; launch
    plans keep theirs."""
    if n > SLOT_WORDS - 1:
        raise ValueError(f"webgpu: a kernel needs {n} parameter words; at most "
                         f"{SLOT_WORDS - 1} (too many dimensions)")
    return struct.Struct(f"<{n}I")


def remember(rt: Any, sig: tuple, plan: Any) -> Any:
    """Keep a kernel template's launch plan under its signature in ``rt.plans``
    (everything a launch needs that its operands' offsets and scalar values do not
    change: pipelines, fixed parameter words, workgroups); returns ``plan``. The
    templates look a signature up with ``rt.plans.get(sig)`` and build the plan only on
    a miss, so a repeated call repeats no Python work. Beyond PLANS_KEPT signatures (a
    program of ever new shapes) the cache starts over. (``rt``: a Runtime, or a stand-in
    with its own ``plans``, as complex.py's.)"""
    plans = rt.plans
    if len(plans) >= PLANS_KEPT:
        plans.clear()
    plans[sig] = plan
    return plan


_runtimes: dict[int, Runtime] = {}


def runtime(index: int) -> Runtime:
    rt = _runtimes.get(index)
    if rt is None:
        with _LOCK:  # two threads' first use would open two devices
            rt = _runtimes.get(index)
            if rt is None:
                rt = _runtimes[index] = Runtime(index)
    return rt
