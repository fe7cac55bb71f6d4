"""`make bench` keeps working (a tiny run; no timing is asserted)."""

from security_verifiers import bench


def test_bench_runs_and_prints_a_ratio(capsys):
    bench.main(["--n", "8", "--latencies", "0", "--repeats", "1", "--concurrency", "4"])
    out = capsys.readouterr().out
    assert "harness r/h" in out and "×" in out


def test_e2_reward_bench_runs(capsys):
    from security_verifiers import bench_e2

    bench_e2.main(["--episodes", "1", "--cli-episodes", "1"])
    out = capsys.readouterr().out
    assert "in_process_median_s" in out and "cli_median_s" in out
