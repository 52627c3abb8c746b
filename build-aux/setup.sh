# Shared set-up for build-aux/quickstart and build-aux/check (sourced, bash).
#
# 1. Installs the Debian packages hpmeasure needs when any is missing (apt-get; as
#    root, or says what to run when not root).
# 2. Runs the autotools build in $HP_BUILD_DIR and `make install` into $HP_PREFIX.
# Variables: HP_PREFIX (default: <checkout>/_install), HP_BUILD_DIR (default:
# <checkout>/_build), HP_JOBS (default: number of cores), HP_CONFIGURE_ARGS (more
# arguments for configure, e.g. --enable-sanitizers; the build directory is configured
# again when they change).

set -euo pipefail

HP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HP_PREFIX=${HP_PREFIX:-$HP_TOP/_install}
HP_BUILD_DIR=${HP_BUILD_DIR:-$HP_TOP/_build}
HP_JOBS=${HP_JOBS:-$(nproc 2>/dev/null || echo 2)}
HP_CONFIGURE_ARGS=${HP_CONFIGURE_ARGS:-}

# Build tools, the libraries of DESIGN.md, compilers for the tests (C++, Fortran,
# MPI, clang with LLVM's OpenMP runtime), the checkers' dependencies (python3-otf2
# for otf2check.py), GCC's own test programs (gcc-12-source, for test/corpus) and the
# Debian packaging tools and git (build-aux/deb-check builds from a clone; man-db for
# the man-page test t108).
HP_PACKAGES=(
    gcc g++ gfortran make autoconf automake libtool pkg-config binutils cmake gcc-12-plugin-dev
    gcc-12-source
    libdw-dev libelf-dev libunwind-dev libpapi-dev
    libopen-trace-format2-dev libotf2-trace-dev otf2-tools python3-otf2 python3
    mpich libmpich-dev clang libomp-14-dev
    libarchive-dev libexpat1-dev libjansson-dev chromium
    debhelper lintian dpkg-dev git man-db
)

hp_say() { printf '%s\n' "[hpmeasure] $*"; }

hp_missing_packages() {
    local p missing=()
    for p in "${HP_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    echo "${missing[@]:-}"
}

hp_install_packages() {
    local missing
    missing=$(hp_missing_packages)
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        hp_say "missing Debian packages: $missing"
        hp_say "not running as root, so not installing them; run:"
        hp_say "  sudo apt-get update && sudo apt-get install -y $missing"
        exit 1
    fi
    hp_say "installing Debian packages: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >/dev/null
}

hp_build_and_install() {
    cd "$HP_TOP"
    if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
        hp_say "autoreconf"
        autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
    fi
    mkdir -p "$HP_BUILD_DIR"
    cd "$HP_BUILD_DIR"
    if [ ! -f Makefile ] || [ "$(sed -n 's/^prefix = //p' Makefile)" != "$HP_PREFIX" ] ||
        [ "$(cat configure.args 2>/dev/null)" != "$HP_CONFIGURE_ARGS" ]; then
        hp_say "configure --prefix=$HP_PREFIX $HP_CONFIGURE_ARGS"
        # shellcheck disable=SC2086
        "$HP_TOP/configure" --prefix="$HP_PREFIX" $HP_CONFIGURE_ARGS >configure.out 2>&1 ||
            { cat configure.out; exit 1; }
        echo "$HP_CONFIGURE_ARGS" >configure.args
    fi
    hp_say "make -j$HP_JOBS && make install"
    make -j"$HP_JOBS" >make.out 2>&1 || { tail -50 make.out; exit 1; }
    make install >install.out 2>&1 || { tail -50 install.out; exit 1; }
    hp_say "installed into $HP_PREFIX"
}

hp_install_packages
hp_build_and_install
