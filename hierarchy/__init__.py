"""Pure window mathematics of the summary ladders (tiling of rungs, calendar mapping)."""
