"""`make bench` keeps working (a tiny run; no timing is asserted)."""

from security_verifiers import bench


def test_bench_runs_and_prints_a_ratio(capsys):
    bench.main(["--n", "8", "--latencies", "0", "--repeats", "1", "--concurrency", "4"])
    out = capsys.readouterr().out
    assert "harness r/h" in out and "×" in out
