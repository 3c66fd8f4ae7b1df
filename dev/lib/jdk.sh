# Sourced by find_jdk (dev/lib/common.sh) when the machine has no JDK 21+ (Debian 12's newest is 17):
# Debian 13's JDK, openjdk-25-jdk-headless (java, javac, jlink and the jmods), fetched once into a cache.
# That JDK needs Debian 13's C library (glibc 2.41; Debian 12 has 2.36), so it comes inside a trixie root
# file system (mmdebstrap, dev/lib/image.sh's debian_root) whose dynamic loader and libraries its
# programs load: patchelf (from that root) makes the root's loader the ELF interpreter of each of the
# JDK's executables and adds the root's library directory to the RPATH of each executable and shared
# object. Nothing else changes: no LD_LIBRARY_PATH, so what the JVM starts (lvs, zfs, mount...) loads
# the host's own libraries. Debian 13 gets the same (there the root's C library is the host's version).
#
# The cache, $PILLAR_JDK_CACHE (default /var/cache/pillar-csi-jdk, beside the images' and the VM bed's
# caches): kept between runs, shared by every checkout, and seen by the VM at the same path (the guest
# mounts the host's / read-only; only /tmp, /run, /dev, /proc and /sys afresh). In it:
#   openjdk-25-trixie-ARCH-KEY            a symlink to the build that was checked: the published JDK
#   openjdk-25-trixie-ARCH-KEY.XXXXXX/    one build: root/ (the trixie root, JAVA_HOME in it), home
#                                         (a symlink to JAVA_HOME), source (the line find_jdk prints)
# KEY hashes the suite, the architecture, the package, this host's Debian archives and the recipe (the
# code of the functions below): a changed recipe builds anew. A build goes into a directory of its own,
# beside the cache's entries, and is published by renaming a symlink once java, javac and jlink ran and
# java loaded nothing from outside the root; one build at a time (flock). Debian's later updates of the
# JDK are not fetched by themselves: rm -rf the cache (as root) to fetch the current one. A build
# removes the entries that no run has used for a week (find_jdk's use touches the symlink).
# shellcheck shell=bash

# shellcheck source=dev/lib/image.sh
source "$(dirname "${BASH_SOURCE[0]}")/image.sh"

JDK_DEBIAN_SUITE=trixie
JDK_DEBIAN_PACKAGE=openjdk-25-jdk-headless
JDK_CACHE=${PILLAR_JDK_CACHE:-/var/cache/pillar-csi-jdk}

# debian_jdk: prints the JAVA_HOME of Debian 13's JDK, fetching it into the cache when it has none;
# says on stderr where that JDK comes from. Returns non-zero (having said why) when it cannot.
debian_jdk() {
    local arch sources key link rc=0
    arch=$(dpkg --print-architecture) || return 1
    sources=$(mktemp --suffix=.sources) || return 1
    debian_sources "$sources" "$JDK_DEBIAN_SUITE" || { rm -f "$sources"; return 1; }
    key=$( { echo "$JDK_DEBIAN_SUITE $arch $JDK_DEBIAN_PACKAGE"; cat "$sources"
        declare -f debian_jdk_build debian_jdk_patch debian_jdk_check debian_root; } | sha256sum | cut -c1-16)
    link=$JDK_CACHE/openjdk-25-$JDK_DEBIAN_SUITE-$arch-$key
    if [ ! -e "$link/home/bin/java" ]; then
        # a subshell: the lock's file descriptor is closed, and a failed build removed, at its end
        (debian_jdk_build "$link" "$arch" "$sources") || rc=$?
    fi
    rm -f "$sources"
    [ $rc -eq 0 ] || return $rc
    touch -h "$link" 2>/dev/null || true   # used: see the pruning in debian_jdk_build
    cat "$link/source" >&2
    readlink -f "$link/home"
}

# debian_jdk_build LINK ARCH SOURCES: builds the JDK (as described above) and publishes it as LINK.
# Every step is checked by hand: errexit does not hold in a function called from a condition.
debian_jdk_build() {
    local link=$1 arch=$2 sources=$3 build root home start=$SECONDS version libc d
    if ((EUID != 0)); then
        echo "error: no JDK 21+ here, and fetching Debian 13's (mmdebstrap, chroot into $JDK_CACHE) needs root:" >&2
        echo "       run this once as root, or install a JDK 21+ (e.g. Temurin 25) and set JAVA_HOME to it" >&2
        return 1
    fi
    if ! command -v mmdebstrap >/dev/null; then
        echo "JDK: apt-get install mmdebstrap (to fetch Debian 13's JDK)" >&2
        apt-get update -q -o DPkg::Lock::Timeout=600 >&2 || return 1
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
            mmdebstrap debian-archive-keyring >&2 || return 1
    fi
    mkdir -p "$JDK_CACHE" || return 1
    JDK_CACHE=$(cd "$JDK_CACHE" && pwd -P) || return 1   # the ELF files name it: no symlink in it
    link=$JDK_CACHE/${link##*/}
    exec 9>"$JDK_CACHE/.lock" || return 1
    flock -w 1800 9 || { echo "error: another run has held $JDK_CACHE/.lock for 30 minutes" >&2; return 1; }
    [ ! -e "$link/home/bin/java" ] || return 0   # another run built it while this one waited
    # entries of other recipes or archives that no run has used for a week go
    find "$JDK_CACHE" -maxdepth 1 -type l -name 'openjdk-*' -mtime +7 -delete
    # a build no symlink names is one that did not finish (this run holds the lock: none is under way)
    for d in "$JDK_CACHE"/openjdk-*.*; do
        if [ -d "$d" ] && [ ! -L "$d" ] && [ -z "$(find "$JDK_CACHE" -maxdepth 1 -type l -lname "${d##*/}" -print -quit)" ]; then
            rm -rf --one-file-system "$d"
        fi
    done
    build=$(mktemp -d "$link.XXXXXX") || return 1
    # at the subshell's end (its globals: the function's locals are gone by then), unless published
    JDK_BUILD=$build JDK_LINK=$link
    trap '[ "$(readlink "$JDK_LINK" 2>/dev/null)" = "${JDK_BUILD##*/}" ] || rm -rf --one-file-system "$JDK_BUILD"' EXIT
    chmod 755 "$build" || return 1
    root=$build/root
    home=/usr/lib/jvm/java-25-openjdk-$arch
    echo "JDK: no JDK 21+ in \$JAVA_HOME or /usr/lib/jvm: fetching Debian $JDK_DEBIAN_SUITE's $JDK_DEBIAN_PACKAGE ($arch)" \
        "into $build (mmdebstrap; about a minute)" >&2
    # apt gives up on a stalled download after 60 s, three times
    debian_root "$JDK_DEBIAN_SUITE" "$root" "$sources" essential "$JDK_DEBIAN_PACKAGE,patchelf" --architectures="$arch" \
        --aptopt='Acquire::http::Timeout "60"' --aptopt='Acquire::Retries "3"' || return 1
    [ -x "$root$home/bin/javac" ] || { echo "error: $JDK_DEBIAN_PACKAGE has no $home/bin/javac" >&2; return 1; }
    debian_jdk_patch "$root" "$home" || return 1
    ln -s "root$home" "$build/home" || return 1
    version=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' "$JDK_DEBIAN_PACKAGE") || return 1
    libc=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' libc6) || return 1
    echo "JDK: Debian $JDK_DEBIAN_SUITE's $JDK_DEBIAN_PACKAGE $version ($arch), fetched once into $build" \
        "(its programs load Debian $JDK_DEBIAN_SUITE's C library, libc6 $libc, from there)" >"$build/source" || return 1
    debian_jdk_check "$build/home" "$root" || return 1
    ln -sfn "${build##*/}" "$link.new" && mv -T "$link.new" "$link" || return 1
    echo "JDK: fetched, patched and checked in $((SECONDS - start)) s" >&2
}

# debian_jdk_patch ROOT HOME: HOME's (the JDK's path in ROOT) executables get ROOT's dynamic loader as
# their ELF interpreter, and every executable and shared object of it ROOT's library directory after
# its own RPATH entries ($ORIGIN...); HOME's absolute symlinks (into /etc/java-25-openjdk, the cacerts
# of /etc/ssl/certs/java) become relative ones that stay inside ROOT. Done in ROOT by ROOT's patchelf.
debian_jdk_patch() {
    # shellcheck disable=SC2016  # the script's variables are the chroot's shell's
    chroot "$1" /bin/sh -euc '
        root=$1 home=$2
        loader=$(readlink -f "$(patchelf --print-interpreter "$home/bin/java")")
        libdir=$(dirname "$loader")
        find "$home" -type l -lname "/*" | while IFS= read -r l; do
            ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$(readlink -f "$l")")" "$l"
        done
        find "$home" -type f | while IFS= read -r f; do
            [ "$(head -c 4 "$f" | tr -d "\177")" = ELF ] || continue
            rpath=$(patchelf --print-rpath "$f")
            if patchelf --print-interpreter "$f" >/dev/null 2>&1; then
                patchelf --set-interpreter "$root$loader" "$f"
            fi
            # DT_RPATH, not RUNPATH: the libraries of the root that the JDK loads (libstdc++...) have
            # no path of their own, and a DT_RPATH is searched for their dependencies too
            patchelf --force-rpath --set-rpath "${rpath:+$rpath:}$root$libdir" "$f"
        done
    ' sh "$1" "$2"
}

# debian_jdk_check HOME ROOT: java, javac and jlink of HOME run, and java loads no library from outside ROOT
debian_jdk_check() {
    local home=$1 root=$2 outside tool
    for tool in "java -version" "javac -version" "jlink --version"; do
        # shellcheck disable=SC2086  # the program and its option
        outside=$("$home"/bin/$tool 2>&1) || { echo "error: $home/bin/$tool failed: $outside" >&2; return 1; }
    done
    outside=$(LD_DEBUG=files "$home/bin/java" -version 2>&1 | sed -n 's/.*calling init: //p' | grep -v -F "$root/" || true)
    [ -z "$outside" ] || { echo "error: $home/bin/java loaded libraries from outside $root: $outside" >&2; return 1; }
}

# debian_jdk_links_for_host: fails, saying why, when JAVA_HOME is a JDK of this cache whose C library is
# newer than this host's (Debian 13's JDK on Debian 12). jlink copies the jmods' native code as Debian
# built it, unpatched: a runtime linked from them needs Debian 13's C library, which neither this host
# (where jlink/build trains and measures the runtimes) nor images made from its suite have.
debian_jdk_links_for_host() {
    local cache root jdk_libc host_libc
    cache=$(cd "$JDK_CACHE" 2>/dev/null && pwd -P) || return 0
    [[ "$(readlink -f "$JAVA_HOME")" == "$cache"/*/root/usr/lib/jvm/* ]] || return 0
    root=$(readlink -f "$JAVA_HOME")
    root=${root%%/usr/lib/jvm/*}
    jdk_libc=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' libc6) || return 0
    host_libc=$(dpkg-query -W -f='${Version}' libc6) || return 0
    if dpkg --compare-versions "$jdk_libc" gt "$host_libc"; then
        echo "error: JAVA_HOME is Debian $JDK_DEBIAN_SUITE's JDK (find_jdk fetched it: this machine has no JDK 21+);" \
            "a runtime jlink links from it needs its C library, libc6 $jdk_libc, and this host has $host_libc." >&2
        echo "       Runtimes and images for this host need a JDK built for its C library (e.g. Temurin 25):" \
            "install one and set JAVA_HOME to it." >&2
        return 1
    fi
}
