"""The engine: source → parse → IR → semantics → rules/analyses → report."""
