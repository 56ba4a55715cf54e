"""Array backends for the interpreter: numpy on the host (default) and jax arrays
placed on a GPU (`--device gpu`). Op implementations call `backend.xp` (numpy or
jax.numpy, which share the API they use) plus the few methods below where the two
differ (in-place updates, host transfer, error states).
"""
from __future__ import annotations

import contextlib

import numpy as np

from .availability import install_hint
from .values import ExecutionError


class NumpyBackend:
    """Host arrays, numpy semantics."""

    name = "numpy"
    device = "cpu"
    xp = np

    def asarray(self, a, dtype=None):
        return np.asarray(a, dtype=dtype)

    def to_numpy(self, a) -> np.ndarray:
        return np.asarray(a)

    def update(self, a, index, value):
        out = np.array(a, copy=True)
        out[index] = value
        return out

    def errstate(self):
        return np.errstate(all="ignore")

    def describe(self) -> str:
        return "numpy (cpu)"


class JaxBackend:
    """jax.numpy arrays committed to one device (a GPU for `--device gpu`; the CPU
    platform is accepted too, which is how the code path is tested without a GPU)."""

    name = "jax"

    def __init__(self, platform: str = "gpu"):
        try:
            import jax
            import jax.numpy as jnp
        except ImportError:
            raise ExecutionError(f"--device gpu needs jax with GPU support ({install_hint('gpu')})") from None
        try:
            devices = jax.devices(platform)
        except RuntimeError:
            devices = []
        if not devices:
            raise ExecutionError(f"no {platform.upper()} device is visible to jax "
                                 f"(jax sees: {', '.join(sorted({d.platform for d in jax.devices()}))})")
        # 64-bit types (i64 loop counters, f64) must stay 64-bit, as in numpy.
        jax.config.update("jax_enable_x64", True)
        self._jax = jax
        self.xp = jnp
        self.device = devices[0]

    def asarray(self, a, dtype=None):
        arr = np.asarray(a, dtype=dtype) if not hasattr(a, "devices") else a
        return self._jax.device_put(arr, self.device)

    def to_numpy(self, a) -> np.ndarray:
        return np.asarray(a)

    def update(self, a, index, value):
        return a.at[index].set(value)

    def errstate(self):
        return contextlib.nullcontext()

    def describe(self) -> str:
        return f"jax ({self.device.platform}:{self.device.id}, {getattr(self.device, 'device_kind', '')})".rstrip(", )") + ")"


def make_backend(device: str = "cpu"):
    if device == "cpu":
        return NumpyBackend()
    if device == "gpu":
        return JaxBackend("gpu")
    if device == "jax-cpu":  # the GPU backend's code path on the host, for tests
        return JaxBackend("cpu")
    raise ExecutionError(f"unknown device {device!r} (cpu or gpu)")
