"""Reports over evaluation runs: metric tables with CIs, paired comparisons, figures, HTML/MD.

Entry points: `build.build_report`, `compare.compare_runs`, `stats.paired_bootstrap` (import the
modules; this package file stays empty so the CLI starts fast).
"""
