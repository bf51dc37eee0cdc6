"""model.offline."""
