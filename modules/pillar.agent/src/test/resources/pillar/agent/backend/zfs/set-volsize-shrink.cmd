zfs set volsize=67108864 tank/k8s/pvc-a
