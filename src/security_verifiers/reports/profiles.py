"""Per environment: the headline metrics to tabulate and the figures to draw.

Each environment's `EnvSpec.report` says it (see sv_shared.spec); an environment the registry
does not know gets the generic profile (reward only).
"""

from __future__ import annotations

from security_verifiers.environments import ENVIRONMENTS
from security_verifiers.errors import UserError
from sv_shared.spec import CLASSIFICATION_METRICS, GENERIC_PROFILE, ReportProfile

Profile = ReportProfile
"""What a report shows for one environment."""

GENERIC = GENERIC_PROFILE


def profile_for(env_key: str) -> Profile:
    entry = ENVIRONMENTS.get(env_key)
    if entry is None:
        return GENERIC
    try:
        return entry.spec.report
    except UserError:  # registered but not importable
        return GENERIC


__all__ = ["CLASSIFICATION_METRICS", "GENERIC", "Profile", "profile_for"]
