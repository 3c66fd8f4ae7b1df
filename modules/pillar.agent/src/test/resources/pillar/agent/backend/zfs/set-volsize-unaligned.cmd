zfs set volsize=134217729 tank/k8s/pvc-a
