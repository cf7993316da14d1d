#!/usr/bin/env bash
# The sealed smoke test of the two built images (docs/container.md, "In CI"); .ci/run runs it
# after `make image`, and `make image-check` after its two builds.
#  0. The analyzer image is under 400 MB, holds no Node and no pi-ai code (only the pi-ai
#     manifest its record check reads), and is the first layers of the qualifier image.
#  1. `analyze` of a small synthetic corpus inside the sealed analyzer container (no network,
#     read-only root and inputs, no capabilities, user 65534) writes the same report, byte for
#     byte, as the same `analyze` in this checkout: through `--out` on the output mount, on
#     stdout, and with two pool workers; its `--html` page equals the checkout's `show --html`
#     of it. The qualification record both use is written by the qualifier image's `qualify`
#     (its Node and pinned pi-ai) and accepted by the analyzer image; `demo` runs in the
#     qualifier image (it qualifies its corpora). `explore` of the pi writer's sessions gives
#     the same upper-bound report inside the analyzer and outside.
#     The `--out` run is signed inside the container exactly as docs/attestation.md tells a CI
#     job to (a key made by the checkout's `keygen`, owned by the image's user, mode 0400, in
#     a directory of its own mounted read-only at /key) and verified outside it with the
#     checkout's `verify --require-sealed` and the public key alone; a copy with one byte
#     changed is refused there (REPORT_CHANGED). Started from its digest with --privileged,
#     the one run podman tells the image, the signed predicate names the image ID and digest
#     podman gives outside.
#  2. The refusals: a writable input mount, host paths instead of the mounted ones, a network
#     other than none, no output mount, an
#     output directory the image's user cannot write, an output mount that holds the inputs,
#     a sidecar companion, a writable mount below an input directory, and for a signed run a
#     key its group may read, a key the image's user cannot read and a key on a writable mount
#     each exit 2 with their one fixed line (the text of the checkout's remedy table) and
#     create, change or remove nothing; so does `qualify` in the analyzer image
#     (NODE_NOT_IN_IMAGE).
#  3. The shell blocks of README.md and every docs/*.md page run as written, in order
#     (tools/container/doc_blocks.py), with no containers.conf.
# Needs the checkout's environment (`make setup`) and podman; ANALYZER_IMAGE (default
# localhost/clearing-analysis:latest) and QUALIFIER_IMAGE (default
# localhost/clearing-analysis-qualifier:latest) must already be built. PODMAN_ROOT is honoured
# (see podman-env.sh). Prints `key=value` lines; exits non-zero on the first failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=tools/container/podman-env.sh
. "$here/podman-env.sh"

ANALYZER_IMAGE="${ANALYZER_IMAGE:-localhost/clearing-analysis:latest}"
QUALIFIER_IMAGE="${QUALIFIER_IMAGE:-localhost/clearing-analysis-qualifier:latest}"
# Most runs are the analyzer's: what a sealed analysis (and CI) runs.
IMAGE="$ANALYZER_IMAGE"
cli="$repo/.venv/bin/clearing-analysis"
python="$repo/.venv/bin/python"
fail() { echo "smoke.sh: FAIL $*" >&2; exit 1; }
[ -x "$cli" ] || fail "no checkout environment: run make setup first"
for image in "$ANALYZER_IMAGE" "$QUALIFIER_IMAGE"; do
    podman image exists "$image" || fail "image $image not built: run make image first"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/clearing-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
data="$work/data"
in="$data/in"
out="$data/out"
mkdir -p "$in" "$out"
# The image runs as 65534 (its USER): the output directory must be theirs. Rootless podman
# maps that user into the caller's subordinate ids, which `podman unshare` can chown to.
own_by_image_user() {
    if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$@"; else podman unshare chown 65534:65534 "$@"; fi
}
own_by_image_user "$out"
# The signing key as a CI job provides it (docs/attestation.md, "How a CI job signs"): made
# outside the image by the checkout's keygen; the private key alone in a directory of its own,
# owned by the image's user, directory 0500 and key 0400, mounted read-only at /key. The public
# key stays outside every mount, for the verification outside the container.
keys="$work/keys"
signing="$data/signing"
mkdir "$keys" "$signing"
"$cli" keygen --out "$keys/run-signing.key" >"$work/keygen.out" || fail "keygen exited $?"
[ ! -s "$work/keygen.out" ] || fail "keygen printed something"
[ "$(stat -c %a "$keys/run-signing.key")" = 600 ] || fail "keygen's private key is not mode 0600"
mv "$keys/run-signing.key" "$signing/run-signing.key"
chmod 0400 "$signing/run-signing.key"
chmod 0500 "$signing"
own_by_image_user "$signing" "$signing/run-signing.key"
# What a refused run prints: the checkout's own remedy table, so the image cannot drift from it.
expected_line() {  # expected_line CODE DETAIL
    "$python" -c 'import sys
from clearing_analysis.codes.table import PROGRAM, REMEDIES
code, detail = sys.argv[1:]
print(f"{PROGRAM}: {code} {detail}: {REMEDIES[(code, detail)]}")' "$1" "$2"
}
SEALED=(--rm --pull=never --network=none --read-only --cap-drop=ALL
    --security-opt=no-new-privileges)

# --- 0. the analyzer image: its size, no Node, the qualifier's first layers ----------------
size() { podman image inspect --format '{{.Size}}' "$1"; }
echo "analyzer_image_size_bytes=$(size "$ANALYZER_IMAGE")"
echo "qualifier_image_size_bytes=$(size "$QUALIFIER_IMAGE")"
[ "$(size "$ANALYZER_IMAGE")" -lt 400000000 ] || fail "the analyzer image is not under 400 MB"
# Every file of the image's root that is Node's or an npm package's: exactly the pi-ai manifest
# the record check reads (docs/container.md). The image's own Python looks, sealed.
node_files="$(podman run "${SEALED[@]}" --entrypoint /opt/venv/bin/python "$ANALYZER_IMAGE" -c '
import os, shutil
assert shutil.which("node") is None, "node on PATH"
found = []
for top in ("/opt", "/usr", "/etc", "/root", "/home", "/var"):
    for root, dirs, files in os.walk(top):
        for name in files:
            path = os.path.join(root, name)
            if name in ("node", "nodejs", "npm", "npx") or "/node_modules/" in path:
                found.append(path)
print(" ".join(sorted(found)))')" || fail "the analyzer image could not be searched for Node"
[ "$node_files" = /opt/clearing-analysis/qualify/node_modules/@mariozechner/pi-ai/package.json ] \
    || fail "the analyzer image holds Node or npm files: $node_files"
echo "analyzer_image_node_files=pi-ai-manifest-only"
layers() { podman image inspect --format '{{range .RootFS.Layers}}{{.}} {{end}}' "$1"; }
case "$(layers "$QUALIFIER_IMAGE")" in
    "$(layers "$ANALYZER_IMAGE")"?*) echo "qualifier_extends_analyzer=yes" ;;
    *) fail "the qualifier image does not begin with the analyzer image's layers" ;;
esac

# --- 1. the same report inside the container and in the checkout ----------------------------
start="$(now)"
"$cli" synth --out "$in/corpus" --seed 7 --conversations 4 >/dev/null
# The record is the qualifier image's (its Node and pinned pi-ai); the analyzer takes it.
podman run "${SEALED[@]}" -v "$out:/out:rw" "$QUALIFIER_IMAGE" qualify \
    --out /out/qualification.json || fail "qualify in the qualifier image exited $?"
mv "$out/qualification.json" "$in/qualification.json"
echo "smoke_inputs_seconds=$(elapsed "$start" "$(now)")"

ANALYZE=(analyze --journals corpus/journals --sidecar corpus/history.sqlite
    --routes corpus/routes.json --agent-config corpus/agent-config.json
    --app-allowlist corpus/app-allowlist.json --qualification qualification.json)
# The same arguments under /in inside the container (the report holds no path).
IN_ANALYZE=()
for word in "${ANALYZE[@]}"; do
    case "$word" in corpus/* | qualification.json) IN_ANALYZE+=("/in/$word") ;; *) IN_ANALYZE+=("$word") ;; esac
done

start="$(now)"
(cd "$in" && "$cli" "${ANALYZE[@]}") >"$work/checkout-report.json"
echo "smoke_checkout_analyze_seconds=$(elapsed "$start" "$(now)")"
start="$(now)"
podman run "${SEALED[@]}" -v "$in:/in:ro" -v "$out:/out:rw" -v "$signing:/key:ro" "$IMAGE" \
    "${IN_ANALYZE[@]}" --out /out/report.json --sign-key /key/run-signing.key \
    --html /out/report.html || fail "sealed signed analyze exited $?"
echo "smoke_sealed_analyze_seconds=$(elapsed "$start" "$(now)")"
[ "$(cd "$out" && ls | tr '\n' ' ')" = "report.html report.json report.json.intoto.jsonl " ] \
    || fail "the sealed analyze wrote other files than its report, attestation and page"
cmp -s "$work/checkout-report.json" "$out/report.json" \
    || fail "the image's report differs from the checkout's"
echo "image_report_equals_checkout=yes bytes=$(wc -c <"$out/report.json")"
# Its HTML page, byte for byte the page the checkout makes of the same report (leather in the
# image draws what it draws here).
"$cli" show "$work/checkout-report.json" --html "$work/checkout-report.html" \
    || fail "show --html in the checkout exited $?"
cmp -s "$work/checkout-report.html" "$out/report.html" \
    || fail "the image's page differs from the checkout's"
echo "image_page_equals_checkout=yes bytes=$(wc -c <"$out/report.html")"
# Verified outside the container by the checkout's CLI, with the public key alone.
expected_verified="$("$python" -c 'from clearing_analysis.cli.verify import VERIFIED_SEALED
print(VERIFIED_SEALED, end="")')"
verified="$("$cli" verify "$out/report.json" --pubkey "$keys/run-signing.key.pub" --require-sealed)" \
    || fail "verify of the sealed signed report exited $?"
[ "$verified" = "$expected_verified" ] || fail "verify printed '$verified'"
echo "signed_in_image_verified_outside=yes"
# What the signed predicate states (versions, the image the runtime names, the contract).
"$python" -c 'import base64, json, sys
envelope = json.loads(open(sys.argv[1], "rb").read())
predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
assert predicate["mountContract"] == "HELD", predicate
# A sealed podman run states no image (docs/container.md); the accepted record names pi-ai.
assert predicate["imageId"] is None and predicate["imageDigest"] is None, predicate
assert predicate["piAiVersion"] is not None, predicate
print("signed_predicate=" + json.dumps(predicate, sort_keys=True, separators=(",", ":")))' \
    "$out/report.json.intoto.jsonl" || fail "the signed predicate is not what a sealed run states"
# One changed byte in a copy of the report: refused outside, with its fixed line.
cp "$out/report.json" "$work/tampered.json"
cp "$out/report.json.intoto.jsonl" "$work/tampered.json.intoto.jsonl"
"$python" -c 'import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 1
open(sys.argv[1], "wb").write(data)' "$work/tampered.json"
status=0
tampered="$("$cli" verify "$work/tampered.json" --pubkey "$keys/run-signing.key.pub" 2>&1)" \
    || status=$?
[ "$status" = 2 ] || fail "verify of a changed report exited $status"
[ "$tampered" = "$(expected_line VERIFY_FAILED REPORT_CHANGED)" ] || fail "got '$tampered'"
echo "changed_report_refused=VERIFY_FAILED:REPORT_CHANGED"
# The record the qualifier image's Node and pi-ai wrote was accepted by the analyzer image for
# the APIs (else the comparison would not cover the qualification at all).
qualified="$(grep -o '"status":"QUALIFIED"' "$out/report.json" | wc -l)"
[ "$qualified" -gt 0 ] || fail "the qualifier image's record was not accepted"
echo "apis_qualified_by_the_qualifier_image_record=$qualified"
# On stdout (a pipe: the JSON report), with no output mount at all.
podman run "${SEALED[@]}" -v "$in:/in:ro" "$IMAGE" "${IN_ANALYZE[@]}" >"$work/stdout-report.json" \
    || fail "sealed analyze to stdout exited $?"
cmp -s "$work/checkout-report.json" "$work/stdout-report.json" \
    || fail "the image's report on stdout differs from the checkout's"
echo "image_stdout_report_equals_checkout=yes"
# Two spawned pool workers inside the sealed container (their queues need the container's own
# /dev/shm): still the same bytes.
podman run "${SEALED[@]}" -v "$in:/in:ro" "$IMAGE" "${IN_ANALYZE[@]}" --workers 2 \
    >"$work/workers-report.json" || fail "sealed analyze with two workers exited $?"
cmp -s "$work/checkout-report.json" "$work/workers-report.json" \
    || fail "the image's report with two workers differs from the checkout's"
echo "image_two_workers_report_equals_checkout=yes"
# `explore` of pi sessions written by pi's own writer (tests/data/pi-sessions/writer/), sealed:
# the same upper-bound report, byte for byte, as the checkout's.
mkdir "$in/pi"
cp "$repo"/tests/data/pi-sessions/writer/*.jsonl "$in/pi/"
cp "$repo/tools/pi-sessions/routes.json" "$in/pi-routes.json"
"$cli" explore --sessions "$in/pi" --routes "$in/pi-routes.json" --json \
    >"$work/checkout-explore.json" || fail "explore in the checkout exited $?"
podman run "${SEALED[@]}" -v "$in:/in:ro" "$IMAGE" explore --sessions /in/pi \
    --routes /in/pi-routes.json --json >"$work/image-explore.json" \
    || fail "sealed explore exited $?"
cmp -s "$work/checkout-explore.json" "$work/image-explore.json" \
    || fail "the image's explore report differs from the checkout's"
echo "image_explore_report_equals_checkout=yes"
start="$(now)"
# demo qualifies its corpora: the qualifier image's (the analyzer image would show them
# PAYLOAD_UNQUALIFIED).
podman run "${SEALED[@]}" --tmpfs /tmp "$QUALIFIER_IMAGE" demo >/dev/null \
    || fail "demo in the qualifier image exited $?"
echo "smoke_sealed_demo_seconds=$(elapsed "$start" "$(now)")"
# Started from its digest with --privileged and a writable root, the one way podman states the
# image in /run/.containerenv (docs/container.md): the report names the image ID, and the signed
# predicate the ID and the digest, each equal to what podman says of the image outside.
image_id="$(podman image inspect --format '{{.Id}}' "$IMAGE")"
image_digest="$(podman image inspect --format '{{.Digest}}' "$IMAGE")"
name="${IMAGE%@*}"
case "${name##*/}" in *:*) name="${name%:*}" ;; esac
privileged_out="$data/out-privileged"
mkdir "$privileged_out"
own_by_image_user "$privileged_out"
podman run --rm --pull=never --network=none --privileged -v "$in:/in:ro" \
    -v "$privileged_out:/out:rw" -v "$signing:/key:ro" "$name@$image_digest" \
    "${IN_ANALYZE[@]}" --out /out/report.json --sign-key /key/run-signing.key \
    || fail "privileged signed analyze by digest exited $?"
"$cli" verify "$privileged_out/report.json" --pubkey "$keys/run-signing.key.pub" \
    --require-sealed >/dev/null || fail "verify of the privileged signed report exited $?"
"$python" -c 'import base64, json, sys
out, image_id, image_digest = sys.argv[1:]
report = json.loads(open(out + "/report.json", "rb").read())
envelope = json.loads(open(out + "/report.json.intoto.jsonl", "rb").read())
predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
assert report["imageId"] == image_id, report["imageId"]
assert (predicate["imageId"], predicate["imageDigest"]) == (image_id, image_digest), predicate
assert predicate["mountContract"] == "HELD", predicate' \
    "$privileged_out" "$image_id" "$image_digest" \
    || fail "the privileged run does not state the image podman names"
rm -rf "$privileged_out"
echo "privileged_by_digest_predicate_states_image=$image_digest"

# --- 2. refusals: exit 2, the fixed line, nothing created -----------------------------------
rm -f "$out/report.json" "$out/report.json.intoto.jsonl" "$out/report.html"
tree_state() { find "$data" -printf '%p %y %s %m %U:%G %T@\n' | sort | sha256sum; }
refused() {  # refused CODE DETAIL podman-run-arguments...
    local code="$1" detail="$2" status=0 err before expected
    shift 2
    expected="$(expected_line "$code" "$detail")"
    before="$(tree_state)"
    err="$(podman run --rm --pull=never --read-only --cap-drop=ALL \
        --security-opt=no-new-privileges "$@" 2>&1 >/dev/null)" || status=$?
    [ "$status" = 2 ] || fail "expected exit 2, got $status ($detail)"
    [ "$err" = "$expected" ] || fail "expected '$expected', got '$err'"
    [ "$(tree_state)" = "$before" ] || fail "a refused run changed the files ($detail)"
    echo "refused=$code:$detail"
}
ANALYZE_OUT=("${IN_ANALYZE[@]}" --out /out/report.json)
start="$(now)"
refused MOUNT_CONTRACT_VIOLATED INPUT_NOT_READ_ONLY --network=none \
    -v "$in:/in:rw" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# The host's paths instead of the mounted /in/... ones, the inputs rightly mounted read-only:
# below no mount given for them (the host's scratch is under /tmp, a tmpfs in the container).
refused MOUNT_CONTRACT_VIOLATED PATH_NOT_MOUNTED --network=none \
    -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" analyze --journals "$in/corpus/journals" \
    --sidecar "$in/corpus/history.sqlite" --routes "$in/corpus/routes.json" --out /out/report.json
# The default network (a bridge as root, slirp4netns rootless): an interface besides lo.
refused MOUNT_CONTRACT_VIOLATED NETWORK_NOT_ISOLATED \
    -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# No output mount: /out is the image's read-only root.
refused MOUNT_CONTRACT_VIOLATED OUTPUT_NOT_WRITABLE --network=none \
    -v "$in:/in:ro" "$IMAGE" "${ANALYZE_OUT[@]}"
# An output directory left as created (owned by the caller, mode 0755): not the image user's.
mkdir "$data/out-not-chowned"
chmod 0755 "$data/out-not-chowned"
refused MOUNT_CONTRACT_VIOLATED OUTPUT_NOT_WRITABLE_BY_USER --network=none \
    -v "$in:/in:ro" -v "$data/out-not-chowned:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# The output mount is the parent of the inputs: they would be writable through /out/in.
refused MOUNT_CONTRACT_VIOLATED OUTPUT_CONTAINS_INPUT --network=none \
    -v "$in:/in:ro" -v "$data:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
# A sidecar that is not an offline copy: the replay's own code, before anything runs.
: >"$in/corpus/history.sqlite-wal"
refused SIDECAR_NOT_OFFLINE COMPANION_PRESENT --network=none \
    -v "$in:/in:ro" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
rm "$in/corpus/history.sqlite-wal"
# A writable mount below an input directory (the journal walk would read it); last, as it
# adds a mount point under the inputs, removed again afterwards.
mkdir "$in/corpus/journals/extra" "$data/extra"
refused MOUNT_CONTRACT_VIOLATED INPUT_NOT_READ_ONLY --network=none -v "$in:/in:ro" \
    -v "$data/extra:/in/corpus/journals/extra:rw" -v "$out:/out:rw" "$IMAGE" "${ANALYZE_OUT[@]}"
rmdir "$in/corpus/journals/extra" "$data/extra"
# Signed runs (docs/attestation.md): refused before any work, nothing created.
SIGNED_OUT=("${ANALYZE_OUT[@]}" --sign-key /key/run-signing.key)
# A key its group may read: refused by the CLI, after the contract held.
chmod 0440 "$signing/run-signing.key"
refused SIGNING_KEY_REFUSED KEY_PERMISSIONS_TOO_OPEN --network=none -v "$in:/in:ro" \
    -v "$out:/out:rw" -v "$signing:/key:ro" "$IMAGE" "${SIGNED_OUT[@]}"
chmod 0400 "$signing/run-signing.key"
# A key left as keygen made it (0600, owned by the caller): the image's user cannot read it.
mkdir -m 0755 "$data/signing-as-made"
"$cli" keygen --out "$data/signing-as-made/run-signing.key"
rm "$data/signing-as-made/run-signing.key.pub"
refused SIGNING_KEY_REFUSED KEY_UNREADABLE --network=none -v "$in:/in:ro" -v "$out:/out:rw" \
    -v "$data/signing-as-made:/key:ro" "$IMAGE" "${SIGNED_OUT[@]}"
# The key on a writable mount: the entrypoint's contract refuses it as it refuses any input.
refused MOUNT_CONTRACT_VIOLATED INPUT_NOT_READ_ONLY --network=none -v "$in:/in:ro" \
    -v "$out:/out:rw" -v "$signing:/key:rw" "$IMAGE" "${SIGNED_OUT[@]}"
# `qualify` in the analyzer image: no Node there by design; the line names the other image.
refused QUALIFIER_FAILED NODE_NOT_IN_IMAGE --network=none -v "$out:/out:rw" "$ANALYZER_IMAGE" \
    qualify --out /out/qualification.json
echo "smoke_refusals_seconds=$(elapsed "$start" "$(now)")"

# --- 3. the documented commands, as written ------------------------------------------------
# Every shell block of README.md and of each docs/*.md page, in order, without
# CONTAINERS_CONF
# (tools/container/doc_blocks.py): what a reader copies must run on this kind of host.
start="$(now)"
"$python" "$here/doc_blocks.py" || fail "a documented command failed (tools/container/doc_blocks.py)"
echo "smoke_doc_blocks_seconds=$(elapsed "$start" "$(now)")"
echo "smoke=pass"
