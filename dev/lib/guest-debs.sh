# Sourced by dev/vm/setup, dev/vm/setup-6.12 and dev/vm/probe-nfs: the one way to get programs from
# Debian packages into the VM guest without installing them on the host. The packages are downloaded
# and unpacked under /var/lib/pillar-csi-vm (the guest sees the host's root read-only), and
# dev/vm/guest-init copies their programs and libraries over the guest's /usr.
# shellcheck shell=bash

# The kernel NFS server's userland (rpc.nfsd, rpc.mountd, exportfs): the Debian packages of nfs-utils
# and the libraries its programs need that a minimal host lacks.
NFS_UTILS_DEBS=(nfs-kernel-server nfs-common libnfsidmap1 libwrap0 keyutils libevent-core-2.1-7)
# shellcheck disable=SC2034  # used by the scripts that source this file
NFS_UTILS_VM_DIR=/var/lib/pillar-csi-vm/nfs-utils

# The TLS tools of the guest of the kernel with NVMe/TCP TLS (6.12; dev/vm/setup-6.12): tlshd, the
# kernel's TLS handshake daemon, from Debian 13's ktls-utils (Debian 12 has none; 1.0.0 runs on
# Debian 12 as it is, needing at most GLIBC_2.34, GNUTLS_3_7_3 and KEYUTILS_1.5) with Debian 12's
# libnl-genl-3-200, and tcpdump with libpcap0.8 to capture the wire. The .deb from Debian 13 is pinned
# by its SHA256 (the trixie Packages index names the same file and hash).
TLS_UTILS_DEBS=(
    "http://deb.debian.org/debian/pool/main/k/ktls-utils/ktls-utils_1.0.0-1_amd64.deb#sha256=a7095cdbf262ba4fcefbb924162ae34aa973a2963c1f4660ef75b553649b2998"
    libnl-genl-3-200 tcpdump libpcap0.8)
# shellcheck disable=SC2034  # used by the scripts that source this file
TLS_UTILS_VM_DIR=/var/lib/pillar-csi-vm/tls-utils

# Debian 13's NFS server tools (nfs-utils 2.8.3: exportfs and rpc.mountd know the xprtsec export option,
# RPC-with-TLS; Debian 12's 2.6.2 does not) for the guest of the kernel with TLS (6.12), as a Debian 13 storage
# node has them. They need Debian 13's C library (libc6 2.38 or later), so they come from a Debian 13 root made by
# mmdebstrap: the programs with the libraries they load (ldd in that root), patched (patchelf) to load them from
# NFS_UTILS_13_GUEST, where dev/vm/guest-init copies them (under /usr, which rpc.mountd's own root keeps).
# shellcheck disable=SC2034  # used by the scripts that source this file
NFS_UTILS_13_VM_DIR=/var/lib/pillar-csi-vm/nfs-utils-13
NFS_UTILS_13_GUEST=/usr/lib/pillar-nfs-utils-13
NFS_UTILS_13_PROGRAMS=(exportfs rpc.mountd rpc.nfsd)

# fetch_nfs_utils_13 DIR: DIR/root/sbin/{exportfs,rpc.mountd,rpc.nfsd} and DIR/root/lib (their loader and
# libraries), DIR/root/.complete holding nfs-kernel-server's version. Does nothing when complete. Needs root.
fetch_nfs_utils_13() {
    local dir=$1 build uri
    if [[ -f "$dir/root/.complete" ]]; then
        echo "nfs-utils $(<"$dir/root/.complete") (Debian 13) already in $dir/root"
        return 0
    fi
    command -v mmdebstrap >/dev/null || apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 mmdebstrap >&2 \
        || return 1
    uri=$(awk '/^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    build=$dir/build
    rm -rf "$build" "$dir/root.new"
    mkdir -p "$build"
    # apt gives up on a stalled download after 60 s, three times
    timeout 1200 mmdebstrap --quiet --variant=essential --include=nfs-kernel-server,patchelf \
        --aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::http::Timeout "60"' --aptopt='Acquire::Retries "3"' \
        trixie "$build/root" "deb ${uri:-http://deb.debian.org/debian} trixie main" >&2 || return 1
    # shellcheck disable=SC2016  # the script's variables are the chroot's shell's
    chroot "$build/root" /bin/sh -euc '
        guest=$1
        shift
        mkdir -p /out/sbin /out/lib
        for p; do cp "/usr/sbin/$p" /out/sbin/; ldd "/usr/sbin/$p"; done \
            | awk "/=>/ { print \$3 } /ld-linux/ { print \$1 }" | sort -u | while IFS= read -r lib; do cp -L "$lib" /out/lib/; done
        for f in /out/sbin/*; do
            patchelf --set-interpreter "$guest/lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$guest/lib" "$f"
        done
        # DT_RPATH: searched for the libraries'"'"' own dependencies too
        for f in /out/lib/*; do
            case $f in */ld-linux*) ;; *) patchelf --force-rpath --set-rpath "$guest/lib" "$f" ;; esac
        done
    ' sh "$NFS_UTILS_13_GUEST" "${NFS_UTILS_13_PROGRAMS[@]}" || return 1
    mkdir -p "$dir/root.new"
    mv "$build/root/out/sbin" "$build/root/out/lib" "$dir/root.new/" || return 1
    dpkg-query --admindir="$build/root/var/lib/dpkg" -W -f='${Version}' nfs-kernel-server >"$dir/root.new/.complete" || return 1
    rm -rf "$dir/root.old"
    [[ ! -e "$dir/root" ]] || mv "$dir/root" "$dir/root.old"
    mv "$dir/root.new" "$dir/root"
    rm -rf "$dir/root.old" "$build"
    echo "nfs-utils $(<"$dir/root/.complete") (Debian 13) in $dir/root"
}

# fetch_guest_debs LABEL DIR PROGRAMS DEB...: downloads the DEBs (as root) into DIR/debs and unpacks
# them (dpkg -x) into DIR/root; nothing is installed.
#   LABEL     what the messages call them, e.g. nfs-utils
#   PROGRAMS  the paths under DIR/root that must be executable, space-separated: usr/sbin/rpc.mountd
#   DEB       a package of the host's apt sources (apt-get download: its candidate version), or
#             URL#sha256=HEX, a .deb the host's suites lack (apt-helper downloads it and checks it)
# Does nothing when DIR/root is complete for these DEBs: DIR/root/.complete, holding the first DEB's
# version, is written once every package unpacked, every program is there and ldd finds each one's
# libraries (on the host's, DIR/root's first); DIR/root/.debs lists the DEBs, so a changed list (a
# new pinned URL) unpacks again. The unpack happens beside DIR/root and replaces it by renames: a
# booting guest may be reading it. Prints the version it has. Returns non-zero when a download, an
# unpack or a check fails.
fetch_guest_debs() {
    local label=$1 dir=$2 programs=$3 deb url sha p missing
    shift 3
    local -a apt_debs=()
    if [[ -f "$dir/root/.complete" && "$(cat "$dir/root/.debs" 2>/dev/null)" == "$(printf '%s\n' "$@")" ]]; then
        missing=
        for p in $programs; do [[ -x "$dir/root/$p" ]] || missing=1; done
        if [[ -z "$missing" ]]; then
            echo "$label $(<"$dir/root/.complete") already unpacked in $dir/root"
            return 0
        fi
    fi
    rm -rf "$dir/debs" "$dir/root.new"
    mkdir -p "$dir/debs" "$dir/root.new"
    for deb; do
        if [[ "$deb" == *'#sha256='* ]]; then
            url=${deb%'#sha256='*} sha=${deb##*'#sha256='}
            # as root, apt downloads as root into a directory its _apt user may not write
            /usr/lib/apt/apt-helper -o APT::Sandbox::User=root -o Acquire::http::Timeout=30 -o Acquire::Retries=2 \
                download-file "$url" "$dir/debs/${url##*/}" "SHA256:$sha" >&2 \
                || { echo "cannot download $url with SHA256 $sha (gone from the archive? a newer version replaces it: take its file and SHA256 from the suite's Packages index)" >&2; return 1; }
        else
            apt_debs+=("$deb")
        fi
    done
    if ((${#apt_debs[@]})); then
        (cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root "${apt_debs[@]}" >&2) || return 1
    fi
    for deb in "$dir"/debs/*.deb; do
        dpkg -x "$deb" "$dir/root.new" || return 1
    done
    for p in $programs; do
        [[ -x "$dir/root.new/$p" ]] || { echo "the $label packages have no $p" >&2; return 1; }
        missing=$(LD_LIBRARY_PATH="$dir/root.new/usr/lib/x86_64-linux-gnu:$dir/root.new/lib/x86_64-linux-gnu" \
            ldd "$dir/root.new/$p" | awk '/not found/ { printf " %s", $1 }')
        [[ -z "$missing" ]] || { echo "$p of $label needs libraries neither the host nor the packages have:$missing" >&2; return 1; }
    done
    # the version of the first DEB (a URL's: its package name is the file name's first field)
    deb=$1
    if [[ "$deb" == *'#sha256='* ]]; then
        deb=${deb%'#sha256='*}
        deb=${deb##*/}
        deb=${deb%%_*}
    fi
    deb=$(compgen -G "$dir/debs/${deb}_*.deb" | head -n 1)
    [[ -n "$deb" ]] || { echo "no .deb of $1 in $dir/debs" >&2; return 1; }
    printf '%s\n' "$@" >"$dir/root.new/.debs"
    dpkg-deb -f "$deb" Version >"$dir/root.new/.complete" || return 1
    rm -rf "$dir/root.old"
    [[ ! -e "$dir/root" ]] || mv "$dir/root" "$dir/root.old"
    mv "$dir/root.new" "$dir/root"
    rm -rf "$dir/root.old"
    echo "$label $(<"$dir/root/.complete") unpacked in $dir/root"
}

# fetch_nfs_utils DIR: nfs-utils into DIR (fetch_guest_debs), so DIR/root/usr/sbin/rpc.mountd exists.
fetch_nfs_utils() {
    fetch_guest_debs nfs-utils "$1" "usr/sbin/rpc.mountd usr/sbin/exportfs usr/sbin/rpc.nfsd" "${NFS_UTILS_DEBS[@]}"
}

# fetch_tls_utils DIR: tlshd and tcpdump into DIR (fetch_guest_debs): DIR/root/usr/sbin/tlshd,
# DIR/root/usr/bin/tcpdump, their libraries under DIR/root/usr/lib and DIR/root/lib (libnl-genl).
fetch_tls_utils() {
    fetch_guest_debs ktls-utils "$1" "usr/sbin/tlshd usr/bin/tcpdump" "${TLS_UTILS_DEBS[@]}"
}
