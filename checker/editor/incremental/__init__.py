"""Re-lint as you type: each version of a document reuses what the previous one computed
where that is exact (document.Document, document.Memo)."""
