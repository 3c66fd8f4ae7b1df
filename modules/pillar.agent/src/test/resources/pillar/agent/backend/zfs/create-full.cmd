zfs create -V 134217728 -b 8192 -o volmode=dev -o io.pillar-csi:managed=true -o compression=lz4 tank/k8s/pvc-b
