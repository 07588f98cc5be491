"""PettingZoo's naming convention: ``from taluva.research import taluva_v0; taluva_v0.env()``."""

from __future__ import annotations

from taluva.research.pettingzoo_env import env, raw_env

__all__ = ["env", "raw_env"]
