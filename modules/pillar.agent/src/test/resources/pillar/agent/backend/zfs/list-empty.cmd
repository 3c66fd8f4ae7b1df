zfs list -Hp -t volume -o name,volsize,io.pillar-csi:managed -r -d 1 tank/k8s
