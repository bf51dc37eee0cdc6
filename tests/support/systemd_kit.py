"""Reading a systemd unit file: its settings by section and key (the unit and install tests)."""

from __future__ import annotations


def _settings(text: str) -> dict[tuple[str, str], list[str]]:
    """Parse a unit into {(section, key): [values]} (keys may repeat)."""
    out: dict[tuple[str, str], list[str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, _, value = line.partition("=")
        out.setdefault((section, key.strip()), []).append(value.strip())
    return out
