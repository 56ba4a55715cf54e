"""What the engines need that a machine may lack (jax, a GPU), and the one
wording of how to install it.

`shlo-lint run` and `check --confirm` ask `unavailable()` before running
anything: an engine that was asked for and cannot run here is an error (exit
2) with the reason, never a quiet "skipped" that lets a CI job pass while XLA
never ran. shlo-lint is not on PyPI, so every hint names an install that works:
the extra from a clone, or the extra from the git URL.
"""
from __future__ import annotations

REPOSITORY = "https://github.com/shlo-lint/shlo-lint"


def install_hint(extra: str = "jax") -> str:
    """How to install shlo-lint with `extra` (jax, gpu), from a clone or without one."""
    return (f"pip install '.[{extra}]' in a clone of shlo-lint, or "
            f"pip install \"shlo-lint[{extra}] @ git+{REPOSITORY}\"")


def jax_missing(what: str) -> str:
    """`what` (e.g. "the XLA engine") needs jax, which cannot be imported here."""
    return f"{what} needs jax, which is not installed here ({install_hint('jax')})"


def jax_available() -> bool:
    """Whether jax and jaxlib can be imported (found, not imported: importing jax is
    slow, and the XLA engines import it in their own processes)."""
    try:
        import importlib.util

        return importlib.util.find_spec("jax") is not None and importlib.util.find_spec("jaxlib") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


def gpu_available() -> tuple[bool, str]:
    """(True, description) when jax can see a GPU, else (False, the reason).
    Without a GPU device node (NVIDIA or AMD) jax is not even imported."""
    import glob

    if not glob.glob("/dev/nvidia[0-9]*") and not glob.glob("/dev/kfd") and not glob.glob("/dev/dxg"):
        return False, "no GPU device (/dev/nvidia*, /dev/kfd) on this machine"
    if not jax_available():
        return False, f"jax is not installed ({install_hint('gpu')})"
    import jax

    for platform in ("gpu", "cuda", "rocm"):
        try:
            devs = jax.devices(platform)
        except RuntimeError:
            continue
        if devs:
            return True, f"{len(devs)} x {getattr(devs[0], 'device_kind', platform)}"
    return False, ("no GPU visible to jax (platforms: " + ", ".join(sorted({d.platform for d in jax.devices()}))
                   + f"; a CUDA jaxlib: {install_hint('gpu')})")


ENGINE_NAMES = {"xla": "the XLA engine", "both": "--engine both (the interpreter and XLA)",
                "xla-distributed": "the distributed XLA engine"}


def unavailable(engine: str, device: str = "cpu") -> str | None:
    """Why `engine` on `device` cannot run on this machine at all (None: it can).
    What one program needs beyond that (XLA:CPU has no send) is the run's own
    `unsupported` outcome."""
    if engine in ENGINE_NAMES and not jax_available():
        return jax_missing(ENGINE_NAMES[engine])
    if device == "gpu":
        ok, why = gpu_available()
        if not ok:
            return f"--device gpu: {why}"
    return None
