#!/usr/bin/env bash
# The one prepared run for a machine with many cores and a GPU (issue 43): the package's
# kernels compiled there, the scaling table on the GPU, and the trainer on cuda at two batch
# sizes, in well under 15 minutes. Run from the repository root of a checkout whose package is
# installed (pip install -e . with torch's CUDA build); figures land in $OUT (default runs/gpu).
#
#     bash benchmarks/gpu_check.sh
set -euo pipefail
OUT="${OUT:-runs/gpu}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.txt"
nproc | tee "$OUT/cores.txt"
time borders-sim warmup 2>&1 | tail -3 | tee "$OUT/warmup.txt"
python benchmarks/scaling.py --device cuda --batches 128,1024,4096 \
    --trainer-batches 1024,4096 --seconds 2 --updates 2 > "$OUT/scaling.md" 2> "$OUT/scaling.log"
for games in 1024 4096; do
    borders-sim train --players 4 --opponents honest,bluffer,collector,random --device cuda \
        --num-envs "$games" --minutes 1 --eval-every 0 --seed 1 --no-progress \
        --out "$OUT/train-$games" --overwrite > "$OUT/train-$games.log" 2>&1
    python - "$OUT/train-$games" <<'PY'
import json, sys
rows = json.load(open(f"{sys.argv[1]}/curve.json"))
last = rows[-1]
print(sys.argv[1], "learner steps/s", last["steps_per_s"],
      {k: v for k, v in last.items() if k.startswith("seconds_")})
PY
done | tee "$OUT/train.txt"
