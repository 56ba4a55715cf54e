"""Location callbacks of `_Builder`: `loc(unknown)`, file:line:col (and
ranges), names, call sites, fused locations (with metadata) and `#locN`
references (kept as LocAlias; ir.Module resolves them)."""
from __future__ import annotations

from lark import Transformer, v_args

from ....ir.attributes import StringAttr
from ....ir.core import CallSiteLoc, FileLineColLoc, FusedLoc, LocAlias, NameLoc
from .pieces import _UNKNOWN, _unquote


@v_args(inline=True)
class _LocCallbacks(Transformer):
    """Location callbacks of `_Builder`."""

    # -- locations ------------------------------------------------------------------------
    def loc(self, _open, inner):
        return inner

    def l_unknown(self):
        return _UNKNOWN

    def l_file(self, f, line, col):
        return FileLineColLoc(_unquote(f.value), int(line), int(col))

    def l_file_range(self, f, line, col, eline, ecol):
        return FileLineColLoc(_unquote(f.value), int(line), int(col), int(eline), int(ecol))

    def l_file_range_col(self, f, line, col, ecol):
        return FileLineColLoc(_unquote(f.value), int(line), int(col), int(line), int(ecol))

    def l_name(self, s):
        return NameLoc(_unquote(s.value))

    def l_name_child(self, s, child):
        return NameLoc(_unquote(s.value), child)

    def l_callsite(self, callee, caller):
        return CallSiteLoc(callee, caller)

    def l_fused(self, *locs):
        return FusedLoc(tuple(x for x in locs if x is not None))

    def l_fused_meta(self, meta, *locs):
        if isinstance(meta, StringAttr):
            text = meta.value
        else:
            span = getattr(meta, "span", None)
            text = self._slice(span) if span is not None else str(meta)
        return FusedLoc(tuple(x for x in locs if x is not None), text)

    def l_alias(self, tok):
        return LocAlias(tok.value)
