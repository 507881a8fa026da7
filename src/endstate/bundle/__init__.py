"""A run in one file anyone can check: `bundle` packs it, `rescore` re-scores it."""
