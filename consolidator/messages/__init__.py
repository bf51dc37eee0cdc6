"""messages."""
