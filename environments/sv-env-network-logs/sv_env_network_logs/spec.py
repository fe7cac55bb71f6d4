"""What the harness knows about E1 (sv-env-network-logs); found through the entry point
`security_verifiers.environments` (see sv_shared.spec)."""

from sv_shared.spec import CLASSIFICATION_GATE, EnvSpec, GoldenRun, classification_report

SPEC = EnvSpec(
    key="e1",
    env_id="sv-env-network-logs",
    summary="E1: label network flows Benign / Malicious / Abstain with calibrated confidence.",
    report=classification_report("Malicious"),
    gate_metrics=CLASSIFICATION_GATE,
    golden=GoldenRun(
        ("always-abstain", "always-benign", "always-malicious", "heuristic", "random"), 64
    ),
    stub_baseline="heuristic",
    bench_seed_per_hour=2000,
    reward_weights="sv_shared.rewards:RewardWeights",
    probe_suite="sv_env_network_logs.probes:probe_suite",
)
