"""The example environment's spec: all the harness needs to know about it."""

from sv_shared.spec import EnvSpec, GateMetric, GoldenRun, ReportProfile

SPEC = EnvSpec(
    key="e7",
    env_id="sv-env-example-parity",
    summary="Example: say whether a number is even or odd.",
    aliases=("parity",),
    oracles={"compute": "computes the answer (stands in for a label reader)"},
    report=ReportProfile(("accuracy",), ("reward",)),
    gate_metrics=(GateMetric("reward_mean"),),
    golden=GoldenRun(("always-even", "compute"), 4),
    stub_baseline="compute",
    load_environment="sv_env_example_parity.environment:load_environment",
    baseline_policies="sv_env_example_parity.baselines:baseline_policies",
    data_adapter=None,
    probe_suite="sv_env_example_parity.probes:probe_suite",
    reward_weights="sv_env_example_parity.reward:ParityWeights",
    run_metrics="sv_env_example_parity.run_metrics:RUN_METRICS",
    sft_renderer="sv_env_example_parity.sft:render_gold",
    reward_bench="sv_env_example_parity.reward_bench:main",
)
