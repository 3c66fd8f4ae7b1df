zfs destroy tank/k8s/pvc-a
