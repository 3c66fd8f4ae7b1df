zfs set volsize=134217728 tank/k8s/pvc-a
