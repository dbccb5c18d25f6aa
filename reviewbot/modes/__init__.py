"""Modes and their capability profiles: the one declaration every enforcement layer derives from."""

from reviewbot.modes.effect import READ_ONLY_DENIED, Effect, Tier
from reviewbot.modes.mode import Mode
from reviewbot.modes.profile import PROFILES, CapabilityProfile, Role

__all__ = ["PROFILES", "READ_ONLY_DENIED", "CapabilityProfile", "Effect", "Mode", "Role", "Tier"]
