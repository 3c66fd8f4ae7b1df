lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-a -L 67108864b vgcap
