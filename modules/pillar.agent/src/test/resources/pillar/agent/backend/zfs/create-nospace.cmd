zfs create -V 2147483648 -b 16384 -o volmode=dev -o io.pillar-csi:managed=true tank/k8s/pvc-big
