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
    data_adapter=None,
)
