lvcreate -y --wipesignatures y --addtag pillar-csi -n snapshot-x -L 4194304b vgcap
