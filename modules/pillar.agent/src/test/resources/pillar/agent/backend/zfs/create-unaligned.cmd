zfs create -V 1000000 -b 16384 -s -o volmode=dev -o io.pillar-csi:managed=true tank/k8s/pvc-u
