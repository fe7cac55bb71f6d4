"""What the harness knows about E5 (sv-env-redteam-attack); found through the entry point
`security_verifiers.environments` (see sv_shared.spec)."""

from sv_shared.spec import REWARD, EnvSpec, GateMetric, GoldenRun, ReportProfile

SPEC = EnvSpec(
    key="e5",
    env_id="sv-env-redteam-attack",
    summary="E5: as attacker, get a target model to produce disallowed content.",
    report=ReportProfile(
        (
            "attack_success_rate",
            "turns_to_success_mean",
            "novelty_mean",
            "attacker_violation_rate",
            "target_unsafe_rate",
        ),
        ("reward", "attack_by_category", "attack_by_turn"),
    ),
    gate_metrics=(REWARD, GateMetric("attack_success_rate")),
    golden=GoldenRun(("direct-request", "roleplay-wrapper"), 16, target="always-refuse"),
    stub_baseline="direct-request",
    bench_seed_per_hour=200,
    opponent="e6",
    needs_target=True,
    build_only_split=True,
    reward_weights="sv_env_redteam_attack.reward:AttackWeights",
    probe_suite="sv_env_redteam_attack.probes:probe_suite",
    run_metrics="sv_env_redteam_attack.run_metrics:RUN_METRICS",
    default_target="local/smollm2-135m",  # served offline, no keys needed
)
