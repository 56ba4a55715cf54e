"""Op implementations of the interpreter, one module per family. Importing
this package registers every class (registry.py); the interpreter does that."""
from __future__ import annotations

from . import (check, chlo, control, custom_calls, elementwise, indexing, lapack, linalg, random, reduce,  # noqa: F401
               quant, shape, spmd)
