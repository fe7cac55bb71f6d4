"""What the harness knows about E1 (sv-env-network-logs); found through the entry point
`security_verifiers.environments` (see sv_shared.spec)."""

from sv_shared.spec import CLASSIFICATION_GATE, EnvSpec, GoldenRun, ProofTask, classification_report

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
    run_metrics="sv_env_network_logs.run_metrics:RUN_METRICS",
    sim2real="sv_env_network_logs.sim2real:TASK",
    sft_renderer="sv_env_network_logs.sft:render_gold",
    fresh_rows="sv_env_network_logs.curriculum:FRESH_ROWS",
    proof=ProofTask(
        "../shared/realdata/E1_network_logs/stratosphere_zeek/"
        "011-zeek-mixed_conn.log.labeled.sample500",
        {"source": "zeek"},
        max_tokens=48,
        test_items=200,
    ),
)
