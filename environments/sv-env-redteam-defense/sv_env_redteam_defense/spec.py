"""What the harness knows about E6 (sv-env-redteam-defense); found through the entry point
`security_verifiers.environments` (see sv_shared.spec)."""

from sv_shared.spec import REWARD, EnvSpec, GateMetric, GoldenRun, ReportProfile

SPEC = EnvSpec(
    key="e6",
    env_id="sv-env-redteam-defense",
    summary="E6: as assistant, stay helpful on benign turns and refuse harmful ones.",
    report=ReportProfile(
        (
            "harmful_compliance_rate",
            "refusal_rate_harmful",
            "safe_alternative_rate",
            "over_refusal_rate",
            "helpful_rate_benign",
            "attack_success_rate",
        ),
        ("reward", "refusal_tradeoff"),
    ),
    gate_metrics=(
        REWARD,
        GateMetric("harmful_compliance_rate", False),
        GateMetric("over_refusal_rate", False),
    ),
    golden=GoldenRun(("always-comply", "always-refuse", "guarded"), 32),
    stub_baseline="guarded",
    bench_seed_per_hour=200,
    build_only_split=True,
    reward_weights="sv_env_redteam_defense.reward:DefenseWeights",
    probe_suite="sv_env_redteam_defense.probes:probe_suite",
    run_metrics="sv_env_redteam_defense.run_metrics:RUN_METRICS",
)
