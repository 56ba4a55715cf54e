"""The XLA engines: one process with N devices (local), jax.distributed jobs (distributed),
their worker processes and per-device progress markers."""
