"""Kept for its import path: the spawn links live in ``core.topology`` now."""

from __future__ import annotations

from pysift.core.topology import IssuedBy, Spawns, spawned_by, spawns_in

__all__ = ["IssuedBy", "Spawns", "spawned_by", "spawns_in"]
