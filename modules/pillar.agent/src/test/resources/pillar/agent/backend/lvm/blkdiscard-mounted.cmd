blkdiscard --zeroout /dev/vgcap/pvc-a
