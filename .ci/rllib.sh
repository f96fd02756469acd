#!/usr/bin/env bash
# CI step 6 (called by .ci/run in the source copy, its venv active): install the rllib extra's
# requirements, the extra's own line of pyproject.toml (pip install ".[rllib]" would build the
# wheel again), then run the RLlib tests and the env tests under the gymnasium version Ray
# RLlib pins (1.2.2), older than the one the main suite ran under.
set -euo pipefail
requirements="$1/rllib-requirements.txt"
sed -n 's/^rllib = \[\(.*\)\].*/\1/p' pyproject.toml | sed 's/", *"/\n/g' | tr -d '" ' \
    > "$requirements"
[[ -s "$requirements" ]] || { echo "no rllib extra in pyproject.toml"; exit 1; }
pip install --quiet -r "$requirements"
pip list 2>/dev/null | grep -E "^(ray|gymnasium) "
timeout "${CI_TEST_TIMEOUT:-1500}" python -m pytest tests/test_rllib.py tests/test_env_wrappers.py \
    tests/test_env_single.py tests/test_env_training.py tests/test_env_vector.py tests/test_env_aec.py \
    tests/test_sb3.py tests/test_views_after_the_end.py -q -rs
