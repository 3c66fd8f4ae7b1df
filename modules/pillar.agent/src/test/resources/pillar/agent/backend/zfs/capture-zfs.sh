#!/bin/bash
# Captures real OpenZFS output (stdout, stderr, exit status) for the argument lists ZfsVolumeBackend
# emits, in the qemu test VM (no udev). OUT: the directory to write (default: next to this script).
set -u
OUT=${1:-$(dirname "$(readlink -f "$0")")}
rm -f "$OUT"/*.cmd "$OUT"/*.out "$OUT"/*.err "$OUT"/*.rc "$OUT"/devices.txt
cap() { # name argv...
    local name=$1; shift
    printf '%s\n' "$*" >"$OUT/$name.cmd"
    "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
    echo $? >"$OUT/$name.rc"
    echo "== $name: rc=$(<"$OUT/$name.rc") $*"
}
note() { echo "$*" >>"$OUT/devices.txt"; }
# the first zd* of sysfs whose zvol_id names the dataset, waiting up to 5 s; prints /dev/zdN
zd_of() {
    local want=$1 zd
    for _ in $(seq 50); do
        for zd in /sys/block/zd*; do
            [[ -e "$zd" && -e /dev/${zd##*/} ]] || continue
            [[ "$(/lib/udev/zvol_id "/dev/${zd##*/}" 2>/dev/null)" == "$want" ]] && { echo "/dev/${zd##*/}"; return; }
        done
        sleep 0.1
    done
    return 1
}
G=(-Hp -o 'name,property,value' 'volsize,volblocksize,io.pillar-csi:managed')
S=(-Hp -o 'property,value' 'available,used')
L=(-Hp -t volume -o 'name,volsize,io.pillar-csi:managed' -r -d 1)
M=(-o volmode=dev -o io.pillar-csi:managed=true)
truncate -s 1G /root/pool.img
loop=$(losetup -f --show /root/pool.img)
cap version zfs version
cap zpool-create zpool create -f -m none -o cachefile=none tank "$loop"
cap get-space-nopool zfs get "${S[@]}" tank/k8s
cap list-noparent zfs list "${L[@]}" tank/k8s
cap create-noparent zfs create -V 67108864 -b 16384 -s "${M[@]}" tank/k8s/pvc-a
cap create-nopool zfs create -V 67108864 -b 16384 -s "${M[@]}" nopool/k8s/pvc-a
cap create-parent zfs create -o mountpoint=none tank/k8s
cap list-empty zfs list "${L[@]}" tank/k8s
cap get-space-empty zfs get "${S[@]}" tank/k8s
cap get-filesystem zfs get "${G[@]}" tank/k8s
cap get-missing zfs get "${G[@]}" tank/k8s/pvc-a
t0=$EPOCHREALTIME
cap create-sparse zfs create -V 67108864 -b 16384 -s "${M[@]}" tank/k8s/pvc-a
note "after zfs create of tank/k8s/pvc-a (${EPOCHREALTIME}, created at $t0):"
# shellcheck disable=SC2012  # a listing for a human reader of devices.txt
note "  /dev/zvol: $(ls -R /dev/zvol 2>&1 | tr '\n' ' ')"
zd=$(zd_of tank/k8s/pvc-a)
note "  device $zd found $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}') s after the create"
note "  /sys/block/${zd#/dev/}/size: $(cat "/sys/block/${zd#/dev/}/size") sectors; $(ls -l "$zd")"
printf '%s\n' "/lib/udev/zvol_id $zd" >"$OUT/zvol-id.cmd"
/lib/udev/zvol_id "$zd" >"$OUT/zvol-id.out" 2>"$OUT/zvol-id.err"; echo $? >"$OUT/zvol-id.rc"
cap zvol-id-notzvol /lib/udev/zvol_id "$loop"
cap create-exists zfs create -V 67108864 -b 16384 -s "${M[@]}" tank/k8s/pvc-a
cap get-zvol zfs get "${G[@]}" tank/k8s/pvc-a
cap create-full zfs create -V 134217728 -b 8192 "${M[@]}" -o compression=lz4 tank/k8s/pvc-b
cap get-zvol-full zfs get "${G[@]}" tank/k8s/pvc-b
cap get-refreservation zfs get -Hp -o name,property,value refreservation,compression,volmode,volblocksize tank/k8s/pvc-b
cap get-space zfs get "${S[@]}" tank/k8s
cap create-nospace zfs create -V 2147483648 -b 16384 "${M[@]}" tank/k8s/pvc-big
cap create-unaligned zfs create -V 1000000 -b 16384 -s "${M[@]}" tank/k8s/pvc-u
cap create-badblocksize zfs create -V 67108864 -b 3000 -s "${M[@]}" tank/k8s/pvc-u
cap create-foreign zfs create -V 33554432 -s tank/k8s/legacy
cap get-unmanaged zfs get "${G[@]}" tank/k8s/legacy
cap list-volumes zfs list "${L[@]}" tank/k8s
cap set-volsize zfs set volsize=134217728 tank/k8s/pvc-a
note "after zfs set volsize=128M of pvc-a: /sys/block/${zd#/dev/}/size $(cat "/sys/block/${zd#/dev/}/size") sectors"
cap set-volsize-same zfs set volsize=134217728 tank/k8s/pvc-a
cap set-volsize-unaligned zfs set volsize=134217729 tank/k8s/pvc-a
cap set-volsize-nospace zfs set volsize=2147483648 tank/k8s/pvc-b
cap set-volsize-missing zfs set volsize=134217728 tank/k8s/pvc-missing
cap set-volsize-filesystem zfs set volsize=134217728 tank/k8s
cap set-volsize-shrink zfs set volsize=67108864 tank/k8s/pvc-a
cap get-shrunk zfs get "${G[@]}" tank/k8s/pvc-a
# shellcheck disable=SC2217  # sleep holds the zvol open: the busy case below
sleep 60 <"$zd" &
holder=$!
sleep 1
cap destroy-busy zfs destroy tank/k8s/pvc-a
kill "$holder"
wait "$holder" 2>/dev/null
cap destroy zfs destroy tank/k8s/pvc-a
note "after zfs destroy of pvc-a: $zd $( [[ -e $zd ]] && echo still there || echo gone)"
cap destroy-missing zfs destroy tank/k8s/pvc-a
cap create-again zfs create -V 67108864 -b 16384 -s "${M[@]}" tank/k8s/pvc-c
note "pvc-c (created after pvc-a was destroyed) got $(zd_of tank/k8s/pvc-c) (pvc-a had $zd)"
cap list-after zfs list "${L[@]}" tank/k8s
cap get-space-after zfs get "${S[@]}" tank/k8s
zpool destroy tank >/dev/null 2>&1
losetup -d "$loop"
echo 'done'
