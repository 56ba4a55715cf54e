"""Whole-program analyses over the IR: semantics (grid, groups, channels), start/done
pairing, uniformity, the SPMD tracer, the process model that decides deadlocks. They
know no rule, no Context and no output format."""
