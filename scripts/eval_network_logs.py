#!/usr/bin/env python
"""Custom E1 sweeps: every argument of `sv eval` is accepted (see `--help`).

Example — three models, two seeds, the real Stratosphere/IoT-23 file as an OOD split, every
rollout of the sweep also appended to one JSONL file (each record names its model and run):
    for seed in 1 2; do
      python scripts/eval_network_logs.py --models heuristic,gpt-4o-mini -n 200 --seed $seed \\
          --env-arg source=zeek --env-arg path=conn.log.labeled --env-arg split=all \\
          --rollout-log e1-sweep.jsonl
    done
"""

import sys

from security_verifiers.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "eval", "e1", *sys.argv[1:]]
    main()
