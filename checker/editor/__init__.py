"""The language server: LSP over stdio (server), its input framing, the editor's text, and
the incremental re-lint as you type."""
