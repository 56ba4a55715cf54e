"""numpy, imported on first use.

The SPMD tracer and the deadlock model (tracer/, uniform.py, process_model/) are
imported whenever the rules load, but only a module with communication reaches
code that computes with numpy, and importing numpy is a large share of a
one-file run over anything else (docs/performance.md, "Start-up"). `np` stands in for the module: the first
attribute read imports numpy and copies its namespace into the stand-in, so
later reads are plain attribute hits (no call per `np.x`).
"""
from __future__ import annotations


class _LazyNumpy:
    def __getattr__(self, name: str):
        import numpy

        self.__dict__.update(numpy.__dict__)
        return getattr(numpy, name)  # (also the names numpy itself loads lazily)


np = _LazyNumpy()
