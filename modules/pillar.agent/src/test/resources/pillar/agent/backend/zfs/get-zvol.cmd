zfs get -Hp -o name,property,value volsize,volblocksize,io.pillar-csi:managed tank/k8s/pvc-a
