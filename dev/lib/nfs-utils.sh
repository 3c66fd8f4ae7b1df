# Sourced by dev/vm/setup and dev/vm/probe-nfs: the one way to get the kernel NFS server's userland
# (rpc.nfsd, rpc.mountd, exportfs) for the VM guest without installing it on the host.
# shellcheck shell=bash

# The Debian packages of nfs-utils and the libraries its programs need that a minimal host lacks.
NFS_UTILS_DEBS=(nfs-kernel-server nfs-common libnfsidmap1 libwrap0 keyutils libevent-core-2.1-7)
# Where dev/vm/setup keeps them for the guest (the guest sees the host's root read-only).
# shellcheck disable=SC2034  # used by the scripts that source this file
NFS_UTILS_VM_DIR=/var/lib/pillar-csi-vm/nfs-utils

# fetch_nfs_utils DIR: downloads NFS_UTILS_DEBS (apt-get download, as root) into DIR/debs and unpacks
# them (dpkg -x) into DIR/root, so DIR/root/usr/sbin/rpc.mountd exists; nothing is installed. Does
# nothing when DIR/root is complete (it is marked so only once every package unpacked). Prints the
# version it has. Returns non-zero when a download or an unpack fails.
fetch_nfs_utils() {
    local dir=$1 deb
    if [[ -f "$dir/root/.complete" && -x "$dir/root/usr/sbin/rpc.mountd" ]]; then
        echo "nfs-utils $(<"$dir/root/.complete") already unpacked in $dir/root"
        return 0
    fi
    rm -rf "$dir/debs" "$dir/root"
    mkdir -p "$dir/debs" "$dir/root"
    # as root, apt downloads as root into a directory its _apt user may not write
    (cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root "${NFS_UTILS_DEBS[@]}" >&2) || return 1
    for deb in "$dir"/debs/*.deb; do
        dpkg -x "$deb" "$dir/root" || return 1
    done
    [[ -x "$dir/root/usr/sbin/rpc.mountd" && -x "$dir/root/usr/sbin/exportfs" && -x "$dir/root/usr/sbin/rpc.nfsd" ]] \
        || { echo "the nfs-utils packages have no rpc.mountd, exportfs or rpc.nfsd under usr/sbin" >&2; return 1; }
    dpkg-deb -f "$dir"/debs/nfs-kernel-server_*.deb Version >"$dir/root/.complete"
    echo "nfs-utils $(<"$dir/root/.complete") unpacked in $dir/root"
}
