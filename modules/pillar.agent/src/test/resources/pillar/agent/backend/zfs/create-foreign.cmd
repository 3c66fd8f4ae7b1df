zfs create -V 33554432 -s tank/k8s/legacy
