"""Durable state: SQLModel tables, repositories and snapshot files. Never imports the CLI or daemon."""
