lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-x -L 4194304b vgmissing
