"""XLA's HLO text, read into a syntax model (checker/frontend/hlo/model.py).

`read_hlo(text, path)` reads a module: its structure at once (one regex per
line), every instruction's operands and attributes on first access (a regex
fast path, the Lark grammar grammar/hlo.lark for the rest). Whether a text
is HLO is checker/frontend/read.py's `looks_like_hlo`. Syntax errors are SyntaxIssue records in
`HloText.issues` and in each instruction's body, never exceptions.

Modules: scan (the structural pass), body (the fast path), grammar (the
Lark reader), model (the module / computation / instruction model), shapes,
groups (replica groups in their three spellings), values (typed attribute
values), frames (the stack-frame tables and the Python frames of an op).
"""
from .frames import PythonFrame, StackFrameTables
from .groups import AxisRef, ExplicitGroups, IotaGroups, Mesh, MeshAxesGroups, ReplicaGroups
from .model import Attribute, Body, Computation, HloText, Instruction, OperandRef, Parameter, SyntaxIssue
from .scan import read_hlo
from .shapes import Shape, parse_shape
from .values import (BackendConfig, ComputationLayout, FrontendAttributes, Literal, Metadata, NameRef, Opaque,
                     SendRecvValidation, SliceRanges, SourceTargetPairs, Window, Word)

__all__ = ["read_hlo", "HloText", "Computation", "Instruction", "OperandRef", "Attribute",
           "Body", "Parameter", "SyntaxIssue", "Shape", "parse_shape", "ReplicaGroups", "ExplicitGroups",
           "IotaGroups", "MeshAxesGroups", "Mesh", "AxisRef", "NameRef", "Word", "Opaque", "Literal",
           "Metadata", "FrontendAttributes", "SendRecvValidation", "SourceTargetPairs", "BackendConfig",
           "SliceRanges", "Window", "ComputationLayout", "PythonFrame", "StackFrameTables"]
