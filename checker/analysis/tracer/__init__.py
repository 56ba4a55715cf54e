"""The SPMD tracer: what the names of the ops already say about communication (structure),
and the per-process communication trace of a program (tracer, trace)."""
