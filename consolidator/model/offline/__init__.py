"""The offline, deterministic model backend: rules over plain English, no network, no key."""

from consolidator.model.offline.model import OfflineModel

__all__ = ["OfflineModel"]
