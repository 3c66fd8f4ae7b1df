lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-r -L 1000000b vgcap
