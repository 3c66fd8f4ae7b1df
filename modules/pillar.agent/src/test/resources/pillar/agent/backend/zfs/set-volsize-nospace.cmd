zfs set volsize=2147483648 tank/k8s/pvc-b
