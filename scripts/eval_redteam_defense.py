#!/usr/bin/env python
"""Custom E6 sweeps: every argument of `sv eval` is accepted (see `--help`).

Example — the defender baselines and a local model on XSTest (over-refusal) and the built-in
scripted attacks:
    for source in builtin xstest; do
      python scripts/eval_redteam_defense.py -n 60 \\
          --models guarded,always-refuse,local/smollm2-135m \\
          --env-arg source=$source --env-arg path=xstest_prompts.csv
    done
"""

import sys

from security_verifiers.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "eval", "e6", *sys.argv[1:]]
    main()
