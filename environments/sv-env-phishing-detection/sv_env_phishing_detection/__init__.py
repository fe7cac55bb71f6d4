"""E4 sv-env-phishing-detection: triage an email as Phishing / Legitimate / Abstain with a
calibrated confidence and evidence that is checked against the email.

`vf.load_environment("sv-env-phishing-detection", **kwargs)` calls `environment.load_environment`
(its arguments: `config.PhishingDetectionConfig`, or `sv envs phishing-detection --args`).
"""

from sv_shared.package_exports import lazy_exports

EXPORTS = {
    "ENV_ID": ".config",
    "load_environment": ".environment",
    "PhishingDetectionConfig": ".config",
    "baseline_policies": ".baselines",
    "data_adapter": ".data_pipeline",
}
__getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
__all__ = sorted(EXPORTS)
