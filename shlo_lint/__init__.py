"""shlo-lint: a verifier and linter for StableHLO programs."""
