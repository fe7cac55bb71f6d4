"""What the harness knows about E4 (sv-env-phishing-detection); found through the entry point
`security_verifiers.environments` (see sv_shared.spec)."""

from sv_shared.spec import CLASSIFICATION_GATE, EnvSpec, GoldenRun, ProofTask, classification_report

SPEC = EnvSpec(
    key="e4",
    env_id="sv-env-phishing-detection",
    summary="E4: label emails Phishing / Legitimate / Abstain and cite evidence.",
    report=classification_report("Phishing", "evidence_precision"),
    gate_metrics=CLASSIFICATION_GATE,
    golden=GoldenRun(("always-legitimate", "heuristic"), 64),
    stub_baseline="heuristic",
    bench_seed_per_hour=2000,
    reward_weights="sv_env_phishing_detection.reward:TriageWeights",
    probe_suite="sv_env_phishing_detection.probes:probe_suite",
    run_metrics="sv_env_phishing_detection.run_metrics:RUN_METRICS",
    sim2real="sv_env_phishing_detection.sim2real:TASK",
    sft_renderer="sv_env_phishing_detection.sft:render_gold",
    tool_policy="sv_env_phishing_detection.live_policy:first_link_lookup",
    proof=ProofTask("../shared/realdata/E4_phishing", {"source": "realdata"}, max_tokens=96),
)
