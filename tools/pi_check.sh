#!/usr/bin/env bash
# The Raspberry Pi check: piperik's aarch64 wheel in a Debian 12 (bookworm) arm64 system, the base
# of Raspberry Pi OS 64-bit, run under qemu-user emulation on any Linux machine.
#
#     sudo tools/pi_check.sh [ROOT_DIR]     # default ROOT_DIR: $PI_ROOT or /var/tmp/piperik-pi-root
#
# 1. Creates ROOT_DIR with debootstrap (arm64, minbase + python3, python3-venv, ca-certificates and
#    libgomp1, the OpenMP runtime Pinocchio's aarch64 wheel loads: no compiler), or reuses it.
# 2. Takes dist/piperik-*-cpXY-cpXY-manylinux*_aarch64.whl for the root's Python (builds it with
#    tools/build_wheels.sh when it is missing), installs it into a fresh venv there and times that.
# 3. Runs `piperik demo`, then the test suite (the repository's tests/ against the installed wheel).
# 4. Prints a summary: wheel, install time, demo, test counts and every skip reason.
#
# Needs root (chroot, mounts), debootstrap, qemu-user-static and binfmt_misc (Debian:
# apt-get install debootstrap qemu-user-static binfmt-support). It mounts binfmt_misc and enables
# qemu-aarch64 when they are not, and unmounts what it mounted in ROOT_DIR on exit.
# Environment: PI_ROOT, MIRROR (default http://deb.debian.org/debian), PIPERIK_TEST_COUNT (passed to
# the suite; its default 10000 when unset), PYTEST_ARGS (extra pytest arguments), SUMMARY_FILE (the
# summary is also written there; default build/pi_check_summary.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
ROOT=$(realpath -m "${1:-${PI_ROOT:-/var/tmp/piperik-pi-root}}")
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
SUMMARY_FILE=$(realpath -m "${SUMMARY_FILE:-build/pi_check_summary.txt}")
CHECK=/opt/piperik-check  # inside the root

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'pi_check: %s\n' "$*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot and mounts)"
for tool in debootstrap chroot mount; do command -v "$tool" >/dev/null || die "$tool not found"; done

# ---- qemu-user through binfmt_misc ----------------------------------------------------------------
if [[ $(uname -m) != aarch64 ]]; then
    if [[ ! -e /proc/sys/fs/binfmt_misc/status ]]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
    fi
    if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
        command -v update-binfmts >/dev/null || die "qemu-aarch64 not registered; apt-get install qemu-user-static binfmt-support"
        update-binfmts --enable qemu-aarch64 || die "cannot enable qemu-aarch64"
    fi
    # the F flag: the kernel opens the interpreter at registration, so it works inside the chroot
    grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 \
        || die "qemu-aarch64 is registered without the F flag (use qemu-user-static's registration)"
fi

# ---- the root ------------------------------------------------------------------------------------
if [[ -f $ROOT/etc/debian_version && -x $ROOT/usr/bin/python3 ]]; then
    log "reusing $ROOT (Debian $(cat "$ROOT/etc/debian_version"))"
else
    [[ -e $ROOT && -n $(ls -A "$ROOT" 2>/dev/null) ]] && die "$ROOT exists and is not a Debian root; remove it"
    log "debootstrap $SUITE arm64 into $ROOT (a few minutes)"
    debootstrap --arch=arm64 --variant=minbase --include=python3,python3-venv,ca-certificates,libgomp1 \
        "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 \
        || { tail -20 "$ROOT.debootstrap.log" >&2; die "debootstrap failed (log: $ROOT.debootstrap.log)"; }
fi

MOUNTED=()
cleanup() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount "${MOUNTED[$i]}" 2>/dev/null || umount -l "${MOUNTED[$i]}" || true; done
}
trap cleanup EXIT
bind() {  # source target-inside-root [mount options]
    mkdir -p "$ROOT$2"
    if ! mountpoint -q "$ROOT$2"; then
        if [[ $1 == proc ]]; then mount -t proc proc "$ROOT$2"; else mount --bind "$1" "$ROOT$2"; fi
        MOUNTED+=("$ROOT$2")
    fi
}
bind proc /proc
bind /dev /dev
bind /dev/pts /dev/pts   # the firmware simulator's pseudo-terminals
bind /sys /sys
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"  # pip reaches PyPI from inside
# pip inside trusts what the host trusts (a host behind a TLS-inspecting proxy has its CA there)
ROOT_ENV=(HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 PIP_DISABLE_PIP_VERSION_CHECK=1)
HOST_CA=${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}
if [[ -f $HOST_CA ]]; then
    cp -L "$HOST_CA" "$ROOT/etc/ssl/host-ca-certificates.crt"
    ROOT_ENV+=(PIP_CERT=/etc/ssl/host-ca-certificates.crt)
fi

in_root() { chroot "$ROOT" /usr/bin/env -i "${ROOT_ENV[@]}" "$@"; }

ROOT_ARCH=$(in_root uname -m)
[[ $ROOT_ARCH == aarch64 ]] || die "the root runs as $ROOT_ARCH, not aarch64"
PY_TAG=$(in_root python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
PY_VERSION=$(in_root python3 -c 'import sys; print(sys.version.split()[0])')
if [[ -z $(in_root sh -c 'ls /usr/lib/aarch64-linux-gnu/libgomp.so.1 2>/dev/null') ]]; then
    log "apt-get install libgomp1 (Pinocchio's aarch64 wheel needs the OpenMP runtime; a library, no compiler)"
    in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libgomp1' \
        >"$ROOT.apt.log" 2>&1 || { tail -20 "$ROOT.apt.log" >&2; die "apt-get install libgomp1 failed"; }
fi
COMPILERS=$(in_root sh -c 'for c in cc gcc c++ g++ clang; do command -v $c; done' || true)
[[ -z $COMPILERS ]] || die "the root has a compiler ($COMPILERS): this check is for a system without one"

# ---- the wheel -----------------------------------------------------------------------------------
find_wheel() { ls -t "$REPO"/dist/piperik-*-"$PY_TAG"-"$PY_TAG"-*manylinux*_aarch64.whl 2>/dev/null | head -1; }
WHEEL=$(find_wheel)
if [[ -z $WHEEL ]]; then
    log "no $PY_TAG aarch64 wheel in dist/: building it"
    # its size check (WHEEL_MAX_KB) may fail in the default profile: the Pi check goes on with the wheel
    PYTHONS=${PY_TAG:2:1}.${PY_TAG:3} ARCHS=aarch64 tools/build_wheels.sh \
        || log "tools/build_wheels.sh reported a problem (above); checking the wheel it built"
    WHEEL=$(find_wheel)
    [[ -n $WHEEL ]] || die "tools/build_wheels.sh made no $PY_TAG aarch64 wheel"
fi
log "wheel $(basename "$WHEEL")"

# The sources the tests read (C core, tables, firmware, tests): the working tree's tracked and
# untracked, not ignored files, as a clone on the board would have them.
rm -rf "$ROOT$CHECK"
mkdir -p "$ROOT$CHECK/src" "$ROOT$CHECK/dist"
git -C "$REPO" ls-files -z --cached --others --exclude-standard \
    | (cd "$REPO" && xargs -0 tar -cf - --no-recursion 2>/dev/null) | tar -xf - -C "$ROOT$CHECK/src"
cp "$WHEEL" "$ROOT$CHECK/dist/"
WHEEL_IN=$CHECK/dist/$(basename "$WHEEL")

# ---- install, demo, suite ------------------------------------------------------------------------
log "fresh venv + pip install of the wheel (emulated)"
in_root python3 -m venv "$CHECK/venv"
in_root "$CHECK/venv/bin/python" -m pip install -q --upgrade pip >/dev/null
t0=$(date +%s.%N)
in_root "$CHECK/venv/bin/python" -m pip install -q --only-binary=:all: "$WHEEL_IN" >"$ROOT$CHECK/install.log" 2>&1 \
    || { cat "$ROOT$CHECK/install.log" >&2; die "pip install of the wheel failed"; }
INSTALL_S=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

log "piperik demo"
set +e
in_root "$CHECK/venv/bin/piperik" demo >"$ROOT$CHECK/demo.log" 2>&1
DEMO_RC=$?
set -e

log "test dependencies (the [test] extra, wheels only)"
t0=$(date +%s.%N)
in_root "$CHECK/venv/bin/python" -m pip install -q --only-binary=:all: "$WHEEL_IN[test]" >"$ROOT$CHECK/install-test.log" 2>&1 \
    || { cat "$ROOT$CHECK/install-test.log" >&2; die "pip install of the test extra failed"; }
TEST_INSTALL_S=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

log "test suite (emulated; tens of minutes)"
t0=$(date +%s)
set +e
# shellcheck disable=SC2086
in_root sh -c "cd $CHECK/src && PIPERIK_TEST_COUNT=${PIPERIK_TEST_COUNT:-10000} $CHECK/venv/bin/pytest -q -rfEs -p no:cacheprovider ${PYTEST_ARGS:-}" \
    >"$ROOT$CHECK/pytest.log" 2>&1
PYTEST_RC=$?
set -e
SUITE_S=$(($(date +%s) - t0))

# ---- summary -------------------------------------------------------------------------------------
mkdir -p "$(dirname "$SUMMARY_FILE")"
{
    echo "piperik Pi check, $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "system:   Debian $(cat "$ROOT/etc/debian_version") arm64 ($ROOT), Python $PY_VERSION, $(uname -m) host, qemu-user"
    echo "compiler: none (cc, gcc, c++, g++, clang absent)"
    echo "wheel:    $(basename "$WHEEL") ($(($(stat -c %s "$WHEEL") / 1024)) KB)"
    printf 'install:  pip install of the wheel into a fresh venv: %.1f s emulated (numpy, pyserial as wheels)\n' "$INSTALL_S"
    printf '          test extra (pin, matplotlib, hypothesis, ...): %.1f s\n' "$TEST_INSTALL_S"
    echo "demo:     piperik demo exit $DEMO_RC"
    grep -E '^piperik .* demo|^  largest joint step|^speed|^Pinocchio' "$ROOT$CHECK/demo.log" | sed 's/^ */          | /'
    echo "suite:    $(tail -1 "$ROOT$CHECK/pytest.log") (exit $PYTEST_RC; $((SUITE_S / 60)) min emulated, PIPERIK_TEST_COUNT=${PIPERIK_TEST_COUNT:-10000})"
    echo "skips:"
    grep '^SKIPPED' "$ROOT$CHECK/pytest.log" | sed 's/^SKIPPED /  /' || echo "  none"
    echo "failures:"
    grep -E '^(FAILED|ERROR)' "$ROOT$CHECK/pytest.log" | sed 's/^/  /' || echo "  none"
} | tee "$SUMMARY_FILE"
echo "(logs in $ROOT$CHECK: install.log, demo.log, pytest.log; summary in $SUMMARY_FILE)"
[[ $DEMO_RC == 0 && $PYTEST_RC == 0 ]]
