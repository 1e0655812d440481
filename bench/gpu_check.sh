#!/usr/bin/env bash
# The sanitizer's CUDA paths and its GPU overhead, in one go on a machine with a GPU:
#
#     bash bench/gpu_check.sh [OUTDIR]
#
# 1. tests/sanitizer/test_cuda.py (fp16 autocast with the CUDA GradScaler, bf16,
#    float64, torch.compile with inductor, the allocator's memory counter; every
#    healthy run compared bit for bit with plain python);
# 2. bench/sanitizer_overhead.py --device cuda (a transformer in bf16, and in fp16
#    with a GradScaler).
# Logs go to OUTDIR (default: .bench/gpu). Needs torch with CUDA, pytest and the
# project installed (pip install -e .).
set -uo pipefail
out=${1:-.bench/gpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    python -c "import torch, platform; print('torch', torch.__version__, 'python', platform.python_version(), torch.cuda.get_device_name())"
} 2>&1 | tee "$out/machine.txt"
timeout "${TEST_TIMEOUT:-300}" python -m pytest -q -p no:cacheprovider -rs tests/sanitizer/test_cuda.py 2>&1 | tee "$out/cuda_tests.log"
tests=${PIPESTATUS[0]}
timeout "${BENCH_TIMEOUT:-200}" python bench/sanitizer_overhead.py --device cuda --reps "${REPS:-7}" 2>&1 | tee "$out/overhead.txt"
bench=${PIPESTATUS[0]}
echo "tests exit $tests, bench exit $bench" | tee -a "$out/machine.txt"
[ "$tests" -eq 0 ] && [ "$bench" -eq 0 ]
