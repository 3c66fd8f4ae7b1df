#!/bin/bash
# Captures real LVM 2.03 output (stdout, stderr, exit status) for the argument lists LvmBackend emits.
set -u
OUT=${PILLAR_CAPTURE_DIR:-/work/backend-capture}/lvm
mkdir -p "$OUT"
rm -f "$OUT"/*
cap() { # name argv...
    local name=$1; shift
    printf '%s\n' "$*" >"$OUT/$name.cmd"
    "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
    echo $? >"$OUT/$name.rc"
    echo "== $name: rc=$(<"$OUT/$name.rc") $*"
}
F=(--reportformat json --units b --nosuffix)
LVF=lv_name,lv_path,lv_size,lv_tags,pool_lv,lv_attr,vg_extent_size
VGF=vg_name,vg_size,vg_free,vg_extent_size
PF=lv_name,lv_size,data_percent,lv_attr,zero
LAYF=lv_name,lv_size,pool_lv,data_percent,lv_attr,zero
truncate -s 600M /root/pv.img
loop=$(losetup -f --show /root/pv.img)
cap version lvm version
cap pvcreate pvcreate -y "$loop"
cap vgcreate vgcreate vgcap "$loop"
cap thinpool lvcreate -y --type thin-pool -L 200m -n pool vgcap
W=(-y --wipesignatures y --addtag pillar-csi)
cap lvcreate-linear lvcreate "${W[@]}" -n pvc-a -L 67108864b vgcap
cap lvcreate-linear-exists lvcreate "${W[@]}" -n pvc-a -L 67108864b vgcap
cap lvcreate-linear-nospace lvcreate "${W[@]}" -n pvc-big -L 10737418240b vgcap
cap lvcreate-linear-unrounded lvcreate "${W[@]}" -n pvc-r -L 1000000b vgcap
cap lvcreate-reserved lvcreate "${W[@]}" -n snapshot-x -L 4194304b vgcap
cap lvcreate-thin lvcreate "${W[@]}" -n pvc-t -V 134217728b --thinpool pool vgcap
cap lvcreate-thin-zero lvcreate "${W[@]}" --zero y -n pvc-tz -V 4194304b --thinpool pool vgcap
cap lvcreate-thin-over lvcreate "${W[@]}" -n pvc-tover -V 1073741824b --thinpool pool vgcap
cap lvcreate-thin-huge lvcreate "${W[@]}" -n pvc-thuge -V 1125899906842624b --thinpool pool vgcap
cap lvcreate-thin-exists lvcreate "${W[@]}" -n pvc-t -V 134217728b --thinpool pool vgcap
cap lvcreate-thin-nopool lvcreate "${W[@]}" -n pvc-x -V 134217728b --thinpool nopool vgcap
cap lvcreate-novg lvcreate "${W[@]}" -n pvc-x -L 4194304b vgmissing
cap lvcreate-untagged lvcreate -y -n untagged -L 4194304b vgcap
cap dd dd if=/dev/urandom of=/dev/vgcap/pvc-t bs=1M count=24 oflag=direct
cap lvs-all lvs "${F[@]}" -o "$LVF" vgcap
cap lvs-one lvs "${F[@]}" -o "$LVF" vgcap/pvc-a
cap lvs-thin-one lvs "${F[@]}" -o "$LVF" vgcap/pvc-t
cap lvs-missing lvs "${F[@]}" -o "$LVF" vgcap/missing
cap lvs-novg lvs "${F[@]}" -o "$LVF" vgmissing/pvc-a
cap lvs-pool lvs "${F[@]}" -o "$PF" vgcap/pool
cap lvs-layout lvs "${F[@]}" -o "$LAYF" vgcap
cap lvchange-pool-nozero lvchange --zero n vgcap/pool
cap lvs-pool-nozero lvs "${F[@]}" -o "$PF" vgcap/pool
cap lvchange-pool-zero lvchange --zero y vgcap/pool
cap vgs vgs "${F[@]}" -o "$VGF" vgcap
cap vgs-missing vgs "${F[@]}" -o "$VGF" vgmissing
cap lvextend lvextend -L 134217728b vgcap/pvc-a
cap lvextend-same lvextend -L 134217728b vgcap/pvc-a
cap lvextend-smaller lvextend -L 67108864b vgcap/pvc-a
cap lvextend-nospace lvextend -L 10737418240b vgcap/pvc-a
cap lvextend-missing lvextend -L 10737418240b vgcap/missing
cap lvextend-thin lvextend -L 268435456b vgcap/pvc-t
cap lvchange-an lvchange -an vgcap/pvc-t
cap lvs-inactive lvs "${F[@]}" -o "$LVF" vgcap/pvc-t
cap lvchange-ay lvchange -ay -K vgcap/pvc-t
cap lvchange-ay-again lvchange -ay -K vgcap/pvc-t
cap blkdiscard-zeroout blkdiscard --zeroout /dev/vgcap/pvc-a
mkfs.ext4 -q /dev/vgcap/pvc-a && mkdir -p /mnt/cap && mount /dev/vgcap/pvc-a /mnt/cap
cap blkdiscard-mounted blkdiscard --zeroout /dev/vgcap/pvc-a
umount /mnt/cap
# shellcheck disable=SC2217  # sleep holds the volume open: the busy case below
sleep 60 </dev/vgcap/pvc-a &
holder=$!
sleep 1
cap lvremove-busy lvremove -f vgcap/pvc-a
kill "$holder"
wait "$holder" 2>/dev/null
cap lvremove lvremove -f vgcap/pvc-a
cap lvremove-missing lvremove -f vgcap/pvc-a
cap lvremove-novg lvremove -f vgmissing/pvc-a
cap lvremove-thin lvremove -f vgcap/pvc-t
cap lvs-after lvs "${F[@]}" -o "$LVF" vgcap
cap vgs-after vgs "${F[@]}" -o "$VGF" vgcap
cap lvs-empty-vg-select lvs "${F[@]}" -o "$LVF" -S lv_name=nothing vgcap
vgremove -f vgcap >/dev/null 2>&1
losetup -d "$loop"
echo 'done'
