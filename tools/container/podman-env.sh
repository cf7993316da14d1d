# shellcheck shell=bash
# Sourced by the container scripts: renders containers.conf for this host and exports
# CONTAINERS_CONF, unless the caller already set CONTAINERS_CONF (other hosts may need nothing).
if [ -z "${CONTAINERS_CONF:-}" ]; then
    _conf_dir="${TMPDIR:-/tmp}/clearing-analysis-podman"
    mkdir -p "$_conf_dir"
    _nofile="$(ulimit -Hn)"
    if [ "$_nofile" = "unlimited" ]; then _nofile=1048576; fi
    sed "s/@NOFILE@/${_nofile}/g" "$(dirname "${BASH_SOURCE[0]}")/containers.conf.in" \
        >"$_conf_dir/containers.conf"
    export CONTAINERS_CONF="$_conf_dir/containers.conf"
fi
# The reproducibility epoch: the commit time of HEAD unless given (R-CT-1).
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH="$(git -C "$(dirname "${BASH_SOURCE[0]}")" log -1 --format=%ct)"
fi
export SOURCE_DATE_EPOCH
# PODMAN_ROOT=DIR runs every podman call of the scripts against its own storage under DIR
# (check.sh builds from empty storage this way without touching the user's images).
podman() {
    if [ -n "${PODMAN_ROOT:-}" ]; then
        command podman --root "$PODMAN_ROOT/root" --runroot "$PODMAN_ROOT/run" "$@"
    else
        command podman "$@"
    fi
}
