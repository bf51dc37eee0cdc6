#!/usr/bin/env bash
# Verify the systemd unit with `systemd-analyze verify`, strictly.
#
# Usage: .ci/verify-unit.sh [UNIT_FILE]
#   UNIT_FILE defaults to $CONSOLIDATOR_UNIT, else systemd/consolidator.service.
#
# Exit status: 0 clean; 1 the unit has errors or warnings; 2 usage/setup problem
# (systemd-analyze missing: on Debian `apt-get install -y systemd` provides it).
#
# Why strict: `systemd-analyze verify` exits 0 on unknown keys and unparsable
# values (it only logs a warning and ignores the line), so this script fails on
# ANY output from it, not only on its exit status.
#
# ExecStart: verify refuses a unit whose ExecStart binary does not exist. The
# unit names /usr/local/bin/consolidator (the usual place for a system-wide
# pip install), but on a CI machine pip may put the console script elsewhere
# (e.g. /root/.pyenv/versions/X/bin). So the script verifies a temporary copy
# of the unit in which an ExecStart path that is not executable here is
# rewritten to `command -v <same name>` when that exists, or else to a
# stand-in executable in a temporary directory (the package not installed
# yet). Everything else in the unit is verified exactly as written.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
unit=${1:-${CONSOLIDATOR_UNIT:-$here/systemd/consolidator.service}}

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "verify-unit: systemd-analyze not found (Debian: apt-get install -y systemd)" >&2
    exit 2
fi
if [[ ! -f $unit ]]; then
    echo "verify-unit: no such unit file: $unit" >&2
    exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT

# Keep the file name: systemd derives the unit name (and type) from it.
copy=$tmp/$(basename -- "$unit")

# Rewrite ExecStart= paths that do not resolve on this machine.
# (fd 3 = the script's stdout, for notes; the loop's stdout is the copy.)
exec 3>&1
while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line =~ ^[[:space:]]*ExecStart[[:space:]]*=[[:space:]]*([-@:+!]*)([^[:space:]]+) ]]; then
        path=${BASH_REMATCH[2]}
        if [[ ! -x $path ]]; then
            name=$(basename -- "$path")
            found=$(command -v -- "$name" 2>/dev/null || true)
            if [[ $found == /* && -x $found ]]; then
                echo "verify-unit: ExecStart $path is not here; verifying with $found (command -v $name)" >&3
                replacement=$found
            else
                mkdir -p "$tmp/bin"
                replacement=$tmp/bin/$name
                printf '#!/bin/sh\nexit 0\n' >"$replacement"
                chmod 0755 "$replacement"
                echo "verify-unit: ExecStart $path is not here and $name is not on PATH; verifying with a stand-in" >&3
            fi
            line=${line/"$path"/"$replacement"}
        fi
    fi
    printf '%s\n' "$line"
done <"$unit" >"$copy"

rc=0
# --man=no: do not require man pages for Documentation= entries on CI.
systemd-analyze verify --man=no "$copy" >"$tmp/out" 2>"$tmp/err" || rc=$?

if [[ $rc -ne 0 || -s $tmp/err || -s $tmp/out ]]; then
    echo "verify-unit: FAILED for $unit (systemd-analyze exit $rc; warnings count as failures)" >&2
    echo "verify-unit: (messages name the temporary copy $copy)" >&2
    cat "$tmp/out" >&2
    cat "$tmp/err" >&2
    exit 1
fi
echo "verify-unit: OK $unit"
