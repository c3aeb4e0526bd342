"""numr.random: counter-based random numbers generated on the device, the same on every
device.

``default_rng(seed)`` gives a :class:`Generator` (the methods of
``numpy.random.Generator``) over the bit generator :class:`Philox` (Philox4x32-10 with
Random123's constants). A draw is a pure function of (key, counter): the same seed and
the same calls give bit-identical integers, uniform floats, permutations and choices on
``cpu``, ``cuda:N`` and ``webgpu:N``; transformed variates (normals, gammas, ...) are made
by numr's own operations on each device and agree to their accuracy. Draws are constants
under numr.autograd (array parameters that are Vars are read as their values).
"""

from ._philox import Philox
from ._generator import Generator, default_rng

__all__ = ["Philox", "Generator", "default_rng"]
