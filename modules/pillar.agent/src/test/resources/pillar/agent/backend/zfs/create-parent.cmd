zfs create -o mountpoint=none tank/k8s
