#!/usr/bin/env bash
# Run the conformance suite against the real NVIDIA driver and write a Markdown table of agreements.
#
# Usage: tools/conformance_on_gpu.sh OUT.md [extra pytest arguments]
#
# Needs: an NVIDIA GPU with its driver, python3 with pytest and cuda-bindings 13.5 (the `test` extra).
# Runs, each with its own junit XML (kept next to OUT.md in OUT.md.junit/):
#   1. the simulator (`-k fake`), for the reference column;
#   2. the real driver in the bindings' default legacy default-stream mode (`-k real`);
#   3. the real driver in per-thread mode (CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1, `-k real`);
#   4. each case that is undefined behaviour on the real driver (destroyed or garbage handles), alone in
#      its own process with SIMCUDA_CONFORMANCE_UB=1, so that a crash loses only that case.
# Then tools/conformance_table.py turns the XML files into OUT.md.
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 OUT.md [extra pytest arguments]" >&2
    exit 64
fi
out=$1
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
junit="$out.junit"
rm -rf "$junit"
mkdir -p "$junit"

# the real driver must answer cuInit, otherwise every real case would only be skipped
if ! "$py" - <<'EOF'
import sys
try:
    import cuda.bindings.driver as d
    r = d.cuInit(0)
    ok = r[0] == d.CUresult.CUDA_SUCCESS
    why = repr(r)
except Exception as e:  # no driver library
    ok, why = False, f"{type(e).__name__}: {e}"
if not ok:
    print(f"conformance_on_gpu: no usable NVIDIA driver ({why})", file=sys.stderr)
    sys.exit(1)
v = d.cuDriverGetVersion()
print(f"conformance_on_gpu: driver version {v[1]}", file=sys.stderr)
EOF
then
    exit 2
fi

run_pytest() {  # run_pytest XML [env arguments...] -- [pytest arguments...]
    local xml=$1
    shift
    local envargs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envargs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    env ${envargs[@]+"${envargs[@]}"} PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" "$py" -m pytest -p no:cacheprovider -q \
        -rfEs -o junit_family=xunit1 --junitxml="$xml" "$@" 2>&1
}

cd "$repo" || exit 1

echo "== simulator"
run_pytest "$junit/fake.xml" -- tests/conformance -k fake "$@" | tail -n 3

echo "== real driver, legacy default-stream mode"
run_pytest "$junit/real-legacy.xml" -u CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM -- \
    tests/conformance -k real "$@" | tail -n 40

echo "== real driver, per-thread default-stream mode"
run_pytest "$junit/real-per-thread.xml" CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1 -- \
    tests/conformance -k real "$@" | tail -n 40

echo "== real driver, undefined-behaviour cases, one process each"
for mode in legacy per-thread; do
    xml="$junit/real-$mode.xml"
    [ -f "$xml" ] || continue
    if [ "$mode" = legacy ]; then pt=(-u CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM); else pt=(CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1); fi
    i=0
    "$py" "$repo/tools/conformance_table.py" --list-ub "$xml" | while read -r nodeid; do
        i=$((i + 1))
        ubxml="$junit/real-$mode.ub$i.xml"
        run_pytest "$ubxml" "${pt[@]}" SIMCUDA_CONFORMANCE_UB=1 -- "$nodeid" | tail -n 5
        rc=${PIPESTATUS[0]}
        if [ ! -s "$ubxml" ]; then
            printf '{"nodeid": "%s", "run": "real-%s", "rc": %s}\n' "$nodeid" "$mode" "$rc" > "$junit/real-$mode.ub$i.crash.json"
            echo "   $nodeid: the process died (exit status $rc)"
        fi
    done
done

args=(fake="$junit/fake.xml" real-legacy="$junit/real-legacy.xml")
for f in "$junit"/real-legacy.ub*.xml; do [ -f "$f" ] && args+=(real-legacy="$f"); done
args+=(real-per-thread="$junit/real-per-thread.xml")
for f in "$junit"/real-per-thread.ub*.xml; do [ -f "$f" ] && args+=(real-per-thread="$f"); done

"$py" "$repo/tools/conformance_table.py" --out "$out" --crashes "$junit" \
    --title "Conformance of the real driver with the spec ($(date -u +%Y-%m-%d), $(hostname))" "${args[@]}"
echo "wrote $out (junit files in $junit/)"
