"""Op implementations of the interpreter, one module per family. Importing
this package registers every class (registry.py); the interpreter does that."""
from __future__ import annotations

from . import (batch_norm, check, chlo, control, custom_calls, elementwise, hlo, indexing, lapack,  # noqa: F401
               linalg, quant, random, reduce, shape, spmd)
