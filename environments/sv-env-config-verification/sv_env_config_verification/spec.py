"""What the harness knows about E2 (sv-env-config-verification); found through the entry point
`security_verifiers.environments` (see sv_shared.spec)."""

from sv_shared.spec import REWARD, EnvSpec, GateMetric, GoldenRun, ReportProfile

SPEC = EnvSpec(
    key="e2",
    env_id="sv-env-config-verification",
    summary="E2: audit Kubernetes / Terraform configs against a tool oracle, propose patches.",
    oracles={
        "tool-oracle": "runs the oracle's own scanners on the config, reports their findings",
        "tool-oracle-fix": "tool-oracle plus the known inverse patch of built-in mutations",
    },
    report=ReportProfile(
        (
            "detection_precision",
            "detection_recall",
            "detection_f1",
            "clean_pass_rate",
            "false_positives_on_clean",
            "patch_success_rate",
            "new_violations_mean",
            "tool_calls_mean",
            "invalid_rate",
        ),
        ("reward", "success"),
        success_metrics=(
            "detection_precision",
            "detection_recall",
            "detection_f1",
            "clean_pass_rate",
            "patch_success_rate",
        ),
    ),
    gate_metrics=(REWARD, GateMetric("detection_f1"), GateMetric("patch_success_rate")),
    golden=GoldenRun(("report-nothing", "tool-oracle", "tool-oracle-fix"), 12),
    stub_baseline="tool-oracle-fix",
    bench_seed_per_hour=500,
    reward_weights="sv_env_config_verification.reward:AuditWeights",
    probe_suite="sv_env_config_verification.probes:probe_suite",
    run_metrics="sv_env_config_verification.run_metrics:RUN_METRICS",
    reward_bench="sv_env_config_verification.reward_bench:main",
    cold_caches="sv_env_config_verification.oracle:disable_scan_cache",
)
