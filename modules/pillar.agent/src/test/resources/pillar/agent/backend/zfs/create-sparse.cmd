zfs create -V 67108864 -b 16384 -s -o volmode=dev -o io.pillar-csi:managed=true tank/k8s/pvc-a
