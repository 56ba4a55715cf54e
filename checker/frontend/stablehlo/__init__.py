"""The StableHLO (MLIR text) reader: `scan` finds every op's boundaries, `parse/` reads an
op's header on first access."""
