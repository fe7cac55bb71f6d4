#!/usr/bin/env python
"""Custom E5 sweeps: every argument of `sv eval` is accepted (see `--help`).

Example — two attackers against a vLLM-served target, HarmBench behaviors from a local CSV,
judged by Llama Guard 3 served next to it:
    python scripts/eval_redteam_attack.py -n 50 --models direct-request,roleplay-wrapper \\
        --target meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1 \\
        --env-arg source=harmbench --env-arg path=harmbench_behaviors_text_all.csv \\
        --env-arg judge=llama-guard@http://localhost:8001/v1#meta-llama/Llama-Guard-3-8B
For a whole attacker x defender matrix use `sv tournament`.
"""

import sys

from security_verifiers.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "eval", "e5", *sys.argv[1:]]
    main()
