"""Lark LALR parsing of operation headers, types, attributes and locations.

The structural scanner (scan.py) cuts a file into operations and regions; this
module parses one operation's *header* when somebody first asks for it. The op's
text has each of its own regions collapsed to a two-character REGION token
("«»") and a small offset map turns every position back into an absolute offset
in the file, so a 30 MB module's `builtin.module` header costs what its first and
last lines cost.

IR objects are built in the parser's callbacks (`Lark(..., transformer=...)`, no
parse tree). Pretty (custom-assembly) forms are read by the grammar as a balanced
sequence of items; `Builder._interpret` maps each known op's items to its real
attribute names (`dims` -> `broadcast_dimensions`, `LT` ->
`comparison_direction`, ...) with the values the generic form would give, and
reads any other op generically, so a well-formed line of an unknown dialect
never fails. Almost every line JAX and stablehlo-opt print takes a regex fast
path that builds the same items without Lark (much faster: docs/parser.md;
tests check both agree), after a header cache (same layout in this module, or an alias-free
header seen in any file: one parse, spans moved).

Entry points: `LarkParser` (what ir.Module calls: parse_header, parse_block_label,
parse_location_alias) and `parse_type` / `parse_type_list` / `parse_attribute` /
`parse_location` / `parse_alias_definition`, which raise `SyntaxProblem`.
Syntax errors met lazily are appended to `module.syntax_errors`, never raised.
Aliases: `#name` / `!name` references resolve through the scanner's
`module.alias_texts` (name -> (text, offset)) or `module.attr_aliases` /
`module.type_aliases`; `loc(#locN)` stays a LocAlias named "#locN".
The builder keeps per-parse state: parse from one thread at a time.

Modules (data flows down the list; none imports one above it):
`api` (LarkParser, parse_*) -> `fast` (regex fast path) / `cache` (header cache)
-> `runner` (the Lark instance, parse_rule, syntax_problem) -> `builder` (the
callbacks: attributes, types, locations, pretty forms -> `handlers`) ->
`aliases` -> `ctx` (offset map, error types) / `pieces` (leaf decoding, item
records). `commas` says what MLIR's parser says of commas in pretty forms.
"""
from __future__ import annotations

from .api import LarkParser, parse_alias_definition, parse_attribute, parse_location, parse_type, parse_type_list
from .ctx import InternalParseError, SyntaxProblem

__all__ = ["InternalParseError", "LarkParser", "SyntaxProblem", "parse_alias_definition", "parse_attribute",
           "parse_location", "parse_type", "parse_type_list"]
