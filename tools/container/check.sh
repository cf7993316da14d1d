#!/usr/bin/env bash
# `make image-check`: the image's claims, measured on this machine (docs/container.md).
#  1. R-CT-1: build the base and the image twice, each time from empty podman storage (a
#     throw-away --root), and require the same base tarball hash and the same image ID.
#  2. R-CT-2/3: a sealed run (no network, read-only root and inputs, no capabilities) of
#     synth, qualify and replay with the image's own tools; exit 0, outputs only in /out, and
#     the replay's summary byte-identical to the checkout's (when .venv exists).
#  3. Negative runs: a writable input mount, a network-enabled run, an output mount that
#     contains the inputs, a run with no output mount and a writable mount below an input
#     directory are each refused with their fixed code, exit 2, and create nothing.
# Everything happens under a temporary directory that is removed at the end; the user's own
# podman storage is not touched. Prints `key=value` lines for the record.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

IMAGE=localhost/clearing-analysis:check
work="$(mktemp -d "${TMPDIR:-/tmp}/clearing-image-check.XXXXXX")"
cleanup() {
    for run in 1 2; do
        if [ -d "$work/storage$run" ]; then
            # Removes that storage's images and unmounts its overlay root (plain rm cannot).
            PODMAN_ROOT="$work/storage$run" podman system reset --force >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check.sh: FAIL $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo "source_date_epoch=$SOURCE_DATE_EPOCH"
# --- 1. two builds from empty storage --------------------------------------------------------
declare -a ids
for run in 1 2; do
    export PODMAN_ROOT="$work/storage$run"
    start="$(now)"
    base_line="$("$here/build-base.sh")"
    mid="$(now)"
    ids[run]="$(IMAGE_TAG="$IMAGE" "$here/build.sh" | tail -n 1)"
    end="$(now)"
    echo "build${run}_base_seconds=$(elapsed "$start" "$mid")"
    echo "build${run}_image_seconds=$(elapsed "$mid" "$end")"
    echo "build${run}_base_tarball_sha256=$(echo "$base_line" | sed -n 's/.*tarball sha256 \([0-9a-f]*\).*/\1/p')"
    echo "build${run}_image_id=${ids[run]}"
done
[ "${ids[1]}" = "${ids[2]}" ] || fail "R-CT-1: the two builds gave different image IDs"
echo "reproducible=yes"
size="$(podman image inspect --format '{{.Size}}' "$IMAGE")"
echo "image_size_bytes=$size"

# --- 2. sealed runs --------------------------------------------------------------------------
data="$work/data"
in="$data/in"
out="$data/out"
mkdir -p "$in" "$out"
own_by_nobody() {
    if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$@"; else podman unshare chown 65534:65534 "$@"; fi
}
own_by_nobody "$out"
SEALED=(--rm --pull=never --network=none --read-only --cap-drop=ALL
    --security-opt=no-new-privileges)

# The corpus and the qualification record are made by the image itself, then become inputs.
podman run "${SEALED[@]}" -v "$out:/out:rw" "$IMAGE" \
    synth --out /out/corpus --seed 7 --conversations 4 >/dev/null
podman run "${SEALED[@]}" -v "$out:/out:rw" "$IMAGE" qualify --out /out/qualification.json
mv "$out/corpus" "$in/corpus"
mv "$out/qualification.json" "$in/qualification.json"
REPLAY=(replay --journals /in/corpus/journals --sidecar /in/corpus/history.sqlite
    --routes /in/corpus/routes.json --agent-config /in/corpus/agent-config.json
    --qualification /in/qualification.json)

start="$(now)"
podman run "${SEALED[@]}" -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" \
    "${REPLAY[@]}" --out /out/summary.json --log-file /out/replay.log \
    || fail "sealed replay exited $?"
end="$(now)"
echo "sealed_replay_seconds=$(elapsed "$start" "$end")"
[ "$(cd "$out" && ls | tr '\n' ' ')" = "replay.log summary.json " ] || fail "unexpected outputs"
# All four APIs must accept the record the image itself wrote.
[ "$(grep -o '"status":"QUALIFIED"' "$out/summary.json" | wc -l)" = 4 ] \
    || fail "the image's own qualification record was not accepted by its replay"
echo "sealed_replay=exit0,qualified"
if [ -x "$repo/.venv/bin/clearing-analysis" ]; then
    # The same inputs through the checkout: the report must not depend on where it ran.
    (cd "$in" && "$repo/.venv/bin/clearing-analysis" replay --journals corpus/journals \
        --sidecar corpus/history.sqlite --routes corpus/routes.json \
        --agent-config corpus/agent-config.json --qualification qualification.json) \
        >"$work/host-summary.json"
    cmp -s "$work/host-summary.json" "$out/summary.json" \
        || fail "image and checkout summaries differ"
    echo "image_equals_checkout=yes"
fi

# --- 3. negative runs ------------------------------------------------------------------------
refused() {  # refused EXPECTED_STDERR podman-run-arguments...
    local expected="$1" status=0 err
    shift
    local before
    before="$(find "$in" "$out" | sort | sha256sum)"
    err="$(podman run --rm --pull=never --read-only --cap-drop=ALL \
        --security-opt=no-new-privileges "$@" 2>&1 >/dev/null)" || status=$?
    [ "$status" = 2 ] || fail "expected exit 2, got $status ($expected)"
    [ "$err" = "clearing-analysis: $expected" ] || fail "expected '$expected', got '$err'"
    [ "$(find "$in" "$out" | sort | sha256sum)" = "$before" ] || fail "a refused run wrote"
    echo "refused=${expected// /:}"
}
refused "MOUNT_CONTRACT_VIOLATED INPUT_NOT_READ_ONLY" --network=none \
    -v "$in:/in:rw" -v "$out:/out:rw" "$IMAGE" "${REPLAY[@]}" --out /out/s.json
refused "MOUNT_CONTRACT_VIOLATED NETWORK_NOT_ISOLATED" \
    -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" "${REPLAY[@]}" --out /out/s.json
refused "MOUNT_CONTRACT_VIOLATED OUTPUT_CONTAINS_INPUT" --network=none \
    -v "$in:/in:ro" -v "$data:/out:rw" "$IMAGE" "${REPLAY[@]}" --out /out/s.json
refused "MOUNT_CONTRACT_VIOLATED OUTPUT_NOT_WRITABLE" --network=none \
    -v "$in:/in:ro" "$IMAGE" "${REPLAY[@]}" --out /out/s.json
# Last, as it adds a mount point under the inputs: a writable mount below an input directory.
mkdir -p "$in/corpus/journals/extra" "$data/extra"
refused "MOUNT_CONTRACT_VIOLATED INPUT_NOT_READ_ONLY" --network=none -v "$in:/in:ro" \
    -v "$data/extra:/in/corpus/journals/extra:rw" -v "$out:/out:rw" "$IMAGE" \
    "${REPLAY[@]}" --out /out/s.json
echo "check=pass"
