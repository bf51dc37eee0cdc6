"""ladders."""
