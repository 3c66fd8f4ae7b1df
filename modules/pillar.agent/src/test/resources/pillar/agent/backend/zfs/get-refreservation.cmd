zfs get -Hp -o name,property,value refreservation,compression,volmode,volblocksize tank/k8s/pvc-b
