"""The leaf core under every package: settings and config parsing, the clock, the app handle, fault records."""
